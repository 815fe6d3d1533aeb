// Quick open's ranking: the characters typed, in order, somewhere in the path (as VS Code and
// Zed match), best first: matches in the file name, at word starts and in runs rank higher.
// The `@` picker of the chat ranks the same way (host/mentions.ts).
import { TopK } from '../search/topK';

/** A score for `path` against a lower-case `query`; null when its characters are not all there in order. */
export function fuzzyScore(path: string, query: string): number | null {
  // Nothing typed matches everything; shorter paths first, as among equals below.
  return query ? scoreLower(path.toLowerCase(), path.length, query) : -path.length;
}

/** fuzzyScore of a path already in lower case; `length`: the path's own. */
function scoreLower(lower: string, length: number, query: string): number | null {
  const nameStart = lower.lastIndexOf('/') + 1;
  // The name alone first: `agent` should find …/agent.ts by its name, not letters of its folders.
  const inName = walk(lower, query, nameStart, nameStart);
  const best = inName !== null ? inName + 10 : walk(lower, query, 0, nameStart);
  // Shorter paths first among equals: `a.ts` before `deep/nested/a.ts.snap`.
  return best === null ? null : best * 1000 - length;
}

/** `/`, `.`, `_` or `-`: the next character starts a word. */
const startsWord = (c: number): boolean => c === 47 || c === 46 || c === 95 || c === 45;

// Indexes and char codes rather than iterators and one-letter strings: the `@` picker scores
// every file of the index on each key (bench/mentions.bench.mjs).
function walk(lower: string, query: string, from: number, nameStart: number): number | null {
  let score = 0;
  let at = from;
  let prev = -2;
  for (let k = 0; k < query.length; k++) {
    const i = lower.indexOf(query[k], at);
    if (i < 0) return null;
    score += 1;
    if (i === prev + 1) score += 4;
    if (i === 0 || startsWord(lower.charCodeAt(i - 1))) score += 3;
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

/** Paths with their lower-case forms, made once and ranked on every key (FileIndex.searchable). */
export interface SearchablePaths {
  paths: readonly string[];
  lower: readonly string[];
}

export function searchablePaths(paths: Iterable<string>): SearchablePaths {
  const all = [...paths];
  return { paths: all, lower: all.map((p) => p.toLowerCase()) };
}

/**
 * The best `limit` paths for the query with their scores, best first, kept in a bounded heap
 * (an `@` with nothing after it matches every file of a 100,000-file tree). `keep` is asked
 * only of a path that would enter the best so far (a filter that costs more than scoring: read
 * rules), so the result is the best `limit` of the paths it keeps.
 */
export function rankPaths(paths: Iterable<string> | SearchablePaths, query: string, limit: number, keep?: (path: string) => boolean): RankedPath[] {
  const q = query.toLowerCase().replace(/\s+/g, '');
  const top = new TopK<RankedPath>(limit, byRank);
  const consider = (path: string, score: number | null) => {
    if (score === null) return;
    const hit = { path, score };
    if (top.admits(hit) && (!keep || keep(path))) top.add(hit);
  };
  if ('lower' in paths) {
    const { paths: all, lower } = paths;
    for (let i = 0; i < all.length; i++) consider(all[i], q ? scoreLower(lower[i], all[i].length, q) : -all[i].length);
  } else {
    for (const path of paths) consider(path, fuzzyScore(path, q));
  }
  return top.sorted();
}

/** The best `limit` paths for the query, best first. */
export function findFiles(paths: Iterable<string> | SearchablePaths, query: string, limit: number): string[] {
  return rankPaths(paths, query, limit).map((h) => h.path);
}
