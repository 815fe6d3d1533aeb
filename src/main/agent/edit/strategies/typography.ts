// Step 6c: typographic quotes, dashes and non-breaking spaces that a model typed plainly (or
// the other way round). Each maps to one plain character, so offsets line up one to one; in
// new_str, every character that corresponds to old_str gets the file's own character back.
import { keptOffsets } from '../charDiff';
import { keepUnchangedLines } from '../keepLines';
import { findAll } from '../lines';
import { NONE, judge, rangesAt, shared, type Strategy } from '../types';

const PLAIN: Record<string, string> = {
  '\u2018': "'", '\u2019': "'", '\u201A': "'", '\u201B': "'", '\u2032': "'",
  '\u201C': '"', '\u201D': '"', '\u201E': '"', '\u201F': '"', '\u2033': '"',
  '\u2010': '-', '\u2011': '-', '\u2012': '-', '\u2013': '-', '\u2014': '-', '\u2015': '-', '\u2212': '-',
  '\u00A0': ' ', '\u2007': ' ', '\u202F': ' ', '\u2009': ' ', '\u200A': ' ', '\u2002': ' ', '\u2003': ' ',
};
const CLASS = `[${Object.keys(PLAIN).join('')}]`;
const ANY_FANCY = new RegExp(CLASS);
const EVERY_FANCY = new RegExp(CLASS, 'g');

export const plainTypography = (s: string): string => (ANY_FANCY.test(s) ? s.replace(EVERY_FANCY, (c) => PLAIN[c]) : s);

/**
 * new_str with the file's characters wherever it keeps old_str's text. A character whose
 * counterpart is not certain (the alignments from either end pair it with two of the file's
 * characters that differ, a plain space and a non-breaking one) stays the model's own.
 */
export function borrowFileChars(region: string, plainOld: string, newStr: string): string {
  const kept = keptOffsets(plainOld, plainTypography(newStr));
  if (!kept) return newStr;
  let out = '';
  for (let n = 0; n < newStr.length; n++) out += kept[n] >= 0 ? region[kept[n]] : newStr[n];
  return out;
}

export const typography: Strategy = {
  name: 'typography',
  locate(input) {
    const text = shared(input, 'plain-typography', () => plainTypography(input.text));
    const old = plainTypography(input.oldStr);
    if (text === input.text && old === input.oldStr) return NONE;
    const ranges = rangesAt(findAll(text, old), old.length);
    return judge(input, {
      strategy: 'typography',
      ranges,
      newStr: input.newStr,
      correctedOld: ranges.length ? input.text.slice(ranges[0].start, ranges[0].end) : undefined,
      needle: old,
      render: (n) =>
        ranges.map((r) => {
          const region = input.text.slice(r.start, r.end);
          const rendered = borrowFileChars(region, old, n).split('\n');
          return keepUnchangedLines(region.split('\n'), old.split('\n'), n.split('\n'), (a, b) => plainTypography(a) === b, rendered);
        }),
    });
  },
};
