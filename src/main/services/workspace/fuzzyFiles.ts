// Quick open's ranking: the characters typed, in order, somewhere in the path (as VS Code and
// Zed match), best first: matches in the file name, at word starts and in runs rank higher.
// The `@` picker of the chat ranks the same way (host/mentions.ts).
import { TopK } from '../search/topK';

/** A score for `path` against a lower-case `query`; null when its characters are not all there in order. */
export function fuzzyScore(path: string, query: string): number | null {
  // Nothing typed matches everything; shorter paths first, as among equals below.
  if (!query) return -path.length;
  const lower = path.toLowerCase();
  const nameStart = lower.lastIndexOf('/') + 1;
  // The name alone first: `agent` should find …/agent.ts by its name, not letters of its folders.
  const inName = walk(lower, query, nameStart, nameStart);
  const anywhere = walk(lower, query, 0, nameStart);
  const best = inName === null ? anywhere : inName + 10;
  // Shorter paths first among equals: `a.ts` before `deep/nested/a.ts.snap`.
  return best === null ? null : best * 1000 - path.length;
}

function walk(lower: string, query: string, from: number, nameStart: number): number | null {
  let score = 0;
  let at = from;
  let prev = -2;
  for (const ch of query) {
    const i = lower.indexOf(ch, at);
    if (i < 0) return null;
    score += 1;
    if (i === prev + 1) score += 4;
    if (i === 0 || '/._-'.includes(lower[i - 1])) score += 3;
    if (i >= nameStart) score += 2;
    prev = i;
    at = i + 1;
  }
  return score;
}

export interface RankedPath {
  path: string;
  score: number;
}

/** Best first; equal scores (equal lengths) in code-point order, which is cheap: ties are many. */
const byRank = (a: RankedPath, b: RankedPath): number => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/**
 * The best `limit` paths for the query with their scores, best first, kept in a bounded heap
 * (an `@` with nothing after it matches every file of a 100,000-file tree). `keep` is asked
 * only of a path that would enter the best so far (a filter that costs more than scoring: read
 * rules), so the result is the best `limit` of the paths it keeps.
 */
export function rankPaths(paths: Iterable<string>, query: string, limit: number, keep?: (path: string) => boolean): RankedPath[] {
  const q = query.toLowerCase().replace(/\s+/g, '');
  const top = new TopK<RankedPath>(limit, byRank);
  for (const path of paths) {
    const score = fuzzyScore(path, q);
    if (score === null) continue;
    const hit = { path, score };
    if (top.admits(hit) && (!keep || keep(path))) top.add(hit);
  }
  return top.sorted();
}

/** The best `limit` paths for the query, best first. */
export function findFiles(paths: Iterable<string>, query: string, limit: number): string[] {
  return rankPaths(paths, query, limit).map((h) => h.path);
}
