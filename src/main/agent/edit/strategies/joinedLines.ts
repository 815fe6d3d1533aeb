// Step 6g: a statement the file breaks over two or three lines, written on one line in old_str
// ("f(a,\n      b)" sent as "f(a, b)" or "f(a,b)"). Each line of old_str stands for one line
// of the file or for a few joined: the line break and the blanks around it become one space
// or nothing, and everything else must match exactly. new_str gets the file's own lines
// wherever it repeats a joined line, and a line that rewrites one is broken where the file
// breaks it when new_str kept the text at each break; otherwise it is the model's own line.
import { diffChars } from 'diff';
import { alignLines } from '../../../services/modlog/lineAlign';
import { findAll } from '../lines';
import { NONE, anchored, countAccepted, judge, shared, type EditInput, type Range, type Strategy } from '../types';
import { contentEnd, indentEnd } from '../view';

/** The most file lines one line of old_str may stand for. */
const MAX_JOINED = 3;
/** Past this many ways to read one place, the place is given up as ambiguous. */
const MAX_FITS = 2;

const squeeze = (s: string) => s.replace(/[ \t\n]+/g, '');

/** A line break of the file that old_str's line leaves out. */
interface Join {
  /** Where the separator (one space or nothing) starts in old_str's line. */
  at: number;
  sep: string;
  /** The indentation of the file's line after the break. */
  indent: string;
}

interface Group {
  /** The [from, to) of the file text old_str's line stands for. */
  from: number;
  to: number;
  joins: Join[];
}

interface Fit {
  range: Range;
  /** One for each line of old_str. */
  groups: Group[];
}

interface Ctx {
  input: EditInput;
  oldLines: string[];
  /** How many lines the file has (a final line break ends the last one). */
  count: number;
}

/** Line j of the file (0-based), without its line break. */
function lineOf(c: Ctx, j: number): string {
  const from = c.input.lines.lineStart(j + 1);
  const nl = c.input.text.indexOf('\n', from);
  return c.input.text.slice(from, nl === -1 ? c.input.text.length : nl);
}

/**
 * The file lines j..j+r joined as old_str would have them: the first keeps its indentation,
 * the last its trailing blanks, and each break becomes `seps[m]`. With each part's offset.
 */
function joined(c: Ctx, j: number, seps: string[]): { text: string; parts: { at: number; from: number; len: number }[] } {
  const r = seps.length;
  let text = '';
  const parts: { at: number; from: number; len: number }[] = [];
  for (let m = 0; m <= r; m++) {
    const line = lineOf(c, j + m);
    const from = m === 0 ? 0 : indentEnd(line);
    const to = m === r ? line.length : contentEnd(line);
    if (m > 0) text += seps[m - 1];
    parts.push({ at: text.length, from: c.input.lines.lineStart(j + m + 1) + from, len: to - from });
    text += line.slice(from, to);
  }
  return { text, parts };
}

/** File offset of position `pos` of a joined text (inside one of its parts). */
function offsetIn(parts: { at: number; from: number; len: number }[], pos: number): number | null {
  for (const p of parts) if (pos >= p.at && pos <= p.at + p.len) return p.from + (pos - p.at);
  return null;
}

function* separators(r: number): Generator<string[]> {
  if (r === 0) {
    yield [];
    return;
  }
  for (const rest of separators(r - 1)) {
    yield [...rest, ''];
    yield [...rest, ' '];
  }
}

/** Every way old_str line i can stand for the file's lines from j on, given where the match starts. */
function* groupFits(c: Ctx, i: number, j: number): Generator<Group & { r: number }> {
  const o = c.oldLines[i];
  const k = c.oldLines.length;
  for (let r = 0; r < MAX_JOINED && j + r < c.count; r++) {
    // Only lines with text are joined: a blank line is a line break in old_str too.
    if (r > 0 && (!lineOf(c, j + r).trim() || !lineOf(c, j).trim())) break;
    for (const seps of separators(r)) {
      const { text, parts } = joined(c, j, seps);
      const firstEnd = parts[0].at + parts[0].len;
      const lastAt = parts[r].at;
      // A joined group must use text of its first and its last line, or it is a smaller group.
      const spans = (s: number, e: number) => r === 0 || (s < firstEnd && e > lastAt);
      const candidates: number[] = [];
      if (k === 1) candidates.push(...findAll(text, o).filter((s) => spans(s, s + o.length)));
      else if (i === 0) candidates.push(...(text.endsWith(o) ? [text.length - o.length] : []));
      else if (i === k - 1 ? text.startsWith(o) : text === o) candidates.push(0);
      for (const s of candidates) {
        if (!spans(s, s + o.length)) continue;
        const from = offsetIn(parts, s);
        const to = offsetIn(parts, s + o.length);
        const joins = seps.map((sep, m) => {
          const next = lineOf(c, j + m + 1);
          return { at: parts[m + 1].at - sep.length - s, sep, indent: next.slice(0, indentEnd(next)) };
        });
        if (from !== null && to !== null) yield { r, from, to, joins };
      }
    }
  }
}

/** A partial fit: old_str's lines up to `i` placed, the last group first (shared tails, no copies). */
interface Step {
  i: number;
  line: number;
  joins: number;
  group: Group | null;
  prev: Step | null;
}

/**
 * The ways old_str fits the file from line index j on (0-based), at most MAX_FITS + 1 of them.
 * Depth first with an explicit stack: an old_str of thousands of lines must not exhaust the
 * call stack; a line and file line that led nowhere once are not tried again.
 */
function fitsAt(c: Ctx, j: number): Fit[] {
  const out: Fit[] = [];
  const k = c.oldLines.length;
  const dead = new Set<number>();
  const stack: Step[] = [{ i: 0, line: j, joins: 0, group: null, prev: null }];
  while (stack.length && out.length <= MAX_FITS) {
    const s = stack.pop()!;
    if (s.i === k) {
      if (s.joins === 0) continue;
      const groups: Group[] = [];
      for (let at: Step | null = s; at?.group; at = at.prev) groups.unshift(at.group);
      out.push({ range: { start: groups[0].from, end: groups[groups.length - 1].to }, groups });
      continue;
    }
    const key = s.i * (c.count + 1) + s.line;
    if (dead.has(key)) continue;
    let any = false;
    for (const { r, ...g } of groupFits(c, s.i, s.line)) {
      any = true;
      stack.push({ i: s.i + 1, line: s.line + r + 1, joins: s.joins + r, group: g, prev: s });
    }
    if (!any) dead.add(key);
  }
  return out;
}

export const joinedLines: Strategy = {
  name: 'joined-lines',
  locate(input) {
    const oldLines = input.oldStr.split('\n');
    const needle = squeeze(input.oldStr);
    if (!needle) return NONE;
    // Blank lines are never joined: those old_str starts with stand each for one line.
    const lead = oldLines.findIndex((l) => l.trim());
    const skeleton = shared(input, 'squeezed', () => squeeze(input.text));
    if (!skeleton.includes(needle)) return NONE;
    const c: Ctx = { input, oldLines, count: input.lines.lineCount + (input.text.endsWith('\n') ? 1 : 0) };
    const places = new Map<number, Fit>();
    const seen = new Set<number>();
    let ambiguous = false;
    // Lines with text in old_str, first to last: a place with no more file lines than these has no join.
    const tall = oldLines.length - [...oldLines].reverse().findIndex((l) => l.trim()) - lead;
    const startOf = originOf(input.text);
    const endOf = originOf(input.text);
    for (let s = skeleton.indexOf(needle); s !== -1; s = skeleton.indexOf(needle, s + 1)) {
      // The first character of old_str's first line with text is on the first line it stands for.
      const first = input.lines.lineAt(startOf(s));
      const j = first - 1 - lead;
      if (j < 0 || input.lines.lineAt(endOf(s + needle.length - 1)) - first + 1 <= tall) continue;
      if (seen.has(j)) continue;
      seen.add(j);
      const fits = fitsAt(c, j).filter((f) => anchored(input, f.range.start));
      if (fits.length > 1) ambiguous = true;
      for (const f of fits) places.set(f.range.start, f);
    }
    const found = [...places.values()];
    const breaks = (f: Fit) => input.text.slice(f.range.start, f.range.end).split('\n').length;
    const accepted = countAccepted(found.length, input);
    // The write checks each place against one needle: places of different heights cannot share it.
    if (accepted && found.some((f) => breaks(f) !== breaks(found[0]))) return NONE;
    // Two readings of one place would rebuild new_str two ways: nobody can tell which is meant.
    if (ambiguous) return { kind: 'ambiguous', strategy: 'joined-lines', ranges: [...found, ...found].map((f) => f.range) };
    return judge(input, {
      strategy: 'joined-lines',
      ranges: found.map((f) => f.range),
      newStr: input.newStr,
      correctedOld: found.length ? input.text.slice(found[0].range.start, found[0].range.end) : undefined,
      needle: found.length ? input.text.slice(found[0].range.start, found[0].range.end) : input.oldStr,
      render: (n) => found.map((f) => rejoin(input.text, oldLines, n.split('\n'), f)),
    });
  },
};

/**
 * new_str with each line that repeats a line of old_str replaced by the file text it stood
 * for, and each line that rewrites a joined one broken where the file breaks it when that is
 * clear (else written as given: the model's own text).
 */
function rejoin(text: string, oldLines: string[], newLines: string[], f: Fit): string {
  return alignLines(oldLines, newLines)
    .map((o, j) => {
      if (o.kind === 'inserted') return newLines[j];
      const g = f.groups[o.from];
      if (o.kind === 'equal') return text.slice(g.from, g.to);
      return (g.joins.length && splitLike(oldLines[o.from], newLines[j], g.joins)) || newLines[j];
    })
    .join('\n');
}

/**
 * `line` (a rewrite of `old`) broken at old's joins, or null when that is not clear: `line`
 * must keep most of `old`, and each break must sit in text it kept, beside kept text (a kept
 * space that was the break, or a spot with kept characters on both sides).
 */
function splitLike(old: string, line: string, joins: Join[]): string | null {
  const runs: { o: number; n: number; len: number }[] = [];
  let o = 0;
  let n = 0;
  for (const p of diffChars(old, line)) {
    const len = p.value.length;
    if (!p.added && !p.removed) runs.push({ o, n, len });
    if (!p.added) o += len;
    if (!p.removed) n += len;
  }
  if (2 * runs.reduce((sum, r) => sum + r.len, 0) < old.length) return null;
  let out = '';
  let from = 0;
  for (const jn of joins) {
    const end = jn.at + jn.sep.length;
    const run = runs.find((r) => (jn.sep ? r.o <= jn.at && end <= r.o + r.len : r.o < jn.at && jn.at < r.o + r.len) && r.len - jn.sep.length >= 2);
    if (!run) return null;
    const at = run.n + (jn.at - run.o);
    if (at < from) return null;
    out += line.slice(from, at) + '\n' + jn.indent;
    from = at + jn.sep.length;
  }
  return out + line.slice(from);
}

/**
 * Maps positions of the squeezed text back to the file, walking forward only: the hits come
 * in order, so the whole walk is one pass over the file however many there are.
 */
function originOf(text: string): (pos: number) => number {
  let at = 0;
  let kept = 0;
  return (pos) => {
    for (; at < text.length; at++) {
      const ch = text[at];
      if (ch === ' ' || ch === '\t' || ch === '\n') continue;
      if (kept === pos) return at;
      kept++;
    }
    return text.length;
  };
}
