// What a shell word becomes once bash has expanded it, so a path check sees the file bash will
// open and not the text the model wrote: `.loup?/config.json` is `.loupe/config.json`.
// Braces, `~` and globs are resolved as bash resolves them (globs against the file system, no
// dotglob, a glob that matches nothing stays as written). Anything decided at run time
// (`$VAR`, `$(…)`, backticks, arithmetic, `~user`) makes the word unknown, which asks.
import { lstatSync, readdirSync } from 'node:fs';
import os from 'node:os';
import type { BashNode } from './bashParser';

/**
 * A word as a pattern: unquoted text as written, quoted characters behind a backslash, so
 * `\*` is a literal star and `*` a glob. Or why it cannot be known before it runs.
 */
export type Word = { pattern: string; raw: string } | { unknown: string; raw: string };

export const isKnown = (w: Word): w is { pattern: string; raw: string } => 'pattern' in w;

/** More words than this from one word (braces, globs, `**`) and we stop guessing: unknown. */
const MAX_WORDS = 512;
const MAX_DIRS_WALKED = 2000;

/** Escapes every character that braces, `~` or globs could treat as special. */
export const escapeLiteral = (s: string): string => s.replace(/[^A-Za-z0-9_./]/g, '\\$&');
export const unescape = (p: string): string => p.replace(/\\([\s\S])/g, '$1');

export const literalWord = (text: string): Word => ({ pattern: escapeLiteral(text), raw: text });
export const unknownWord = (raw: string, why: string): Word => ({ unknown: why, raw });

/** Inside double quotes only \$ \` \" \\ and backslash-newline are escapes. */
const unescapeDouble = (text: string): string => text.replace(/\\([$`"\\\n])/g, (_, c: string) => (c === '\n' ? '' : c));

function patternOf(node: BashNode): string | { unknown: string } {
  switch (node.type) {
    case 'word':
    case 'brace_expression':
      // Backslash-newline disappears; every other backslash already quotes the next character.
      return node.text.replace(/\\\n/g, '');
    case 'number':
      return node.text;
    case 'raw_string':
      return escapeLiteral(node.text.slice(1, -1));
    case 'string': {
      let out = '';
      for (const c of node.children) {
        if (c.type === '"') continue;
        if (c.type !== 'string_content') return { unknown: `${c.text} is only known when it runs` };
        out += escapeLiteral(unescapeDouble(c.text));
      }
      return out;
    }
    case 'concatenation': {
      let out = '';
      let at = node.startIndex;
      for (const c of node.children) {
        // Text the grammar left between parts is part of the word as written.
        if (c.startIndex > at) out += node.text.slice(at - node.startIndex, c.startIndex - node.startIndex);
        const part = patternOf(c);
        if (typeof part !== 'string') return part;
        out += part;
        at = c.endIndex;
      }
      return out + node.text.slice(at - node.startIndex);
    }
    default:
      return { unknown: `${node.text.slice(0, 60)} is only known when it runs` };
  }
}

export function wordOf(node: BashNode): Word {
  return wordOfNodes([node]);
}

/** One word made of nodes that touch (the grammar sometimes splits what bash sees as one). */
export function wordOfNodes(nodes: BashNode[]): Word {
  const raw = nodes.map((n) => n.text).join('');
  let pattern = '';
  for (const n of nodes) {
    const p = patternOf(n);
    if (typeof p !== 'string') return { unknown: p.unknown, raw };
    pattern += p;
  }
  return { pattern, raw };
}

// ---------------------------------------------------------------- braces

/** Index of the next unescaped `ch` at or after `from`, or -1. */
function findUnescaped(p: string, chars: string, from: number): number {
  for (let i = from; i < p.length; i++) {
    if (p[i] === '\\') i++;
    else if (chars.includes(p[i])) return i;
  }
  return -1;
}

function matchingBrace(p: string, open: number): number {
  let depth = 0;
  for (let i = open; i < p.length; i++) {
    if (p[i] === '\\') i++;
    else if (p[i] === '{') depth++;
    else if (p[i] === '}' && --depth === 0) return i;
  }
  return -1;
}

function topLevelCommas(inner: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i];
    if (c === '\\') i++;
    else if (c === '{') depth++;
    else if (c === '}') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(inner.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(inner.slice(start));
  return parts;
}

function sequence(inner: string): string[] | null | 'too many' {
  const num = /^([-+]?\d+)\.\.([-+]?\d+)(?:\.\.([-+]?\d+))?$/.exec(inner);
  const chr = /^([A-Za-z])\.\.([A-Za-z])(?:\.\.([-+]?\d+))?$/.exec(inner);
  const m = num ?? chr;
  if (!m) return null;
  const step = Math.abs(Number(m[3] ?? 1)) || 1;
  const [a, b] = num ? [Number(m[1]), Number(m[2])] : [m[1].codePointAt(0)!, m[2].codePointAt(0)!];
  if (Math.abs(b - a) / step > MAX_WORDS) return 'too many';
  const width = num && (/^[-+]?0\d/.test(m[1]) || /^[-+]?0\d/.test(m[2])) ? Math.max(m[1].length, m[2].length) : 0;
  const out: string[] = [];
  for (let v = a; a <= b ? v <= b : v >= b; v += a <= b ? step : -step) {
    if (!num) out.push(escapeLiteral(String.fromCodePoint(v)));
    else out.push(v < 0 ? `-${String(-v).padStart(width - 1, '0')}` : String(v).padStart(width, '0'));
  }
  return out;
}

/** Bash brace expansion; null when it would make too many words to check. */
export function expandBraces(p: string): string[] | null {
  for (let i = findUnescaped(p, '{', 0); i !== -1; i = findUnescaped(p, '{', i + 1)) {
    const j = matchingBrace(p, i);
    if (j === -1) continue;
    const inner = p.slice(i + 1, j);
    const parts = topLevelCommas(inner);
    const alternatives = parts.length > 1 ? parts : sequence(inner);
    if (alternatives === 'too many') return null;
    if (!alternatives) continue;
    const out: string[] = [];
    for (const alt of alternatives) {
      const rest = expandBraces(alt + p.slice(j + 1));
      if (!rest) return null;
      for (const r of rest) out.push(p.slice(0, i) + r);
      if (out.length > MAX_WORDS) return null;
    }
    return out;
  }
  return [p];
}

// ---------------------------------------------------------------- tilde

/**
 * `~`, `~/…`, `~+` at the start, and after `=`/`:` in a word that looks like an assignment
 * (bash expands those too). Null when it names something only known at run time.
 */
function expandTilde(p: string, cwd: string, home: string): string | null {
  const one = (s: string): string | null => {
    if (!s.startsWith('~')) return s;
    const slash = findUnescaped(s, '/', 0);
    const prefix = slash === -1 ? s : s.slice(0, slash);
    const rest = slash === -1 ? '' : s.slice(slash);
    if (prefix === '~') return escapeLiteral(home) + rest;
    if (prefix === '~+') return escapeLiteral(cwd) + rest;
    // A quoted character in the prefix turns the whole prefix literal.
    if (prefix.includes('\\')) return s;
    return null; // ~-, ~user, ~N: another folder we do not look up.
  };
  const first = one(p);
  if (first === null) return null;
  const assign = /^[A-Za-z_][A-Za-z0-9_]*=/.exec(first);
  if (!assign) return first;
  const parts = first.slice(assign[0].length).split(':');
  const expanded = parts.map(one);
  if (expanded.includes(null)) return null;
  return assign[0] + expanded.join(':');
}

// ---------------------------------------------------------------- globs

export const hasGlobChars = (p: string): boolean => findUnescaped(p, '*?[', 0) !== -1;

const CLASSES: Record<string, string> = {
  alnum: 'A-Za-z0-9',
  alpha: 'A-Za-z',
  digit: '0-9',
  lower: 'a-z',
  upper: 'A-Z',
  space: ' \\t\\n\\r\\f\\v',
  blank: ' \\t',
  punct: '!-\\/:-@\\[-`{-~',
  xdigit: '0-9A-Fa-f',
  cntrl: '\\x00-\\x1f\\x7f',
  graph: '!-~',
  print: ' -~',
  word: 'A-Za-z0-9_',
};

const reEscape = (c: string): string => c.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');

/** One `[…]` at p[i]: [regex, index after it], or null when `[` is literal here. */
function bracket(p: string, i: number): [string, number] | null | 'unknown' {
  let j = i + 1;
  let negate = false;
  if (p[j] === '!' || p[j] === '^') {
    negate = true;
    j++;
  }
  let body = '';
  let first = true;
  while (j < p.length) {
    let c = p[j];
    if (c === ']' && !first) return [`[${negate ? '^' : ''}${body}]`, j + 1];
    first = false;
    if (c === '[' && (p[j + 1] === ':' || p[j + 1] === '=' || p[j + 1] === '.')) {
      const end = p.indexOf(`${p[j + 1]}]`, j + 2);
      if (end === -1) return null;
      const name = p.slice(j + 2, end);
      if (p[j + 1] !== ':' || !(name in CLASSES)) return 'unknown';
      body += CLASSES[name];
      j = end + 2;
      continue;
    }
    if (c === '\\') c = p[++j] ?? '';
    if (c === '/' || c === '') return null;
    j++;
    if (p[j] === '-' && p[j + 1] !== ']' && j + 1 < p.length) {
      let d = p[j + 1];
      j += 2;
      if (d === '\\') d = p[j++] ?? '';
      if (d === '/' || d === '') return null;
      if (d.codePointAt(0)! >= c.codePointAt(0)!) body += `${reEscape(c)}-${reEscape(d)}`;
      continue;
    }
    body += reEscape(c);
  }
  return null;
}

interface ComponentMatcher {
  re: RegExp;
  /** The component starts with a literal dot, so hidden names may match. */
  dot: boolean;
}

function componentMatcher(p: string): ComponentMatcher | 'unknown' {
  let re = '';
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === '\\') re += reEscape(p[++i] ?? '');
    else if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const b = bracket(p, i);
      if (b === 'unknown') return b;
      if (b === null) re += '\\[';
      else {
        re += b[0];
        i = b[1] - 1;
      }
    } else re += reEscape(c);
  }
  return { re: new RegExp(`^${re}$`, 's'), dot: p.startsWith('.') || p.startsWith('\\.') };
}

interface GlobBudget {
  dirs: number;
}

// Synchronous: a glob reads a few folders, and each promise round trip costs more than the read.
function listDir(dir: string, budget: GlobBudget): string[] {
  if (++budget.dirs > MAX_DIRS_WALKED) throw new TooMany();
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

class TooMany extends Error {}

function isDir(p: string): boolean {
  try {
    return lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** Every folder beneath `dir` (itself included) that `**` could walk into: hidden ones are skipped, as bash and zsh do. */
/** `dir` from `cwd` as the kernel reads it: `link/..` is the link target's parent, not cwd. */
const onDisk = (cwd: string, p: string): string => (p.startsWith('/') ? p : `${cwd}/${p || '.'}`);

function descendants(base: string, dir: string, budget: GlobBudget): string[] {
  const out = [dir];
  for (const name of listDir(onDisk(base, dir), budget)) {
    if (name.startsWith('.')) continue;
    const child = dir ? `${dir}/${name}` : name;
    if (isDir(onDisk(base, child))) out.push(...descendants(base, child, budget));
    if (out.length > MAX_WORDS) throw new TooMany();
  }
  return out;
}

function exists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

/**
 * Pathname expansion of one pattern from `cwd`: the names bash would produce, sorted; the
 * pattern itself (unescaped) when nothing matches; null when it cannot be followed.
 */
export function expandGlob(p: string, cwd: string, globstar = false): string[] | null {
  const literal = unescape(p);
  if (!hasGlobChars(p)) return [literal];
  const absolute = p.startsWith('/');
  const components = splitUnescaped(p.replace(/^\/+/, ''));
  // Candidates as the shell would print them (relative stays relative).
  let found: string[] = [absolute ? '/' : ''];
  const budget: GlobBudget = { dirs: 0 };
  const join = (a: string, b: string) => (a === '' ? b : a.endsWith('/') ? a + b : `${a}/${b}`);
  // Names reached through a glob matching `.` or `..`: bash 5.2 skips those, older ones do not.
  const viaDots = new Set<string>();
  try {
    for (const [ci, comp] of components.entries()) {
      if (comp === '') {
        found = found.map((f) => (f.endsWith('/') ? f : `${f}/`));
        continue;
      }
      if (!hasGlobChars(comp)) {
        found = found.map((f) => {
          const j = join(f, unescape(comp));
          if (viaDots.has(f)) viaDots.add(j);
          return j;
        });
        continue;
      }
      const m = componentMatcher(comp);
      const last = ci === components.length - 1;
      if (m === 'unknown') return null;
      const next: string[] = [];
      for (const f of found) {
        // `**` in bash is `*`; with globstar or in zsh it crosses folders (expandWord tries both).
        const bases = globstar && comp === '**' ? descendants(cwd, f, budget) : [f];
        if (globstar && comp === '**' && !last) next.push(...bases);
        for (const b of bases) {
          const names = listDir(onDisk(cwd, b), budget);
          if (m.dot) names.push('.', '..');
          for (const name of names) {
            if (name.startsWith('.') && !m.dot) continue;
            if (!m.re.test(name)) continue;
            const j = join(b, name);
            if (viaDots.has(b) || name === '.' || name === '..') viaDots.add(j);
            next.push(j);
          }
        }
        if (next.length > MAX_WORDS) return null;
      }
      found = next;
    }
  } catch (err) {
    if (err instanceof TooMany) return null;
    throw err;
  }
  const real: string[] = [];
  for (const f of new Set(found)) if (exists(onDisk(cwd, f))) real.push(f);
  // Nothing matched (dots aside): bash leaves the word as written.
  return real.some((f) => !viaDots.has(f)) ? real.sort() : [literal, ...real.sort()];
}

function splitUnescaped(p: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '\\') i++;
    else if (p[i] === '/') {
      out.push(p.slice(start, i));
      start = i + 1;
    }
  }
  out.push(p.slice(start));
  return out;
}

export interface ExpandContext {
  cwd: string;
  home?: string;
  /** Redirect targets and assignments are not brace-expanded… but bash does both for redirects. */
  braces?: boolean;
}

/**
 * Every word bash may produce from `w` when run in `cwd`: braces, then `~`, then globs. null
 * when the result is only known at run time (or too large to follow).
 */
export function expandWord(w: Word, ctx: ExpandContext): string[] | null {
  if (!isKnown(w)) return null;
  const home = ctx.home ?? os.homedir();
  const braced = ctx.braces === false ? [w.pattern] : expandBraces(w.pattern);
  if (!braced) return null;
  const out: string[] = [];
  for (const b of braced) {
    const t = expandTilde(b, ctx.cwd, home);
    if (t === null) return null;
    const g = expandGlob(t, ctx.cwd);
    const star = /(^|\/)\*\*(\/|$)/.test(t) ? expandGlob(t, ctx.cwd, true) : [];
    if (g === null || star === null) return null;
    out.push(...new Set([...g, ...star]));
    if (out.length > MAX_WORDS) return null;
  }
  return out;
}

/** The value of a word with no expansion at all (no braces, `~` or globs), else null. */
export function plainValue(w: Word): string | null {
  if (!isKnown(w)) return null;
  if (hasGlobChars(w.pattern) || expandBraces(w.pattern)?.length !== 1 || /^~|^[A-Za-z_]\w*=.*~/.test(w.pattern)) return null;
  return unescape(w.pattern);
}
