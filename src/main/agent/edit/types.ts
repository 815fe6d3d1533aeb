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
  /**
   * Where the match must start, when old_str itself says so (its `cat -n` line numbers): on
   * this 1-based line, at its first character. Every strategy's hits are held to it.
   */
  anchor?: number;
  /** Views of `text` built once per edit and shared by every reading (see `shared`). */
  memo?: Map<string, unknown>;
}

/** `build()`, or what it built earlier for the same file text in this edit. */
export function shared<T>(input: EditInput, key: string, build: () => T): T {
  if (!input.memo) return build();
  if (!input.memo.has(key)) input.memo.set(key, build());
  return input.memo.get(key) as T;
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
  /**
   * Applies to `newStr` the transformation that made old_str match, once per range, line by
   * line; Unmapped when a line of `newStr` has no clear image under it.
   */
  render(newStr: string): string[] | Unmapped;
}

/**
 * A line of new_str that a reading cannot carry into the file's text: the mapping that made
 * old_str match says nothing certain about it (a rewrite with more statements than the line it
 * replaces, a line with no counterpart in the misaligned indentation). Never written half
 * mapped: the edit is refused instead (docs/architecture.md, the edit pipeline).
 */
export class Unmapped {
  constructor(
    /** The line of new_str (0-based) and its text. */
    readonly at: number,
    readonly line: string,
    /** Why, in words for the refusal: "it holds more statements than …". */
    readonly why: string,
  ) {}
}

export type Outcome =
  | { kind: 'none' }
  /** Found, but not the expected number of times: every hit, for the error message. */
  | { kind: 'ambiguous'; strategy: string; ranges: Range[] }
  | { kind: 'found'; located: Located };

/** The request as one correction reads it (old_str unescaped, or stripped of line numbers). */
export interface Reading {
  /** The correction that turned the request into this reading. */
  name: string;
  input: EditInput;
}

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

/**
 * Turns a strategy's hits into an outcome: exactly as many as expected, too many/few, or none.
 * Hits away from the input's anchor are no hits; `render` still answers for all of them.
 */
export function judge(
  input: EditInput,
  located: Omit<Located, 'render'> & { render?: Located['render'] },
): Outcome {
  const all = located.ranges;
  const kept = all.flatMap((r, i) => (anchored(input, r.start) ? [i] : []));
  const ranges = kept.map((i) => all[i]);
  if (countAccepted(ranges.length, input)) {
    const own = located.render;
    const render = own
      ? (n: string) => {
          const out = own(n);
          return out instanceof Unmapped || kept.length === all.length ? out : pick(out, kept);
        }
      : (n: string) => ranges.map(() => n);
    return { kind: 'found', located: { ...located, ranges, render } };
  }
  if (ranges.length > 0) return { kind: 'ambiguous', strategy: located.strategy, ranges };
  return NONE;
}

const pick = <T>(xs: T[], at: number[]): T[] => at.map((i) => xs[i]);

/** Whether a match may start at `offset`: anywhere without an anchor, else at its line's first character. */
export const anchored = (input: EditInput, offset: number): boolean =>
  input.anchor === undefined || (input.anchor <= input.lines.lineCount && input.lines.lineStart(input.anchor) === offset);

export const rangesAt = (starts: number[], length: number): Range[] => starts.map((start) => ({ start, end: start + length }));
