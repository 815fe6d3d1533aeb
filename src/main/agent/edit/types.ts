// The vocabulary of the edit pipeline (docs/architecture.md, the edit pipeline).
import type { LineIndex } from './lines';

export interface EditInput {
  /** Canonical file text: LF line breaks, no BOM. */
  text: string;
  /** old_str and new_str with CRLF turned into LF. */
  oldStr: string;
  newStr: string;
  /** expected_replacements, when given. */
  expected?: number;
  replaceAll: boolean;
  /** Line numbers of `text`. */
  lines: LineIndex;
}

export interface Range {
  start: number;
  end: number;
}

/** Where a strategy located old_str, and how it turns new_str into each range's replacement. */
export interface Located {
  strategy: string;
  ranges: Range[];
  /** new_str as this strategy reads it (R1 unescapes it, R3 rewrites it). */
  newStr: string;
  /** old_str as it was actually found, when that differs from the request. */
  correctedOld?: string;
  /**
   * The text this strategy found, in its own reading (its view of the file): every range covers
   * exactly the lines it does, which the write checks before anything reaches the disk.
   */
  needle: string;
  /** Applies to `newStr` the transformation that made old_str match, once per range. */
  render(newStr: string): string[];
}

export type Outcome =
  | { kind: 'none' }
  /** Found, but not the expected number of times: the hit lines, for the error message. */
  | { kind: 'ambiguous'; strategy: string; lines: number[] }
  | { kind: 'found'; located: Located };

export interface Strategy {
  name: string;
  locate(input: EditInput): Outcome;
}

/** Whether `count` hits satisfy expected_replacements / replace_all. */
export function countAccepted(count: number, input: Pick<EditInput, 'expected' | 'replaceAll'>): boolean {
  if (count === 0) return false;
  if (input.expected !== undefined) return count === input.expected;
  return input.replaceAll || count === 1;
}

export const NONE: Outcome = { kind: 'none' };

/** Turns a strategy's hits into an outcome: exactly as many as expected, too many/few, or none. */
export function judge(
  input: EditInput,
  located: Omit<Located, 'render'> & { render?: Located['render'] },
): Outcome {
  const { ranges } = located;
  if (countAccepted(ranges.length, input)) {
    const render = located.render ?? ((n: string) => ranges.map(() => n));
    return { kind: 'found', located: { ...located, render } };
  }
  if (ranges.length > 0) return { kind: 'ambiguous', strategy: located.strategy, lines: ranges.map((r) => input.lines.lineAt(r.start)) };
  return NONE;
}

export const rangesAt = (starts: number[], length: number): Range[] => starts.map((start) => ({ start, end: start + length }));
