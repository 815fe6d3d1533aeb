// The `cat -n` style numbering of read_file: the number right-aligned to six
// columns, then an arrow. Edit previews use it too, so a model can paste either back.

export const numberLine = (n: number, line: string): string => `${String(n).padStart(6)}→${line}`;

export function numberLines(lines: string[], first: number): string {
  return lines.map((l, i) => numberLine(first + i, l)).join('\n');
}
