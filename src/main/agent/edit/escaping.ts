// When does new_str look over-escaped (seed R4)? When it has escapes such as \n or \" outside
// any string literal, where code almost never has them, and the text it replaces has no
// escapes of that kind (if it does, they are real, as in a JavaScript string "a\nb").

const KINDS = new Set(['n', 't', 'r', '"', "'", '`']);

/** Escape kinds found outside quotes. Strings end at a line break, except template literals. */
export function escapesOutsideStrings(s: string): Set<string> {
  const kinds = new Set<string>();
  let quote: string | null = null;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\\') {
      const next = s[i + 1];
      if (quote === null && next !== undefined && KINDS.has(next)) kinds.add(next);
      i++;
    } else if (quote !== null) {
      if (c === quote || (c === '\n' && quote !== '`')) quote = null;
    } else if (c === '"' || c === "'" || c === '`') {
      quote = c;
    }
  }
  return kinds;
}

export function escapeKinds(s: string): Set<string> {
  const kinds = new Set<string>();
  for (let i = s.indexOf('\\'); i !== -1; i = s.indexOf('\\', i + 2)) if (KINDS.has(s[i + 1])) kinds.add(s[i + 1]);
  return kinds;
}

export function looksOverEscaped(newStr: string, replaced: string): boolean {
  const suspicious = escapesOutsideStrings(newStr);
  if (suspicious.size === 0) return false;
  const real = escapeKinds(replaced);
  return [...suspicious].every((k) => !real.has(k));
}

/** Text with escapes, backslashes and whitespace dropped: equal for two strings that differ only in escaping. */
export function escapeSkeleton(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\\') {
      if ('ntr'.includes(s[i + 1] ?? '')) i++;
      continue;
    }
    if (!/\s/.test(c)) out += c;
  }
  return out;
}
