// Step 8: apply by splicing at the found offsets (String.replace would expand `$&` and `$$`
// inside new_str), after refusing a result that doubles boundary punctuation.
import type { Splice } from './canonical';

export function applySplices(text: string, splices: Splice[]): string {
  const out: string[] = [];
  let from = 0;
  for (const s of splices) {
    out.push(text.slice(from, s.start), s.replacement);
    from = s.end;
  }
  out.push(text.slice(from));
  return out.join('');
}

const MARKS = new Set([';', ',']);

/**
 * The offset of a `;;` or `,,` the splice creates at one of its edges, when neither the file
 * had it there nor new_str asked for it; -1 when there is none.
 */
export function doubledMarkAt(text: string, s: Splice): number {
  const r = s.replacement;
  const before = text[s.start - 1];
  const after = text[s.end];
  const left = r.length ? r[0] : after;
  if (before !== undefined && MARKS.has(before) && left === before && text[s.start] !== before && !r.startsWith(before + before)) return s.start - 1;
  const right = r.length ? r[r.length - 1] : before;
  if (after !== undefined && MARKS.has(after) && right === after && text[s.end - 1] !== after && !r.endsWith(after + after)) return s.end;
  return -1;
}

/** Offsets of each splice's replacement in the resulting text. */
export function newStarts(splices: Splice[]): number[] {
  let delta = 0;
  return splices.map((s) => {
    const at = s.start + delta;
    delta += s.replacement.length - (s.end - s.start);
    return at;
  });
}
