// A normalised view of a text with a way back: each offset in the view maps to an offset in
// the original, so a match found in the view becomes a splice of the original bytes.
import { lastAtMost } from './lines';
import { shared, type EditInput } from './types';

export class View {
  private readonly normAt: number[] = [];
  private readonly origAt: number[] = [];
  private parts: string[] = [];
  private length = 0;
  private built: string | null = null;

  /** Appends `chunk`, whose first character sits at `orig` in the original text. */
  push(chunk: string, orig: number): void {
    if (!chunk) return;
    const last = this.normAt.length - 1;
    // Skip a segment boundary when the mapping simply continues.
    if (last < 0 || this.origAt[last] + (this.length - this.normAt[last]) !== orig) {
      this.normAt.push(this.length);
      this.origAt.push(orig);
    }
    this.parts.push(chunk);
    this.length += chunk.length;
  }

  get text(): string {
    if (this.built === null) {
      this.built = this.parts.join('');
      this.parts = [this.built];
    }
    return this.built;
  }

  /** Original offset of view offset `pos` (pos may equal the view length). */
  toOrig(pos: number, origLength: number): number {
    if (pos >= this.length) return origLength;
    const i = lastAtMost(this.normAt, pos);
    return this.origAt[i] + (pos - this.normAt[i]);
  }

  /**
   * The original span of a non-empty match at [start, start + length) of the view. Its end is
   * found from the match's last character: whatever the view dropped after the match (the next
   * line's indentation, trailing blanks) belongs to text the match did not cover.
   */
  spanOf(start: number, length: number, origLength: number): { start: number; end: number } {
    return { start: this.toOrig(start, origLength), end: this.toOrig(start + length - 1, origLength) + 1 };
  }
}

const isBlank = (c: string | undefined) => c === ' ' || c === '\t';

/** Length of `line` without its trailing spaces and tabs. */
export function contentEnd(line: string): number {
  let e = line.length;
  while (e > 0 && isBlank(line[e - 1])) e--;
  return e;
}

/** Length of the leading spaces and tabs of `line`. */
export function indentEnd(line: string): number {
  let s = 0;
  while (s < line.length && isBlank(line[s])) s++;
  return s;
}

/** Builds a view line by line: `keep` says which [from, to) slice of each line stays. */
export function lineView(text: string, keep: (line: string) => [number, number]): View {
  const view = new View();
  let lineStart = 0;
  for (;;) {
    const nl = text.indexOf('\n', lineStart);
    const end = nl === -1 ? text.length : nl;
    const line = text.slice(lineStart, end);
    const [from, to] = keep(line);
    view.push(line.slice(from, to), lineStart + from);
    if (nl === -1) break;
    view.push('\n', nl);
    lineStart = nl + 1;
  }
  return view;
}

/** The file without each line's indentation, and without each line's trailing blanks. */
export const indentless = (input: EditInput): View => shared(input, 'indentless', () => lineView(input.text, (l) => [indentEnd(l), l.length]));
export const trailless = (input: EditInput): View => shared(input, 'trailless', () => lineView(input.text, (l) => [0, contentEnd(l)]));

/**
 * How many of old_str's inner lines (not its first, which may start inside a line, nor its
 * last, which may stop inside one) are not lines of the file as one view has them (as they
 * are, without indentation, without trailing blanks): a cheap first test before building the
 * view. A few lines are looked for in the text; many against a set of the file's lines, so a
 * long old_str costs one pass over the file, not one per line.
 */
export function missingInner(input: EditInput, lines: string[], form: 'raw' | 'indentless' | 'trailless'): number {
  const inner = lines.slice(1, -1);
  if (inner.length <= 16) return inner.filter((l) => !input.text.includes(l)).length;
  const cut = form === 'raw' ? (l: string) => l : form === 'indentless' ? (l: string) => l.slice(indentEnd(l)) : (l: string) => l.slice(0, contentEnd(l));
  const set = shared(input, `lines-${form}`, () => new Set(input.text.split('\n').map(cut)));
  return inner.filter((l) => !set.has(l)).length;
}

export const rstripLines = (s: string): string => s.split('\n').map((l) => l.slice(0, contentEnd(l))).join('\n');
export const lstripLines = (s: string): string => s.split('\n').map((l) => l.slice(indentEnd(l))).join('\n');

const BLANK_TAIL = /\n[ \t]+$/;

/**
 * old_str whose last line holds only blanks (the next line's indentation, selected along with
 * the lines above it): the views match it as a line break, so the same blanks at the end of
 * new_str must go too, or they would land in front of the next line. Null when new_str does
 * not end that way: then nobody knows what the next line should become.
 */
export function dropBlankTail(oldStr: string, newStr: string): { oldStr: string; newStr: string } | null {
  if (!BLANK_TAIL.test(oldStr)) return { oldStr, newStr };
  if (!BLANK_TAIL.test(newStr)) return null;
  return { oldStr: oldStr.replace(/[ \t]+$/, ''), newStr: newStr.replace(/[ \t]+$/, '') };
}
