// Step 5, a reading: old_str pasted from numbered output (read_file's `     N→`, `cat -n`'s `     N\t`),
// on every line or only on some: the first line is often copied from after its prefix, and
// sometimes with the prefix's tab still in front of it. A reading, not a view: it strips the
// prefixes and pins the match to the line they name (EditInput.anchor), then any view looks
// for the rest. The numbers must be the file's own: every prefixed line must sit exactly where
// its number says. new_str loses its prefixes by the same rule, and a tab left in front of
// old_str's first line goes from new_str's first line too.
import type { EditInput, Reading } from '../types';

const PREFIX = /^ *(\d+)(→|\t)/;

interface Numbered {
  /** old_str's lines without their prefixes. */
  lines: string[];
  /** The line old_str's first line must be. */
  first: number;
  sep: string;
}

/** old_str's prefixes, when every one of them names the line it would be at; null otherwise. */
function numbered(oldStr: string): Numbered | null {
  const lines = oldStr.split('\n');
  let first: number | null = null;
  let sep = '';
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = PREFIX.exec(lines[i]);
    if (!m) {
      out.push(lines[i]);
      continue;
    }
    if (first === null) [first, sep] = [Number(m[1]) - i, m[2]];
    else if (Number(m[1]) - i !== first || m[2] !== sep) return null;
    out.push(lines[i].slice(m[0].length));
  }
  return first === null || first < 1 ? null : { lines: out, first, sep };
}

/**
 * new_str without its prefixes. A model numbers new lines by guessing, so their numbers need
 * only run forward from the match's first line and stay inside the edit; one outside that is
 * text that happens to look numbered, and the reading is refused.
 */
function stripNew(newStr: string, n: Numbered, oldCount: number, dropLead: string): string | null {
  const lines = newStr.split('\n');
  const last = n.first + oldCount + lines.length;
  let prev = n.first;
  const out: string[] = [];
  for (const line of lines) {
    const m = PREFIX.exec(line);
    if (!m || m[2] !== n.sep) {
      out.push(line);
      continue;
    }
    const k = Number(m[1]);
    if (k < prev || k > last) return null;
    prev = k;
    out.push(line.slice(m[0].length));
  }
  if (dropLead && !PREFIX.test(lines[0]) && out[0].startsWith(dropLead)) out[0] = out[0].slice(dropLead.length);
  return out.join('\n');
}

/** Whether some line of `s` starts with a line number as read_file or `cat -n` shows it. */
export const looksNumbered = (s: string): boolean => s.split('\n').some((l) => PREFIX.test(l));

/** The readings of a numbered old_str: as its unprefixed first line stands, and without a separator left in front of it. */
export function prefixReadings(input: EditInput): Reading[] {
  if (input.anchor !== undefined) return [];
  const n = numbered(input.oldStr);
  if (!n) return [];
  const firstBare = !PREFIX.test(input.oldStr);
  const readings: Reading[] = [];
  for (const lead of firstBare && n.lines[0].startsWith(n.sep) ? ['', n.sep] : ['']) {
    const lines = [n.lines[0].slice(lead.length), ...n.lines.slice(1)];
    const oldStr = lines.join('\n');
    const newStr = stripNew(input.newStr, n, lines.length, lead);
    if (!oldStr.trim() || newStr === null) continue;
    readings.push({ name: 'line-number-prefix', input: { ...input, oldStr, newStr, anchor: n.first } });
  }
  return readings;
}
