// Step 6b: spaces or tabs at line ends that old_str and the file disagree on. Lines the edit
// leaves alone keep the file's own trailing whitespace; changed lines are written as given.
import { findAll, isLineEnd } from '../lines';
import { NONE, judge, type Strategy } from '../types';
import { contentEnd, lineView, rstripLines } from '../view';

/** Lines unchanged at the start and end of the edit take the file's text; the middle is new_str's. */
export function keepUnchangedLines(fileLines: string[], oldLines: string[], newLines: string[], same: (a: string, b: string) => boolean): string {
  let head = 0;
  while (head < oldLines.length && head < newLines.length && same(newLines[head], oldLines[head])) head++;
  let tail = 0;
  while (
    tail < oldLines.length - head &&
    tail < newLines.length - head &&
    same(newLines[newLines.length - 1 - tail], oldLines[oldLines.length - 1 - tail])
  )
    tail++;
  return [...fileLines.slice(0, head), ...newLines.slice(head, newLines.length - tail), ...fileLines.slice(fileLines.length - tail)].join('\n');
}

const TRAILING = /[ \t]$/m;

export const trailingWhitespace: Strategy = {
  name: 'trailing-whitespace',
  locate(input) {
    const old = rstripLines(input.oldStr);
    if (!old.trim()) return NONE;
    // Nothing to normalise on either side: skip building the view of a large file.
    if (old === input.oldStr && !TRAILING.test(input.text)) return NONE;
    const view = lineView(input.text, (l) => [0, contentEnd(l)]);
    const vt = view.text;
    if (vt === input.text && old === input.oldStr) return NONE;
    let starts = findAll(vt, old);
    // When old_str's last line lost trailing blanks, "foo  " must not match inside "foobar".
    const lastLine = input.oldStr.slice(input.oldStr.lastIndexOf('\n') + 1);
    if (contentEnd(lastLine) < lastLine.length) starts = starts.filter((s) => isLineEnd(vt, s + old.length));
    const len = input.text.length;
    const ranges = starts.map((s) => ({ start: view.toOrig(s, len), end: view.toOrig(s + old.length, len) }));
    const oldLines = old.split('\n');
    const same = (a: string, b: string) => a.slice(0, contentEnd(a)) === b;
    return judge(input, {
      strategy: 'trailing-whitespace',
      ranges,
      newStr: input.newStr,
      correctedOld: ranges.length ? input.text.slice(ranges[0].start, ranges[0].end) : undefined,
      render: (n) => ranges.map((r) => keepUnchangedLines(input.text.slice(r.start, r.end).split('\n'), oldLines, n.split('\n'), same)),
    });
  },
};
