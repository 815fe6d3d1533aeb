// The YAML front matter of a SKILL.md or a command file, read the way its authors' agents read
// it, and then some: files written for one agent are often not valid YAML (an unquoted colon in a
// description is the classic), and some agents drop such a file silently or load it with an empty
// header. Here a block that parses is taken as YAML says; one that does not is read line by line
// (`key: value`, the rest of the line the value, indented lines continuing it, `- item` lists,
// `|` and `>` blocks) and the file is kept, with a problem that says where YAML gave up. Nothing
// is evaluated: no tags, aliases bounded, values stay data.
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

// The YAML reader loads with the first front matter read, not with the folder (it is ~70 files).
const requireHere = createRequire(import.meta.url);
let yamlModule: typeof Yaml | null = null;
const yaml = (): typeof Yaml => (yamlModule ??= requireHere('yaml') as typeof Yaml);

/**
 * A key's value exactly as written on its line, unquoted: for display text such as
 * `argument-hint: [pr-number] [priority]`, which YAML would read as a list (or refuse).
 */
export function rawLine(text: string, key: string): string | undefined {
  const block = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/.exec(text)?.[1];
  const m = block && new RegExp(`^${key.replace(/[-]/g, '\\-')}[ \t]*:[ \t]*(.*?)[ \t]*$`, 'm').exec(block);
  if (!m || !m[1]) return undefined;
  const v = m[1].replace(/\r$/, '');
  return v.length >= 2 && (v[0] === '"' || v[0] === "'") && v[v.length - 1] === v[0] ? v.slice(1, -1) : v;
}

export interface FrontMatter {
  /** Every key as written (unknown ones too): strings, lists and maps as YAML gives them. */
  data: Record<string, unknown>;
  /** The text after the closing `---` (the whole text when there is no front matter), line endings as LF. */
  body: string;
  /** How the block was read: YAML, line by line because YAML refused it, or there was none. */
  read: 'yaml' | 'lines' | 'none';
  /** What was wrong, each in one sentence for the person. */
  problems: string[];
}

const OPEN = /^---[ \t]*$/;
const CLOSE = /^(---|\.\.\.)[ \t]*$/;

/** Splits the front matter from the body and reads it, never throwing. */
export function readFrontMatter(text: string): FrontMatter {
  const lines = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n').split('\n');
  if (!OPEN.test(lines[0] ?? '')) return { data: {}, body: lines.join('\n'), read: 'none', problems: [] };
  const end = lines.findIndex((l, i) => i > 0 && CLOSE.test(l));
  if (end < 0) return { data: {}, body: lines.join('\n'), read: 'none', problems: ['the front matter has no closing --- line, so the whole file is read as its text'] };
  const block = lines.slice(1, end).join('\n');
  const body = lines.slice(end + 1).join('\n');
  const yaml = viaYaml(block);
  if (yaml.data) return { data: yaml.data, body, read: 'yaml', problems: [] };
  const data = lineByLine(lines.slice(1, end));
  return { data, body, read: 'lines', problems: [`the front matter is not valid YAML (${yaml.why}), so it was read line by line; quoting the value there makes it valid`] };
}

function viaYaml(block: string): { data: Record<string, unknown> | null; why: string } {
  try {
    // Core schema: plain data only; aliases bounded (a billion-laughs block fails here and is read by lines).
    const value = yaml().parse(block, { schema: 'core', maxAliasCount: 50, prettyErrors: true, strict: true, uniqueKeys: true }) as unknown;
    if (value === null || value === undefined) return { data: {}, why: '' };
    if (typeof value !== 'object' || Array.isArray(value)) return { data: null, why: 'it is not a map of keys to values' };
    return { data: value as Record<string, unknown>, why: '' };
  } catch (err) {
    if (err instanceof yaml().YAMLParseError) {
      const at = err.linePos?.[0];
      // Lines of the file: the block starts on line 2, after the opening ---.
      const where = at ? `line ${at.line + 1}, column ${at.col}: ` : '';
      return { data: null, why: `${where}${err.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '')}` };
    }
    return { data: null, why: (err as Error).message };
  }
}

const KEY = /^([A-Za-z0-9_][A-Za-z0-9_.-]*)[ \t]*:(?:[ \t]+(.*)|[ \t]*)$/;
const indentOf = (l: string): number => l.length - l.trimStart().length;

/** A quoted scalar without its quotes (escapes of a double-quoted one read); anything else trimmed. */
function scalar(raw: string): string {
  const t = raw.trim();
  if (t.length >= 2 && t[0] === "'" && t[t.length - 1] === "'") return t.slice(1, -1).replace(/''/g, "'");
  if (t.length >= 2 && t[0] === '"' && t[t.length - 1] === '"') {
    try {
      return JSON.parse(t) as string;
    } catch {
      return t.slice(1, -1);
    }
  }
  // A comment after a plain value, as YAML would drop it.
  return t.replace(/\s+#.*$/, '');
}

/** `[a, b, "c"]` as a list; anything else null. */
function flowList(raw: string): string[] | null {
  const t = raw.trim();
  if (!(t.startsWith('[') && t.endsWith(']')) || /[[\]]/.test(t.slice(1, -1))) return null;
  return t
    .slice(1, -1)
    .split(',')
    .map(scalar)
    .filter((s) => s.length > 0);
}

/**
 * The lenient reading: each line at the left margin that starts with `key:` starts a key, and
 * everything up to the next such line is its value. Lists, one level of nested keys and block
 * scalars are recognised; everything else is text.
 */
function lineByLine(lines: string[]): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    const m = indentOf(line) === 0 ? KEY.exec(line) : null;
    if (!m) {
      i++;
      continue;
    }
    const key = m[1];
    const raw = m[2] ?? '';
    // The lines that belong to this key: up to the next key at the left margin.
    let j = i + 1;
    while (j < lines.length && !(indentOf(lines[j]) === 0 && KEY.test(lines[j]))) j++;
    const rest = lines.slice(i + 1, j);
    data[key] = valueOf(raw, rest);
    i = j;
  }
  return data;
}

function valueOf(raw: string, rest: string[]): unknown {
  const head = raw.trim();
  const block = /^([|>])([+-]?)\s*$/.exec(head);
  if (block) {
    const inner = rest.filter((l, k) => l.trim() || k < rest.length - 1);
    const cut = Math.min(...inner.filter((l) => l.trim()).map(indentOf), Infinity);
    const kept = inner.map((l) => (l.trim() ? l.slice(cut === Infinity ? 0 : cut) : ''));
    const joined = block[1] === '|' ? kept.join('\n') : kept.reduce((acc, l) => (acc === '' ? l : l === '' ? `${acc}\n` : acc.endsWith('\n') ? acc + l : `${acc} ${l}`), '');
    return block[2] === '+' ? `${joined}\n` : joined.replace(/\n+$/, '');
  }
  const content = rest.filter((l) => l.trim() && !l.trim().startsWith('#'));
  if (!head) {
    if (content.length && content.every((l) => /^\s*-(\s|$)/.test(l))) return content.map((l) => scalar(l.replace(/^\s*-\s?/, '')));
    if (content.length && content.every((l) => indentOf(l) > 0 && KEY.test(l.trim()))) {
      return Object.fromEntries(content.map((l) => KEY.exec(l.trim())!).map((k) => [k[1], scalar(k[2] ?? '')]));
    }
    return content.map((l) => l.trim()).join(' ');
  }
  const list = flowList(head);
  if (list && !content.length) return list;
  // A plain value continued on the lines below it, folded with spaces as YAML folds them.
  return [scalar(head), ...content.map((l) => l.trim())].join(' ').trim();
}
