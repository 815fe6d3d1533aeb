// What every edit must leave alone. Outside the lines an edit covers, the file after it is the
// file before it, byte for byte (line endings, indentation, BOM included); inside, a line whose
// text the edit did not change keeps its bytes too. Cheap enough to run before every write,
// so a bug in matching or splicing becomes a refusal instead of a silently wrong file.
import { LoupeError } from '../../errors';
import { alignLines } from './lineAlign';
import { splitKeepingEols } from './unifiedDiff';

/**
 * Lines `first`..`last` (1-based, inclusive) of the file before the edit; `last` = `first` - 1
 * is an insertion before line `first`. `count` is how many lines of the file after stand in
 * their place; it may be left out for the last span (then: whatever the other lines leave).
 */
export interface LineSpan {
  first: number;
  last: number;
  count?: number;
}

const BOM = '\uFEFF';
const textOf = (line: string) => line.slice(0, line.length - (line.endsWith('\r\n') ? 2 : line.endsWith('\n') ? 1 : 0));
const show = (line: string | undefined) => (line === undefined ? 'nothing' : JSON.stringify(line.length > 60 ? `${line.slice(0, 57)}...` : line));

/** Plain sentences, one per breach (empty when the edit keeps the invariant). Spans sorted, disjoint. */
export function editInvariantViolations(before: string, after: string, spans: LineSpan[]): string[] {
  const problems: string[] = [];
  if (before.startsWith(BOM) !== after.startsWith(BOM)) problems.push(`the byte order mark would be ${before.startsWith(BOM) ? 'removed' : 'added'}`);
  const b = splitKeepingEols(before.startsWith(BOM) ? before.slice(1) : before);
  const a = splitKeepingEols(after.startsWith(BOM) ? after.slice(1) : after);
  const endedBare = b.length > 0 && textOf(b[b.length - 1]) === b[b.length - 1];
  let bi = 0;
  let ai = 0;
  const outside = (upTo: number): boolean => {
    for (; bi < upTo; bi++, ai++) {
      if (a[ai] !== b[bi]) {
        problems.push(`line ${bi + 1} is outside the edit but would change from ${show(b[bi])} to ${show(a[ai])}`);
        return false;
      }
    }
    return true;
  };
  for (let k = 0; k < spans.length; k++) {
    const { first, last } = spans[k];
    if (first < 1 || last < first - 1 || last > b.length || first - 1 < bi) return [...problems, `the edit's lines ${first}-${last} are not inside the file`];
    if (!outside(first - 1)) return problems;
    const size = last - first + 1;
    const count = spans[k].count ?? (k === spans.length - 1 ? a.length - ai - (b.length - last) : -1);
    if (count < 0 || ai + count > a.length) return [...problems, `the file after the edit is missing lines around line ${first}`];
    const oldSpan = b.slice(bi, bi + size);
    const newSpan = a.slice(ai, ai + count);
    // Which of two lines of equal text stayed is not always decidable (two blank lines, one
    // deleted), so a kept line may have the bytes of any line of the span with its text.
    const variants = new Map<string, Set<string>>();
    for (const l of oldSpan) variants.set(textOf(l), (variants.get(textOf(l)) ?? new Set()).add(l));
    alignLines(oldSpan.map(textOf), newSpan.map(textOf)).forEach((o, j) => {
      if (o.kind !== 'equal' || variants.get(textOf(newSpan[j]))?.has(newSpan[j])) return;
      // A last line without a line break gains one when lines are added after it, and the
      // line that becomes last loses it when the file had none: the final newline's own rule.
      const wasLast = bi + o.from === b.length - 1 && textOf(oldSpan[o.from]) === oldSpan[o.from];
      const isLast = endedBare && ai + j === a.length - 1 && textOf(newSpan[j]) === newSpan[j];
      if (!wasLast && !isLast) problems.push(`line ${bi + o.from + 1} keeps its text but its bytes would change from ${show(oldSpan[o.from])} to ${show(newSpan[j])}`);
    });
    bi += size;
    ai += count;
  }
  if (!outside(b.length)) return problems;
  if (ai !== a.length) problems.push(`the edit would add ${show(a[ai])} after the end of the file`);
  return problems;
}

/** A write refused because it would change what the edit was not asked to change. */
export class EditInvariantError extends LoupeError {
  constructor(
    rel: string,
    readonly problems: string[],
    retry: string,
  ) {
    const fact = `Nothing was written to ${rel}: the edit would change text it was not asked to change (${problems.slice(0, 3).join('; ')}).`;
    super('EDIT_INVARIANT_VIOLATED', `${fact} ${retry}`);
    this.forPerson = fact;
  }
}
