// grep: content, files_with_matches and count over ripgrep, paginated with
// head_limit/offset. Results are ordered by path so page 2 follows page 1.
import { displayLines, parseRecord, peekPath, peekType, rgText, type RgLineMessage } from './rgJson';
import { partialNote, runRipgrep } from './ripgrep';
import { BASE_RG_ARGS, byPath, clampInt, cleanPath, excludeArgs, searchTarget, showsAll, type PathFilter } from './searchScope';
import { TopK } from './topK';

export type GrepMode = 'content' | 'files_with_matches' | 'count';
export const GREP_DEFAULT_LIMIT = 100;
export const GREP_MAX_LIMIT = 1000;
/** Match records kept in memory; beyond this they are counted, not stored. */
const RETAIN_MATCHES = 20_000;

export interface GrepQuery {
  pattern: string;
  path?: string;
  glob?: string;
  type?: string;
  outputMode?: GrepMode;
  before?: number;
  after?: number;
  context?: number;
  caseInsensitive?: boolean;
  multiline?: boolean;
  headLimit?: number;
  offset?: number;
  /** Globs never searched (`search.exclude` of .loupe/config.json); they win over \`glob\`. */
  exclude?: readonly string[];
  /** Paths the results may show (read rules); the rest are searched for nothing. */
  visible?: PathFilter;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface GrepLine {
  path: string;
  line: number;
  text: string;
  kind: 'match' | 'context';
}

interface GrepBase {
  /** Items before pagination: match records, files, or files with counts. */
  total: number;
  offset: number;
  limit: number;
  notes: string[];
}
export type GrepResult =
  | (GrepBase & { mode: 'content'; lines: GrepLine[]; matchesShown: number })
  | (GrepBase & { mode: 'files_with_matches'; files: string[] })
  | (GrepBase & { mode: 'count'; counts: { path: string; count: number }[]; totalCount: number });

function filterArgs(q: GrepQuery): string[] {
  const args = [...BASE_RG_ARGS];
  if (q.glob) args.push('--glob', q.glob);
  if (q.type) args.push('--type', q.type);
  args.push(...excludeArgs(q.exclude));
  if (q.caseInsensitive) args.push('--ignore-case');
  if (q.multiline) args.push('--multiline');
  return args;
}

/** The pattern goes after --regexp so `-e`, `--pre=x` or `--files` are searched for, not obeyed. */
function tail(pattern: string, target: string): string[] {
  return ['--regexp', pattern, '--', target];
}

export async function grep(root: string, q: GrepQuery): Promise<GrepResult> {
  const target = await searchTarget(root, q.path);
  const mode = q.outputMode ?? 'content';
  const limit = clampInt(q.headLimit, GREP_DEFAULT_LIMIT, 1, GREP_MAX_LIMIT);
  const offset = clampInt(q.offset, 0, 0, Number.MAX_SAFE_INTEGER);
  const visible = q.visible ?? showsAll;
  const common = { cwd: root, signal: q.signal, timeoutMs: q.timeoutMs, visible };
  const base = { offset, limit, notes: [] as string[] };

  // Files and counts keep only what this page and the ones before it need, as rg's output
  // arrives; only the total is counted over everything.
  const keep = offset + limit;
  if (mode === 'files_with_matches') {
    const files = new TopK<string>(keep, byPath);
    let total = 0;
    const outcome = await runRipgrep({
      ...common,
      args: [...filterArgs(q), '--files-with-matches', '--null', ...tail(q.pattern, target.arg)],
      separator: '\0',
      onRecord: (r) => {
        const file = cleanPath(r.toString('utf8'));
        if (!visible(file)) return;
        total++;
        files.add(file);
      },
    });
    return withNote({ ...base, mode, total, files: files.sorted().slice(offset) }, partialNote(outcome));
  }

  if (mode === 'count') {
    const counts = new TopK<{ path: string; count: number }>(keep, (a, b) => byPath(a.path, b.path));
    let total = 0;
    let totalCount = 0;
    const outcome = await runRipgrep({
      ...common,
      args: [...filterArgs(q), '--count', '--null', ...tail(q.pattern, target.arg)],
      onRecord: (r) => {
        const nul = r.lastIndexOf(0);
        const file = nul > 0 ? cleanPath(r.subarray(0, nul).toString('utf8')) : null;
        if (file === null || !visible(file)) return;
        const count = Number(r.subarray(nul + 1).toString('latin1'));
        total++;
        totalCount += count;
        counts.add({ path: file, count });
      },
    });
    return withNote({ ...base, mode, total, totalCount, counts: counts.sorted().slice(offset) }, partialNote(outcome));
  }

  return grepContent(root, { ...q, visible }, target.arg, base);
}

interface FileLines {
  path: string;
  /** Every match and context record of the file, in file order, as rg wrote them. */
  raw: Buffer[];
  kinds: ('match' | 'context')[];
}

const EMPTY_RECORD: RgLineMessage['data'] = { path: { text: '' }, lines: { text: '' }, line_number: 0, submatches: [] };

/** A file's records, parsed: only the files a page shows get here. */
const parsed = (f: FileLines): RgLineMessage['data'][] => f.raw.map((r) => (parseRecord(r) as RgLineMessage | null)?.data ?? EMPTY_RECORD);

async function grepContent(root: string, q: GrepQuery, target: string, base: { offset: number; limit: number; notes: string[] }): Promise<GrepResult> {
  const ctx = clampInt(q.context, 0, 0, 50);
  const before = clampInt(q.before, ctx, 0, 50);
  const after = clampInt(q.after, ctx, 0, 50);
  const files = new Map<string, FileLines>();
  let retained = 0;
  let counted = 0;
  const args = [...filterArgs(q), '--json'];
  if (before) args.push('--before-context', String(before));
  if (after) args.push('--after-context', String(after));

  const outcome = await runRipgrep({
    cwd: root,
    signal: q.signal,
    timeoutMs: q.timeoutMs,
    visible: q.visible,
    args: [...args, ...tail(q.pattern, target)],
    onRecord: (r) => {
      const type = peekType(r);
      if (type !== 'match' && type !== 'context') return;
      // Only the path is read now; a record is parsed only if its file is on the page shown.
      const named = peekPath(r, type) ?? (parseRecord(r) as RgLineMessage | null)?.data.path;
      if (named === undefined) return;
      const path = cleanPath(typeof named === 'string' ? named : rgText(named));
      if (q.visible && !q.visible(path)) return;
      if (type === 'match') counted++;
      // Past the retention cap only matches are counted, and context lines are dropped with them.
      if (retained >= RETAIN_MATCHES) return;
      if (type === 'match') retained++;
      let f = files.get(path);
      if (!f) files.set(path, (f = { path, raw: [], kinds: [] }));
      f.raw.push(r);
      f.kinds.push(type);
    },
  });

  const ordered = [...files.values()].sort((a, b) => byPath(a.path, b.path));
  const all: { file: FileLines; index: number }[] = [];
  for (const file of ordered) file.kinds.forEach((k, index) => k === 'match' && all.push({ file, index }));
  const page = all.slice(base.offset, base.offset + base.limit);
  const lines = pageLines(page, before, after);
  const result: GrepResult = { ...base, mode: 'content', total: counted, lines, matchesShown: page.length };
  if (counted > RETAIN_MATCHES) result.notes.push(`Only the first ${RETAIN_MATCHES} matches were ordered; narrow the search to page past them.`);
  return withNote(result, partialNote(outcome));
}

/** The page's matches plus the context lines that fall inside their -B/-A windows. */
function pageLines(page: { file: FileLines; index: number }[], before: number, after: number): GrepLine[] {
  const out: GrepLine[] = [];
  const byFile = new Map<FileLines, Set<number>>();
  for (const { file, index } of page) {
    let s = byFile.get(file);
    if (!s) byFile.set(file, (s = new Set()));
    s.add(index);
  }
  for (const [file, chosen] of byFile) {
    const records = parsed(file);
    const windows: [number, number][] = [];
    for (const i of chosen) {
      const start = records[i].line_number ?? 0;
      const span = displayLines(records[i].lines).length;
      windows.push([start - before, start + span - 1 + after]);
    }
    const seen = new Set<number>();
    records.forEach((rec, i) => {
      const isChosen = chosen.has(i);
      const start = rec.line_number ?? 0;
      // A match of another page inside this page's window is shown as context.
      if (!isChosen && !windows.some(([a, b]) => start >= a && start <= b)) return;
      displayLines(rec.lines).forEach((text, k) => {
        const line = start + k;
        if (seen.has(line)) return;
        seen.add(line);
        out.push({ path: file.path, line, text, kind: isChosen ? 'match' : 'context' });
      });
    });
  }
  return out;
}

function withNote<T extends GrepResult>(result: T, note: string | null): T {
  if (note) result.notes.push(note);
  return result;
}
