// When does new_str look over-escaped (R4 in docs/architecture.md)? When it has escapes such as \n or \" outside
// any string literal, where code almost never has them, and the text it replaces has no
// escapes of that kind (if it does, they are real, as in a JavaScript string "a\nb"). A
// model call costs time and money, so everything decidable here is decided here: a language
// written in backslashes (TeX, regular expressions, Windows scripts), a backslash command the
// file already uses (\noindent in a file that has \noindent), a Windows path.

const KINDS = new Set(['n', 't', 'r', '"', "'", '`']);

/** Files whose language is made of backslashes: there, \n and \t start words, not escapes. */
const BACKSLASH_LANGUAGES = /\.(tex|ltx|sty|cls|dtx|ins|bib|bst|bbx|cbx|regex|regexp|re2|bat|cmd|ps1|psm1|psd1|reg)$/i;

export const backslashLanguage = (path: string): boolean => BACKSLASH_LANGUAGES.test(path);

/**
 * Windows paths: a drive (C:\…) or a share (\\host\…). Their backslashes separate folders.
 * A lower-case one-letter "drive" needs two folders, so Python's `if x:\n` stays an escape.
 */
const WINDOWS_PATH = /(?<![\w\\])(?:[A-Z]:\\[^\\\s"'`<>|*?]*|[a-z]:\\[^\\\s"'`<>|*?]*(?=\\[^\\\s"'`<>|*?])|\\\\[\w.$-]+)(?:\\[^\\\s"'`<>|*?]*)*/g;

/** Offsets of the backslashes that belong to Windows paths. */
function pathSlashes(s: string): Set<number> {
  const at = new Set<number>();
  if (!s.includes(':\\') && !s.includes('\\\\')) return at;
  for (const m of s.matchAll(WINDOWS_PATH)) for (let i = m.index; i < m.index + m[0].length; i++) if (s[i] === '\\') at.add(i);
  return at;
}

/** A backslash sequence as the reader sees it: the backslash and the word it starts (\noindent). */
const sequenceAt = (s: string, i: number): string => '\\' + (/^[A-Za-z]+/.exec(s.slice(i + 1, i + 41))?.[0] ?? s[i + 1]);

/** Escape kinds found outside quotes. Strings end at a line break, except template literals. */
export function escapesOutsideStrings(s: string): Set<string> {
  return new Set([...escapeSequencesOutsideStrings(s)].map((seq) => seq[1]));
}

/** The backslash sequences (\n, \noindent) of escapeable kinds found outside quotes and paths. */
export function escapeSequencesOutsideStrings(s: string): Set<string> {
  const seqs = new Set<string>();
  const paths = pathSlashes(s);
  let quote: string | null = null;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\\') {
      const next = s[i + 1];
      if (quote === null && next !== undefined && KINDS.has(next) && !paths.has(i)) seqs.add(sequenceAt(s, i));
      i++;
    } else if (quote !== null) {
      if (c === quote || (c === '\n' && quote !== '`')) quote = null;
    } else if (c === '"' || c === "'" || c === '`') {
      quote = c;
    }
  }
  return seqs;
}

export function escapeKinds(s: string): Set<string> {
  const kinds = new Set<string>();
  for (let i = s.indexOf('\\'); i !== -1; i = s.indexOf('\\', i + 2)) if (KINDS.has(s[i + 1])) kinds.add(s[i + 1]);
  return kinds;
}

/** What else is known about the edit: the file's path and its whole text. */
export interface EscapeContext {
  path?: string;
  fileText?: string;
}

/** A command-like sequence (a backslash and two or more letters) that the file itself has. */
const fileUses = (fileText: string, seq: string): boolean => seq.length > 2 && new RegExp(`${seq.replace(/\\/g, '\\\\')}(?![A-Za-z])`).test(fileText);

export function looksOverEscaped(newStr: string, replaced: string, ctx: EscapeContext = {}): boolean {
  if (ctx.path !== undefined && backslashLanguage(ctx.path)) return false;
  const suspicious = escapeSequencesOutsideStrings(newStr);
  if (suspicious.size === 0) return false;
  const real = escapeKinds(replaced);
  if ([...suspicious].some((seq) => real.has(seq[1]))) return false;
  const fileText = ctx.fileText;
  return fileText === undefined || ![...suspicious].some((seq) => fileUses(fileText, seq));
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
