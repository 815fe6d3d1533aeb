// Step 6a: old_str pasted from read_file output with its `     N→` prefixes. Accepted only
// when every line carries one, the numbers run consecutively, and they are the real line
// numbers of the match; the same prefixes are then stripped from new_str.
import { findAll } from '../lines';
import { NONE, judge, rangesAt, type Strategy } from '../types';

const PREFIX = /^ *(\d+)(→|\t)/;

interface Stripped {
  text: string;
  first: number;
  sep: string;
}

function stripAll(s: string): Stripped | null {
  const lines = s.split('\n');
  let first = -1;
  let sep = '';
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = PREFIX.exec(lines[i]);
    if (!m) return null;
    const n = Number(m[1]);
    if (i === 0) {
      first = n;
      sep = m[2];
    } else if (n !== first + i || m[2] !== sep) {
      return null;
    }
    out.push(lines[i].slice(m[0].length));
  }
  return { text: out.join('\n'), first, sep };
}

/** Strips the prefix wherever new_str has one; lines the model added without one stay as they are. */
function stripSome(s: string, sep: string): string {
  return s
    .split('\n')
    .map((line) => {
      const m = PREFIX.exec(line);
      return m && m[2] === sep ? line.slice(m[0].length) : line;
    })
    .join('\n');
}

export const lineNumberPrefix: Strategy = {
  name: 'line-number-prefix',
  locate(input) {
    const old = stripAll(input.oldStr);
    if (!old || old.text.trim() === '') return NONE;
    const starts = findAll(input.text, old.text).filter((s) => input.lines.lineAt(s) === old.first);
    return judge(input, {
      strategy: 'line-number-prefix',
      ranges: rangesAt(starts, old.text.length),
      newStr: stripSome(input.newStr, old.sep),
      correctedOld: old.text,
      needle: old.text,
    });
  },
};
