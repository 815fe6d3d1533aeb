// Step 6b: spaces or tabs at line ends that old_str and the file disagree on. Lines the edit
// leaves alone keep the file's own trailing whitespace; changed lines are written as given.
import { keepUnchangedLines } from '../keepLines';
import { findAll, isLineEnd } from '../lines';
import { NONE, judge, type Strategy } from '../types';
import { contentEnd, dropBlankTail, missingInner, rstripLines, trailless } from '../view';

const TRAILING = /[ \t]$/m;

export const trailingWhitespace: Strategy = {
  name: 'trailing-whitespace',
  locate(input) {
    const cut = dropBlankTail(input.oldStr, input.newStr);
    if (!cut) return NONE;
    const old = rstripLines(cut.oldStr);
    if (!old.trim()) return NONE;
    // Nothing to normalise on either side: skip building the view of a large file.
    if (old === input.oldStr && !TRAILING.test(input.text)) return NONE;
    // Cheap first: every inner line must be a line of the file once trailing blanks are set aside.
    if (missingInner(input, old.split('\n'), 'trailless')) return NONE;
    const view = trailless(input);
    const vt = view.text;
    if (vt === input.text && old === input.oldStr) return NONE;
    let starts = findAll(vt, old);
    // When old_str's last line lost trailing blanks, "foo  " must not match inside "foobar".
    const lastLine = cut.oldStr.slice(cut.oldStr.lastIndexOf('\n') + 1);
    const toLineEnd = contentEnd(lastLine) < lastLine.length;
    if (toLineEnd) starts = starts.filter((s) => isLineEnd(vt, s + old.length));
    const len = input.text.length;
    // The match ends with its last character; the file's blanks after it belong to it only when
    // old_str had blanks there too.
    // Likewise at the start: a first line of nothing but blanks is the file line's blanks.
    const fromBlanks = old.startsWith('\n') && !cut.oldStr.startsWith('\n');
    const startOf = (s: number) => {
      const at = view.toOrig(s, len);
      if (!fromBlanks) return at;
      const lineStart = input.lines.lineStart(input.lines.lineAt(at));
      return lineStart + contentEnd(input.text.slice(lineStart, at));
    };
    const ranges = starts.map((s) => ({ start: startOf(s), end: toLineEnd ? view.toOrig(s + old.length, len) : view.spanOf(s, old.length, len).end }));
    // old_str as the model typed it (not stripped): among lines that differ only in trailing
    // blanks, its own text is what tells which one a deletion meant.
    const oldLines = cut.oldStr.split('\n');
    const same = (a: string, b: string) => a.slice(0, contentEnd(a)) === b.slice(0, contentEnd(b));
    return judge(input, {
      strategy: 'trailing-whitespace',
      ranges,
      newStr: cut.newStr,
      correctedOld: ranges.length ? input.text.slice(ranges[0].start, ranges[0].end) : undefined,
      needle: old,
      render: (n) => ranges.map((r) => keepUnchangedLines(input.text.slice(r.start, r.end).split('\n'), oldLines, n.split('\n'), same)),
    });
  },
};
