// Quick open's ranking: the characters typed, in order, somewhere in the path (as VS Code and
// Zed match), best first: matches in the file name, at word starts and in runs rank higher.

/** A score for `path` against a lower-case `query`; null when its characters are not all there in order. */
export function fuzzyScore(path: string, query: string): number | null {
  if (!query) return 0;
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

/** The best `limit` paths for the query, best first. */
export function findFiles(paths: Iterable<string>, query: string, limit: number): string[] {
  const q = query.toLowerCase().replace(/\s+/g, '');
  const hits: { path: string; score: number }[] = [];
  for (const p of paths) {
    const score = fuzzyScore(p, q);
    if (score !== null) hits.push({ path: p, score });
  }
  hits.sort((a, b) => b.score - a.score || a.path.localeCompare(b.path));
  return hits.slice(0, limit).map((h) => h.path);
}
