// A Markdown file's YAML front matter, read leniently: the subset people write in agent, skill and
// command files (scalars plain or quoted, block scalars `|` and `>`, flow and block lists, nested
// maps by indentation, comments). Real files break YAML (an unquoted description holding ": ",
// tabs, a list under a key at the same indent), and the agents that wrote the format read them
// anyway, so a line this reader cannot place is reported and skipped, never fatal. Nothing is
// evaluated: no anchors, tags or merges. Kept apart from its first user so other readers of
// Markdown with front matter can share it.

export type FrontValue = string | number | boolean | null | FrontValue[] | { [key: string]: FrontValue };

export interface FrontProblem {
  /** 1-based line in the file. */
  line: number;
  message: string;
}

export interface FrontMatter {
  /** The file opened with a `---` block that closed. */
  present: boolean;
  data: Record<string, FrontValue>;
  /** The text after the front matter (the whole text when there is none). */
  body: string;
  problems: FrontProblem[];
}

interface Line {
  /** 1-based line number in the file. */
  n: number;
  indent: number;
  text: string;
}

const KEY = /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s:#'"][^:#]*?|[^\s:'"])\s*:(?:\s+|$)/;

export function readFrontMatter(text: string): FrontMatter {
  const all = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const none: FrontMatter = { present: false, data: {}, body: text.replace(/^\uFEFF/, ''), problems: [] };
  if (all[0]?.trimEnd() !== '---') return none;
  const end = all.findIndex((l, i) => i > 0 && (l.trimEnd() === '---' || l.trimEnd() === '...'));
  if (end < 0) return { ...none, problems: [{ line: 1, message: 'the front matter opened with --- never closes' }] };
  const lines: Line[] = [];
  for (let i = 1; i < end; i++) {
    const raw = all[i].replace(/\t/g, '  ');
    if (!raw.trim() || /^\s*#/.test(raw)) {
      // Blank lines matter inside block scalars; comments never.
      if (!raw.trim()) lines.push({ n: i + 1, indent: -1, text: '' });
      continue;
    }
    lines.push({ n: i + 1, indent: raw.length - raw.trimStart().length, text: raw.trim() });
  }
  const problems: FrontProblem[] = [];
  const reader = new BlockReader(lines, problems);
  const value = reader.block(0, 0).value;
  const data = value && typeof value === 'object' && !Array.isArray(value) ? value : {};
  if (value !== null && (typeof value !== 'object' || Array.isArray(value))) problems.push({ line: 2, message: 'the front matter is not a list of "key: value" lines' });
  return { present: true, data, body: all.slice(end + 1).join('\n'), problems };
}

class BlockReader {
  constructor(
    private readonly lines: Line[],
    private readonly problems: FrontProblem[],
  ) {}

  /** The next line with content at or after `i`. */
  private next(i: number): number {
    while (i < this.lines.length && this.lines[i].indent < 0) i++;
    return i;
  }

  /** A mapping or a list whose lines sit at the indent of the first one (at least `min`). */
  block(i: number, min: number): { value: FrontValue; at: number } {
    i = this.next(i);
    const first = this.lines[i];
    if (!first || first.indent < min) return { value: null, at: i };
    if (first.text === '-' || first.text.startsWith('- ')) return this.list(i, first.indent);
    return this.map(i, first.indent);
  }

  private map(i: number, indent: number): { value: FrontValue; at: number } {
    const out: Record<string, FrontValue> = {};
    for (i = this.next(i); i < this.lines.length; i = this.next(i)) {
      const line = this.lines[i];
      if (line.indent < indent) break;
      const m = KEY.exec(line.text);
      if (line.indent > indent || !m) {
        this.problems.push({ line: line.n, message: `cannot read "${short(line.text)}": expected "key: value"` });
        i++;
        continue;
      }
      const key = unquoteKey(m[1].trim());
      const rest = line.text.slice(m[0].length);
      const got = this.value(i, indent, rest);
      out[key] = got.value;
      i = got.at;
    }
    return { value: out, at: i };
  }

  private list(i: number, indent: number): { value: FrontValue; at: number } {
    const out: FrontValue[] = [];
    for (i = this.next(i); i < this.lines.length; i = this.next(i)) {
      const line = this.lines[i];
      const dash = line.text === '-' || line.text.startsWith('- ');
      if (line.indent > indent) {
        this.problems.push({ line: line.n, message: `cannot read "${short(line.text)}" in a list` });
        i++;
        continue;
      }
      // A shallower line, or one at this indent that is no item, ends the list (the next key).
      if (line.indent < indent || !dash) break;
      const rest = line.text.slice(1).trimStart();
      // "- key: value" opens a map whose other keys sit under the first.
      const m = KEY.exec(rest);
      if (m && !/^["'[{]/.test(rest)) {
        const inner = indent + 2;
        const first = this.value(i, inner, rest.slice(m[0].length));
        const map: Record<string, FrontValue> = { [unquoteKey(m[1].trim())]: first.value };
        const more = this.map(first.at, inner);
        const others = more.value as Record<string, FrontValue>;
        Object.assign(map, others);
        out.push(map);
        i = more.at;
        continue;
      }
      const got = this.value(i, indent, rest);
      out.push(got.value);
      i = got.at;
    }
    return { value: out, at: i };
  }

  /** The value after "key:" (or "- ") on line `i`, with whatever lines below belong to it. */
  private value(i: number, indent: number, rest: string): { value: FrontValue; at: number } {
    const text = stripComment(rest);
    const after = i + 1;
    if (!text) {
      const nextAt = this.next(after);
      const below = this.lines[nextAt];
      // A list may sit at the key's own indent, as many files write it.
      if (below && (below.indent > indent || (below.indent === indent && (below.text === '-' || below.text.startsWith('- '))))) return this.block(after, below.indent);
      return { value: null, at: after };
    }
    if (/^[|>][+-]?\d*$/.test(text)) return this.blockScalar(after, indent, text[0] === '>', text.includes('-') ? 'strip' : text.includes('+') ? 'keep' : 'clip');
    if (text.startsWith('"') || text.startsWith("'")) return this.quoted(i, indent, rest.trimStart());
    if (text.startsWith('[') || text.startsWith('{')) {
      const flow = parseFlow(text);
      if (flow.ok) return { value: flow.value, at: after };
      this.problems.push({ line: this.lines[i].n, message: `cannot read the ${text.startsWith('[') ? 'list' : 'map'} "${short(text)}"; taken as text` });
      return { value: text, at: after };
    }
    // A plain scalar may go on over more-indented lines that are not keys of their own.
    const parts = [text];
    let at = after;
    for (let j = this.next(after); j < this.lines.length; j = this.next(j + 1)) {
      const l = this.lines[j];
      if (l.indent <= indent) break;
      parts.push(stripComment(l.text));
      at = j + 1;
    }
    return { value: parts.length > 1 ? parts.join(' ') : scalar(text), at };
  }

  private blockScalar(i: number, indent: number, folded: boolean, chomp: 'strip' | 'clip' | 'keep'): { value: FrontValue; at: number } {
    const body: Line[] = [];
    let j = i;
    for (; j < this.lines.length; j++) {
      const l = this.lines[j];
      if (l.indent >= 0 && l.indent <= indent) break;
      body.push(l);
    }
    const own = Math.min(...body.filter((l) => l.indent >= 0).map((l) => l.indent));
    const texts = body.map((l) => (l.indent < 0 ? '' : ' '.repeat(l.indent - own) + l.text));
    while (texts.length && texts[texts.length - 1] === '' && chomp !== 'keep') texts.pop();
    let out = folded ? fold(texts) : texts.join('\n');
    if (chomp !== 'strip' && out) out += '\n';
    return { value: out, at: j };
  }

  private quoted(i: number, indent: number, rest: string): { value: FrontValue; at: number } {
    const q = rest[0];
    let text = rest;
    let at = i + 1;
    // A quoted string may go on over the following lines (joined by a space, as YAML folds them).
    for (let j = i + 1; closingAt(text, q) < 0 && j < this.lines.length; j++) {
      const l = this.lines[j];
      if (l.indent >= 0 && l.indent <= indent && KEY.test(l.text)) break;
      text += l.indent < 0 ? '\n' : ` ${l.text}`;
      at = j + 1;
    }
    const close = closingAt(text, q);
    if (close < 0) {
      this.problems.push({ line: this.lines[i].n, message: 'a quoted value never closes; taken as written' });
      return { value: text.slice(1), at };
    }
    const inner = text.slice(1, close);
    return { value: q === '"' ? unescapeDouble(inner) : inner.replace(/''/g, "'"), at };
  }
}

function closingAt(text: string, q: string): number {
  for (let k = 1; k < text.length; k++) {
    if (q === '"' && text[k] === '\\') {
      k++;
      continue;
    }
    if (text[k] === q) {
      if (q === "'" && text[k + 1] === "'") {
        k++;
        continue;
      }
      return k;
    }
  }
  return -1;
}

function fold(texts: string[]): string {
  let out = '';
  for (const t of texts) {
    if (t === '') out += '\n';
    else if (out && !out.endsWith('\n')) out += ` ${t}`;
    else out += t;
  }
  return out;
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '"': '"', '\\': '\\', '/': '/', '0': '\0', ' ': ' ', b: '\b' };

function unescapeDouble(s: string): string {
  return s.replace(/\\(u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|.)/g, (whole, e: string) => {
    if (e[0] === 'u' || e[0] === 'x') return e.length > 1 ? String.fromCharCode(parseInt(e.slice(1), 16)) : whole;
    return ESCAPES[e] ?? whole;
  });
}

function unquoteKey(k: string): string {
  if (k.length >= 2 && k[0] === '"' && k.endsWith('"')) return unescapeDouble(k.slice(1, -1));
  if (k.length >= 2 && k[0] === "'" && k.endsWith("'")) return k.slice(1, -1).replace(/''/g, "'");
  return k;
}

/** Removes a ` # comment` from a plain value (a # inside a word stays). */
function stripComment(s: string): string {
  if (/^["']/.test(s.trim())) return s.trim();
  return s.replace(/(^|\s)#.*$/, '').trim();
}

function scalar(text: string): FrontValue {
  const t = text.trim();
  if (/^(true|True|TRUE)$/.test(t)) return true;
  if (/^(false|False|FALSE)$/.test(t)) return false;
  if (/^(null|Null|NULL|~)$/.test(t)) return null;
  if (/^[-+]?\d+$/.test(t) && Number.isSafeInteger(Number(t))) return Number(t);
  if (/^[-+]?(\d+\.\d*|\.\d+)([eE][-+]?\d+)?$/.test(t)) return Number(t);
  return t;
}

/** A flow list or map on one line (`[a, "b, c"]`, `{write: false}`), nested ones too. */
function parseFlow(text: string): { ok: true; value: FrontValue } | { ok: false } {
  let i = 0;
  const ws = () => {
    while (i < text.length && /\s/.test(text[i])) i++;
  };
  const item = (stops: string): FrontValue => {
    ws();
    const c = text[i];
    if (c === '[' || c === '{') return nested();
    if (c === '"' || c === "'") {
      const close = closingAt(text.slice(i), c);
      if (close < 0) throw new Error('open quote');
      const inner = text.slice(i + 1, i + close);
      i += close + 1;
      return c === '"' ? unescapeDouble(inner) : inner.replace(/''/g, "'");
    }
    const start = i;
    while (i < text.length && !stops.includes(text[i])) i++;
    return scalar(text.slice(start, i));
  };
  const nested = (): FrontValue => {
    const open = text[i++];
    const close = open === '[' ? ']' : '}';
    const list: FrontValue[] = [];
    const map: Record<string, FrontValue> = {};
    for (;;) {
      ws();
      if (text[i] === close) {
        i++;
        break;
      }
      if (open === '[') list.push(item(',]'));
      else {
        const key = item(':,}');
        ws();
        let value: FrontValue = null;
        if (text[i] === ':') {
          i++;
          value = item(',}');
        }
        map[String(key)] = value;
      }
      ws();
      if (text[i] === ',') i++;
      else if (text[i] !== close) throw new Error('unexpected character');
    }
    return open === '[' ? list.filter((v) => v !== '' && v !== null) : map;
  };
  try {
    const value = nested();
    ws();
    return i === text.length ? { ok: true, value } : { ok: false };
  } catch {
    return { ok: false };
  }
}

const short = (s: string) => (s.length > 60 ? `${s.slice(0, 57)}…` : s);
