// The few lines an edit changed, for its chat card: what went (−) and what came (+), from the
// call's own arguments and result, so a reopened conversation shows them without asking the host.

export interface DiffLine {
  sign: '+' | '-' | ' ';
  text: string;
}

export interface CompactDiff {
  lines: DiffLine[];
  added: number;
  removed: number;
}

/** Beyond this many lines a side the card says how much changed instead of computing it. */
const MAX_SIDE = 400;

const splitLines = (s: string) => (s.endsWith('\n') ? s.slice(0, -1) : s).split('\n');

/** A line diff by longest common subsequence (small inputs only), keeping one line of context around changes. */
export function lineDiff(before: string[], after: string[]): DiffLine[] {
  const n = before.length;
  const m = after.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) lcs[i][j] = before[i] === after[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const all: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && before[i] === after[j]) {
      all.push({ sign: ' ', text: before[i++] });
      j++;
    } else if (i < n && (j >= m || lcs[i + 1][j] >= lcs[i][j + 1])) all.push({ sign: '-', text: before[i++] });
    else all.push({ sign: '+', text: after[j++] });
  }
  return all.filter((l, k) => l.sign !== ' ' || all[k - 1]?.sign === '-' || all[k - 1]?.sign === '+' || all[k + 1]?.sign === '-' || all[k + 1]?.sign === '+');
}

/** The +/− lines of a unified diff (hunk headers and file names left out). */
export function fromUnified(diff: string): DiffLine[] {
  return splitLines(diff)
    .filter((l) => /^[-+ ]/.test(l) && !l.startsWith('---') && !l.startsWith('+++'))
    .map((l) => ({ sign: l[0] as DiffLine['sign'], text: l.slice(1) }));
}

const summed = (lines: DiffLine[]): CompactDiff => ({ lines, added: lines.filter((l) => l.sign === '+').length, removed: lines.filter((l) => l.sign === '-').length });

/**
 * What a writing call changed, read from the shape of its arguments and result: a replacement
 * (old_str → new_str), a unified diff in its result (git_diff), or a new file's content.
 * Null when the call does not say (a whole-file rewrite): its card links to the full diff.
 */
export function compactDiffOf(args: unknown, data: Record<string, unknown> | undefined): CompactDiff | null {
  const a = (args ?? {}) as Record<string, unknown>;
  if (typeof a.old_str === 'string' && typeof a.new_str === 'string') {
    const before = a.old_str ? splitLines(a.old_str) : [];
    const after = a.new_str ? splitLines(a.new_str) : [];
    if (before.length > MAX_SIDE || after.length > MAX_SIDE) return { lines: [], added: after.length, removed: before.length };
    return summed(lineDiff(before, after));
  }
  if (typeof data?.git_diff === 'string' && data.git_diff) return summed(fromUnified(data.git_diff));
  if (data?.operation === 'create' && typeof a.content === 'string') return summed(splitLines(a.content).map((text) => ({ sign: '+', text })));
  return null;
}
