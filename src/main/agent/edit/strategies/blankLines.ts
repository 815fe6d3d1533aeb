// Step 6f: blank lines old_str carries at its start or end that the file does not have
// there. Stripped from old_str (which must then start/end a line), and the same number of
// blank lines stripped from new_str where it has them.
import { findAll, isLineEnd, isLineStart } from '../lines';
import { NONE, judge, rangesAt, type Strategy } from '../types';

interface Trimmed {
  text: string;
  lead: number;
  trail: number;
}

export function trimBlankLines(s: string, maxLead = Infinity, maxTrail = Infinity): Trimmed {
  const lines = s.split('\n');
  let lead = 0;
  while (lead < maxLead && lines.length > 1 && !lines[0].trim()) {
    lines.shift();
    lead++;
  }
  let trail = 0;
  while (trail < maxTrail && lines.length > 1 && !lines[lines.length - 1].trim()) {
    lines.pop();
    trail++;
  }
  return { text: lines.join('\n'), lead, trail };
}

const lineEndOf = (text: string, from: number) => {
  const nl = text.indexOf('\n', from);
  return nl === -1 ? text.length : nl;
};

export const blankLines: Strategy = {
  name: 'blank-lines',
  locate(input) {
    // Under line numbers, old_str's blank lines were numbered as the file's own: none is stray.
    if (input.anchor !== undefined) return NONE;
    const old = trimBlankLines(input.oldStr);
    if ((!old.lead && !old.trail) || !old.text.trim()) return NONE;
    // Blank lines the file has right there may be the ones old_str carries: then none is stray.
    const blankBefore = (s: number) => s > 0 && !input.text.slice(input.text.lastIndexOf('\n', s - 2) + 1, s - 1).trim();
    const blankAfter = (e: number) => e + 1 < input.text.length && !input.text.slice(e + 1, lineEndOf(input.text, e + 1)).trim();
    const starts = findAll(input.text, old.text).filter(
      (s) =>
        (!old.lead || (isLineStart(input.text, s) && !blankBefore(s))) &&
        (!old.trail || (isLineEnd(input.text, s + old.text.length) && !blankAfter(s + old.text.length))),
    );
    return judge(input, {
      strategy: 'blank-lines',
      ranges: rangesAt(starts, old.text.length),
      newStr: trimBlankLines(input.newStr, old.lead, old.trail).text,
      correctedOld: old.text,
      needle: old.text,
    });
  },
};
