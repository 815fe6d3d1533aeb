// Step 6c: typographic quotes, dashes and non-breaking spaces that a model typed plainly (or
// the other way round). Each maps to one plain character, so offsets line up one to one; in
// new_str, every character that corresponds to old_str gets the file's own character back.
import { diffChars } from 'diff';
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

/** new_str with the file's characters wherever it keeps old_str's text. */
export function borrowFileChars(region: string, plainOld: string, newStr: string): string {
  const parts = diffChars(plainOld, plainTypography(newStr), { maxEditLength: 4000 });
  if (!parts) return newStr;
  let out = '';
  let o = 0;
  let n = 0;
  for (const p of parts) {
    const len = p.value.length;
    if (p.added) {
      out += newStr.slice(n, n + len);
      n += len;
    } else if (p.removed) {
      o += len;
    } else {
      out += region.slice(o, o + len);
      o += len;
      n += len;
    }
  }
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
