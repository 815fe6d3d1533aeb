// Which line of an edited span came from which line of the original span. Lines the edit did
// not change must keep their bytes, a changed line takes the line ending of the line it
// replaces, and an inserted line the ending of its neighbour; all three questions need the
// same answer to "where did this line come from", so they share this one alignment.
import { diffArrays } from 'diff';

/** Where line j of the new span came from. */
export type Origin =
  /** Line `from` of the old span, text unchanged. */
  | { kind: 'equal'; from: number }
  /** Stands in place of line `from` of the old span (same position in a changed hunk). */
  | { kind: 'changed'; from: number }
  /** A line added beyond what the hunk removed. */
  | { kind: 'inserted' };

/** Beyond this many differing lines, the middle of a span is one changed hunk (no Myers run). */
const MAX_EDIT_LENGTH = 2000;

/**
 * Aligns `b` against `a` (a longest common subsequence of equal lines, as `diff` computes it);
 * inside each changed hunk the k-th new line replaces the k-th old one.
 */
export function alignLines(a: string[], b: string[], same: (x: string, y: string) => boolean = (x, y) => x === y): Origin[] {
  const out: Origin[] = [];
  let head = 0;
  while (head < a.length && head < b.length && same(a[head], b[head])) out.push({ kind: 'equal', from: head++ });
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && same(a[a.length - 1 - tail], b[b.length - 1 - tail])) tail++;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  const changes = midA.length && midB.length ? diffArrays(midA, midB, { comparator: same, maxEditLength: MAX_EDIT_LENGTH }) : undefined;
  // Equal counts and no fewer unchanged lines in place: a line-for-line rewrite. Of two equally
  // long readings this is the natural one (which of two blank lines went is not in the strings).
  if (midA.length === midB.length && midA.length > 0) {
    const inPlace = midA.filter((x, k) => same(x, midB[k])).length;
    const common = (changes ?? []).reduce((n, c) => n + (c.added || c.removed ? 0 : (c.count ?? 0)), 0);
    if (inPlace >= common) {
      midB.forEach((y, k) => out.push({ kind: same(midA[k], y) ? 'equal' : 'changed', from: head + k }));
      for (let k = 0; k < tail; k++) out.push({ kind: 'equal', from: a.length - tail + k });
      return out;
    }
  }
  let i = head;
  let removedRun: number[] = [];
  let addedInRun = 0;
  const parts = changes ?? [
    { removed: true, added: false, count: midA.length },
    { removed: false, added: true, count: midB.length },
  ];
  for (const c of parts) {
    const count = c.count ?? 0;
    if (c.removed) {
      if (addedInRun) [removedRun, addedInRun] = [[], 0];
      for (let k = 0; k < count; k++) removedRun.push(i++);
    } else if (c.added) {
      for (let k = 0; k < count; k++, addedInRun++) {
        const from = removedRun[addedInRun];
        out.push(from === undefined ? { kind: 'inserted' } : { kind: 'changed', from });
      }
    } else {
      [removedRun, addedInRun] = [[], 0];
      for (let k = 0; k < count; k++) out.push({ kind: 'equal', from: i++ });
    }
  }
  for (let k = 0; k < tail; k++) out.push({ kind: 'equal', from: a.length - tail + k });
  return out;
}

/**
 * Line endings for the new lines of a span: an unchanged or changed line keeps the ending of
 * the old line it comes from; an inserted one (or one whose old line had none, the last line
 * of a file without a final newline) takes the ending of the line before it in the span, else
 * of the line after it, else `fallback`.
 */
export function endingsFor(origins: Origin[], oldEols: string[], fallback: string): string[] {
  const own = origins.map((o) => (o.kind === 'inserted' ? '' : oldEols[o.from]));
  const out: string[] = [];
  let prev = '';
  for (const e of own) out.push((prev = e || prev));
  let next = fallback;
  for (let j = out.length - 1; j >= 0; j--) {
    if (own[j]) next = own[j];
    else if (!out[j]) out[j] = next;
  }
  return out;
}
