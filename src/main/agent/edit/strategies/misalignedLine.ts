// Step 6e: a multi-line old_str whose lines all match the file but one, and that one only in
// its leading whitespace (a continuation line aligned a column short, a tab left in front).
// No uniform re-indentation explains it, so none is guessed: every other line must match
// exactly and the place must be the only one. The reading is then a map of indentations: the
// misaligned line's to the file's, every other line's to itself. new_str goes through it line
// by line: a line it repeats is the file's line; a rewrite known to stand for one line (its
// hunk replaces line for line) that keeps that line's indentation takes that line's in the
// file; any other line's indentation goes through the map, and one no line of old_str has
// stays as it is. Where the map sends an indentation two ways (an aligned line has the
// misaligned one too), a line there could belong with either: the edit is refused rather than
// written half corrected.
import { carryLines } from '../keepLines';
import { deriveReindent, reindent } from './indentation';
import { NONE, Unmapped, anchored, judge, type EditInput, type Range, type Strategy } from '../types';
import { dropBlankTail, indentEnd, indentless, lstripLines, missingInner } from '../view';

interface Fit {
  range: Range;
}

/** old_str against the file's lines from `first` on: exact everywhere but one line's indentation. */
function fitAt(input: EditInput, oldLines: string[], first: number): Fit | null {
  const { lines, text } = input;
  const k = oldLines.length;
  if (first + k - 1 > lines.lineCount + (text.endsWith('\n') ? 1 : 0)) return null;
  const fileLine = (i: number) => {
    const from = lines.lineStart(first + i);
    const nl = text.indexOf('\n', from);
    return text.slice(from, nl === -1 ? text.length : nl);
  };
  let odd = -1;
  for (let i = 0; i < k; i++) {
    const o = oldLines[i];
    const f = fileLine(i);
    // old_str's last line may stop inside its line, as an exact match may; its first line is
    // whole: a suffix would read a re-indented line as exact (the indentation view's case).
    if (i === k - 1 ? f.startsWith(o) : f === o) continue;
    const oc = o.slice(indentEnd(o));
    const fc = f.slice(indentEnd(f));
    if (odd !== -1 || !oc || !(i === k - 1 ? fc.startsWith(oc) : fc === oc)) return null;
    odd = i;
  }
  if (odd === -1) return null;
  const start = lines.lineStart(first);
  const last = oldLines[k - 1];
  const lastFile = fileLine(k - 1);
  const end = lines.lineStart(first + k - 1) + (odd === k - 1 ? indentEnd(lastFile) + last.length - indentEnd(last) : last.length);
  return { range: { start, end } };
}

export const misalignedLine: Strategy = {
  name: 'misaligned-line',
  locate(input) {
    const cut = dropBlankTail(input.oldStr, input.newStr);
    if (!cut) return NONE;
    const oldLines = cut.oldStr.split('\n');
    if (oldLines.filter((l) => l.trim()).length < 2) return NONE;
    // Cheap first: all inner lines but one must be lines of the file as they are.
    if (missingInner(input, oldLines, 'raw') > 1) return NONE;
    const old = lstripLines(cut.oldStr);
    const vt = indentless(input);
    const fits = new Map<number, Fit>();
    // Overlapping candidates too: two places that share lines are still two places.
    for (let s = vt.text.indexOf(old); s !== -1; s = vt.text.indexOf(old, s + 1)) {
      const fit = fitAt(input, oldLines, input.lines.lineAt(vt.toOrig(s, input.text.length)));
      if (!fit || !anchored(input, fit.range.start)) continue;
      // A consistent re-indentation of every line (the indentation view) is the better reading.
      const map = deriveReindent(oldLines, input.text.slice(fit.range.start, fit.range.end).split('\n'));
      if (!map || reindent(cut.newStr, map) === null) fits.set(fit.range.start, fit);
    }
    const found = [...fits.values()];
    return judge(input, {
      strategy: 'misaligned-line',
      ranges: found.map((f) => f.range),
      newStr: cut.newStr,
      correctedOld: found.length ? input.text.slice(found[0].range.start, found[0].range.end) : undefined,
      needle: old,
      render: (n) => {
        const out: string[] = [];
        for (const f of found) {
          const one = carryThrough(input.text.slice(f.range.start, f.range.end).split('\n'), oldLines, n.split('\n'));
          if (one instanceof Unmapped) return one;
          out.push(one);
        }
        return out;
      },
    });
  },
};

const indentOf = (line: string) => line.slice(0, indentEnd(line));

/** new_str through the map of indentations that old_str's lines and the file's lines define. */
function carryThrough(fileLines: string[], oldLines: string[], newLines: string[]) {
  const images = new Map<string, Set<string>>();
  oldLines.forEach((o, i) => {
    if (!o.trim()) return;
    const from = indentOf(o);
    images.set(from, (images.get(from) ?? new Set()).add(indentOf(fileLines[i])));
  });
  const place = (line: string, j: number): string | Unmapped => {
    if (!line.trim()) return line;
    const indent = indentOf(line);
    // An indentation no line of old_str has is not one the misalignment touched.
    const to = images.get(indent) ?? new Set([indent]);
    if (to.size > 1) return new Unmapped(j, line, `its indentation is the one old_str gives a misaligned line (${JSON.stringify(indent)}) and an aligned one, so where the file would put it is not clear`);
    return [...to][0] + line.slice(indent.length);
  };
  return carryLines(fileLines, oldLines, newLines, (a, b) => a === b, {
    // A certain rewrite that keeps its line's indentation stands where that line stands.
    changed: (line, from, j, paired) => (paired && line.trim() && oldLines[from].trim() && indentOf(line) === indentOf(oldLines[from]) ? indentOf(fileLines[from]) + line.slice(indentOf(line).length) : place(line, j)),
    inserted: place,
  });
}
