// Offsets ↔ 1-based line numbers, and plain substring search.

export class LineIndex {
  private readonly starts: number[] = [0];

  constructor(readonly text: string) {
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) this.starts.push(i + 1);
  }

  /** 1-based line of the character at `offset`. */
  lineAt(offset: number): number {
    return lastAtMost(this.starts, offset) + 1;
  }

  lineStart(line: number): number {
    return this.starts[line - 1];
  }

  /** Lines as an editor counts them: a final newline does not start another line. */
  get lineCount(): number {
    const n = this.starts.length;
    return n > 1 && this.starts[n - 1] === this.text.length ? n - 1 : n;
  }
}

/** Index of the last element of ascending `xs` that is ≤ `v` (0 when none is). */
export function lastAtMost(xs: number[], v: number): number {
  let lo = 0;
  let hi = xs.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (xs[mid] <= v) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Start offsets of the non-overlapping occurrences of `needle`, left to right. */
export function findAll(haystack: string, needle: string, limit = Infinity): number[] {
  const hits: number[] = [];
  if (!needle) return hits;
  for (let i = haystack.indexOf(needle); i !== -1 && hits.length < limit; i = haystack.indexOf(needle, i + needle.length)) hits.push(i);
  return hits;
}

export const isLineStart = (text: string, offset: number): boolean => offset === 0 || text[offset - 1] === '\n';
export const isLineEnd = (text: string, offset: number): boolean => offset === text.length || text[offset] === '\n';
