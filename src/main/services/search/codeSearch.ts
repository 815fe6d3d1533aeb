// code_search: a regex search whose matches come back ranked by relevance.
import { firstLine, parseRecord, peekType, rgText, type RgLineMessage } from './rgJson';
import { rgTypesFor } from './languages';
import { pathScore, relevance } from './relevance';
import { partialNote, runRipgrep } from './ripgrep';
import { BASE_RG_ARGS, byPath, clampInt, cleanPath, excludeArgs, searchTarget, type PathFilter } from './searchScope';
import { TopK } from './topK';

export const CODE_SEARCH_DEFAULT_LIMIT = 50;
export const CODE_SEARCH_MAX_LIMIT = 1000;
/** Matches ranked at most; past this the search is counted, not ranked. */
const RANK_CAP = 20_000;
const CONTEXT_CHARS = 300;

export interface CodeSearchQuery {
  pattern: string;
  language?: string;
  path?: string;
  limit?: number;
  excludePatterns?: string[];
  caseInsensitive?: boolean;
  /** Paths the results may show (read rules); the rest are searched for nothing. */
  visible?: PathFilter;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface CodeMatch {
  path: string;
  line: number;
  context: string;
  relevance_score: number;
  /** Why it scored what it did: the named parts of the score. */
  reasons: string[];
}

export interface CodeSearchResult {
  matches: CodeMatch[];
  total_matches: number;
  search_time_ms: number;
  notes: string[];
}

interface Ranked {
  path: string;
  line: number;
  text: string;
  spans: [number, number][];
  /** Matching lines in its file: known once rg has finished the file. */
  fileMatches: number;
  score: number;
}

/** rg reports submatch offsets in bytes; the scorer works on characters. */
function charSpans(text: string, spans: [number, number][]): [number, number][] {
  // eslint-disable-next-line no-control-regex
  if (!/[^\x00-\x7f]/.test(text)) return spans;
  const bytes = Buffer.from(text, 'utf8');
  const at = (b: number) => bytes.subarray(0, b).toString('utf8').length;
  return spans.map(([s, e]) => [at(s), at(e)]);
}

const best = (a: Ranked, b: Ranked): number => b.score - a.score || byPath(a.path, b.path) || a.line - b.line;

export async function codeSearch(root: string, q: CodeSearchQuery): Promise<CodeSearchResult> {
  const t0 = performance.now();
  const target = await searchTarget(root, q.path);
  const limit = clampInt(q.limit, CODE_SEARCH_DEFAULT_LIMIT, 1, CODE_SEARCH_MAX_LIMIT);
  const args = [...BASE_RG_ARGS, '--json'];
  for (const t of rgTypesFor(q.language)) args.push('--type', t);
  args.push(...excludeArgs(q.excludePatterns));
  if (q.caseInsensitive) args.push('--ignore-case');
  args.push('--regexp', q.pattern, '--', target.arg);

  // Ranked as rg goes, keeping only the best `limit`: rg prints a file's records together
  // (begin, its matches, end: its parallel searchers buffer each file), so at a file's `end` its
  // match count, the density part of the score, is known. Scoring everything after rg had exited
  // was most of what code_search cost beyond rg itself.
  const top = new TopK<Ranked>(limit, best);
  let file: Ranked[] = [];
  const rankFile = () => {
    if (!file.length) return;
    const byPath = pathScore(file[0].path);
    for (const m of file) {
      m.fileMatches = file.length;
      m.score = relevance(m, false, byPath).score;
      top.add(m);
    }
    file = [];
  };
  let total = 0;
  let ranked = 0;
  const outcome = await runRipgrep({
    cwd: root,
    args,
    signal: q.signal,
    timeoutMs: q.timeoutMs,
    visible: q.visible,
    onRecord: (r) => {
      const type = peekType(r);
      if (type === 'end') return rankFile();
      if (type !== 'match') return;
      const msg = parseRecord(r) as RgLineMessage | null;
      if (!msg) return;
      const path = cleanPath(rgText(msg.data.path));
      if (q.visible && !q.visible(path)) return;
      total++;
      if (ranked >= RANK_CAP) return;
      ranked++;
      const text = firstLine(msg.data.lines);
      const spans = msg.data.submatches.map((s): [number, number] => [s.start, s.end]);
      file.push({ path, line: msg.data.line_number ?? 0, text, spans: charSpans(text, spans), fileMatches: 0, score: 0 });
    },
  });
  // A run stopped early (its time bound) may end inside a file.
  rankFile();

  const matches = top.sorted().map((m): CodeMatch => {
    const s = relevance(m);
    const trimmed = m.text.trim();
    const context = trimmed.length > CONTEXT_CHARS ? `${trimmed.slice(0, CONTEXT_CHARS)}…` : trimmed;
    return { path: m.path, line: m.line, context, relevance_score: s.score, reasons: s.reasons };
  });

  const notes: string[] = [];
  if (total > RANK_CAP) notes.push(`Only the first ${RANK_CAP} of ${total} matches were ranked; narrow the pattern or path.`);
  const partial = partialNote(outcome);
  if (partial) notes.push(partial);
  return { matches, total_matches: total, search_time_ms: Math.round(performance.now() - t0), notes };
}

export function formatCodeSearch(r: CodeSearchResult): string {
  if (r.total_matches === 0) return 'No matches found.';
  const lines = r.matches.map((m) => `${m.path}:${m.line}: ${m.context}  [${m.relevance_score.toFixed(2)}]`);
  if (r.total_matches > r.matches.length) lines.push('', `Showing the ${r.matches.length} most relevant of ${r.total_matches} matches; raise limit or narrow the pattern for more.`);
  for (const n of r.notes) lines.push(`Note: ${n}`);
  return lines.join('\n');
}
