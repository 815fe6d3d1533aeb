// code_search: a regex search whose matches come back ranked by relevance.
import { displayLines, parseRecord, peekType, rgText, type RgLineMessage } from './rgJson';
import { rgTypesFor } from './languages';
import { relevance } from './relevance';
import { partialNote, runRipgrep } from './ripgrep';
import { BASE_RG_ARGS, byPath, clampInt, cleanPath, excludeArgs, searchTarget, type PathFilter } from './searchScope';

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

interface Raw {
  path: string;
  line: number;
  text: string;
  spans: [number, number][];
}

/** rg reports submatch offsets in bytes; the scorer works on characters. */
function charSpans(text: string, spans: [number, number][]): [number, number][] {
  // eslint-disable-next-line no-control-regex
  if (!/[^\x00-\x7f]/.test(text)) return spans;
  const bytes = Buffer.from(text, 'utf8');
  const at = (b: number) => bytes.subarray(0, b).toString('utf8').length;
  return spans.map(([s, e]) => [at(s), at(e)]);
}

export async function codeSearch(root: string, q: CodeSearchQuery): Promise<CodeSearchResult> {
  const t0 = performance.now();
  const target = await searchTarget(root, q.path);
  const limit = clampInt(q.limit, CODE_SEARCH_DEFAULT_LIMIT, 1, CODE_SEARCH_MAX_LIMIT);
  const args = [...BASE_RG_ARGS, '--json'];
  for (const t of rgTypesFor(q.language)) args.push('--type', t);
  args.push(...excludeArgs(q.excludePatterns));
  if (q.caseInsensitive) args.push('--ignore-case');
  args.push('--regexp', q.pattern, '--', target.arg);

  const raws: Raw[] = [];
  const perFile = new Map<string, number>();
  let total = 0;
  const outcome = await runRipgrep({
    cwd: root,
    args,
    signal: q.signal,
    timeoutMs: q.timeoutMs,
    visible: q.visible,
    onRecord: (r) => {
      if (peekType(r) !== 'match') return;
      const msg = parseRecord(r) as RgLineMessage | null;
      if (!msg) return;
      const path = cleanPath(rgText(msg.data.path));
      if (q.visible && !q.visible(path)) return;
      total++;
      if (raws.length >= RANK_CAP) return;
      const text = displayLines(msg.data.lines)[0] ?? '';
      const spans = msg.data.submatches.map((s): [number, number] => [s.start, s.end]);
      raws.push({ path, line: msg.data.line_number ?? 0, text, spans: charSpans(text, spans) });
      perFile.set(path, (perFile.get(path) ?? 0) + 1);
    },
  });

  const input = (m: Raw) => ({ path: m.path, text: m.text, spans: m.spans, fileMatches: perFile.get(m.path) ?? 1 });
  const scored = raws.map((m) => ({ m, score: relevance(input(m), false).score }));
  scored.sort((a, b) => b.score - a.score || byPath(a.m.path, b.m.path) || a.m.line - b.m.line);
  const matches = scored.slice(0, limit).map(({ m }): CodeMatch => {
    const s = relevance(input(m));
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
