// A normalised view of a text with a way back: each offset in the view maps to an offset in
// the original, so a match found in the view becomes a splice of the original bytes.
import { lastAtMost } from './lines';

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

export const rstripLines = (s: string): string => s.split('\n').map((l) => l.slice(0, contentEnd(l))).join('\n');
export const lstripLines = (s: string): string => s.split('\n').map((l) => l.slice(indentEnd(l))).join('\n');
