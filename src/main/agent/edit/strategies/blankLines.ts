// Step 6e: blank lines old_str carries at its start or end that the file does not have
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

export const blankLines: Strategy = {
  name: 'blank-lines',
  locate(input) {
    const old = trimBlankLines(input.oldStr);
    if ((!old.lead && !old.trail) || !old.text.trim()) return NONE;
    const starts = findAll(input.text, old.text).filter(
      (s) => (!old.lead || isLineStart(input.text, s)) && (!old.trail || isLineEnd(input.text, s + old.text.length)),
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
