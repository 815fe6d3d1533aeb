// Which characters of a rewritten line are the old line's, for the readings that carry new_str
// character by character (joined lines place the file's line breaks in kept text, typography
// gives kept characters the file's spelling). A diff is one alignment among several equally
// long ones; where the choice matters, only what every alignment agrees on may be relied on.
import { diffChars } from 'diff';

/** A run of text both lines share, or one change between such runs (removed and added text). */
export interface Op {
  kept: boolean;
  /** Where it starts in the old and in the new line, and its length in each. */
  o: number;
  n: number;
  oLen: number;
  nLen: number;
}

/** Past this many differing characters the diff gives up (the caller treats it as no alignment). */
const MAX_EDIT_LENGTH = 4000;

/**
 * `old` against `line`: kept runs and the changes between them. What the two share at their
 * start and end is kept as such before the middle is diffed, so one change is one change, not
 * a scatter of characters kept by chance. Null past MAX_EDIT_LENGTH.
 */
export function opsOf(old: string, line: string): Op[] | null {
  let head = 0;
  while (head < old.length && head < line.length && old[head] === line[head]) head++;
  let tail = 0;
  while (tail < old.length - head && tail < line.length - head && old[old.length - 1 - tail] === line[line.length - 1 - tail]) tail++;
  const middle = diffChars(old.slice(head, old.length - tail), line.slice(head, line.length - tail), { maxEditLength: MAX_EDIT_LENGTH });
  if (!middle) return null;
  const parts = [{ value: old.slice(0, head), added: false, removed: false }, ...middle, { value: old.slice(old.length - tail), added: false, removed: false }];
  const ops: Op[] = [];
  let o = 0;
  let n = 0;
  for (const p of parts) {
    if (!p.value) continue;
    const len = p.value.length;
    const kept = !p.added && !p.removed;
    const prev = ops[ops.length - 1];
    if (prev && prev.kept === kept) {
      if (!p.added) prev.oLen += len;
      if (!p.removed) prev.nLen += len;
    } else ops.push({ kept, o, n, oLen: p.added ? 0 : len, nLen: p.removed ? 0 : len });
    if (!p.added) o += len;
    if (!p.removed) n += len;
  }
  return ops;
}

/** `s` backwards, code unit by code unit (offsets map as length - offset). */
export const reversed = (s: string): string => s.split('').reverse().join('');

/**
 * For each character of `line`, the offset of the character of `old` it keeps, or -1 for one
 * it adds; -2 where the alignment from the start and the one from the end disagree (a
 * repeated character decided it). Null when no alignment was found.
 */
export function keptOffsets(old: string, line: string): number[] | null {
  const one = (a: string, b: string) => {
    const ops = opsOf(a, b);
    if (!ops) return null;
    const at = new Array<number>(b.length).fill(-1);
    for (const op of ops) if (op.kept) for (let k = 0; k < op.nLen; k++) at[op.n + k] = op.o + k;
    return at;
  };
  const ahead = one(old, line);
  const back = one(reversed(old), reversed(line));
  if (!ahead || !back) return null;
  return ahead.map((o, n) => {
    const b = back[line.length - 1 - n];
    const fromEnd = b === -1 ? -1 : old.length - 1 - b;
    return o === fromEnd ? o : -2;
  });
}
