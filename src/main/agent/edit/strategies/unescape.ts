// Step 5 (R1 in docs/architecture.md): models that build tool calls inside JSON often send `\\n` for a newline
// or `\\"` for a quote. A reading of the request: only when the raw old_str is absent, and its
// unescaped form must then be found the expected number of times (by any view); new_str is
// unescaped the same way, never on its own.
import type { EditInput, Reading } from '../types';

const ESCAPED: Record<string, string> = { n: '\n', t: '\t', r: '\r', "'": "'", '"': '"', '`': '`' };

/**
 * A run of backslashes followed by n, t, r, a quote or a backtick becomes that one character
 * (newline, tab, CR, the quote); a run of two or more followed by anything else becomes one
 * backslash. The same as /\\+(n|t|r|'|"|`|\\)/ with a per-match mapping.
 */
export function unescapeLlmString(s: string): string {
  if (!s.includes('\\')) return s;
  let out = '';
  let i = 0;
  while (i < s.length) {
    const slash = s.indexOf('\\', i);
    if (slash === -1) break;
    out += s.slice(i, slash);
    let j = slash;
    while (s[j] === '\\') j++;
    const next = s[j];
    if (next !== undefined && Object.hasOwn(ESCAPED, next)) {
      out += ESCAPED[next];
      i = j + 1;
    } else {
      out += '\\';
      i = j;
    }
  }
  return out + s.slice(i);
}

/**
 * One level of escaping removed, as a JSON string decoder would: `\\n` becomes `\n`, not a
 * newline. For code whose own string literals hold escapes that the model escaped once more.
 */
export function unescapeOneLevel(s: string): string {
  if (!s.includes('\\')) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const next = s[i + 1];
    if (s[i] === '\\' && next !== undefined && (next === '\\' || Object.hasOwn(ESCAPED, next))) {
      out += next === '\\' ? '\\' : ESCAPED[next];
      i++;
    } else {
      out += s[i];
    }
  }
  return out;
}

const DECODERS: [string, (s: string) => string][] = [
  ['unescape', unescapeLlmString],
  ['unescape-one-level', unescapeOneLevel],
];

/** old_str and new_str decoded alike, one reading per decoder that changes old_str. */
export function unescapeReadings(input: EditInput): Reading[] {
  if (!input.oldStr.includes('\\')) return [];
  const readings: Reading[] = [];
  for (const [name, decode] of DECODERS) {
    const oldStr = decode(input.oldStr);
    if (oldStr === input.oldStr || oldStr === '' || readings.some((r) => r.input.oldStr === oldStr)) continue;
    readings.push({ name, input: { ...input, oldStr, newStr: decode(input.newStr) } });
  }
  return readings;
}
