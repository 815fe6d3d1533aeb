// Step 6g: a statement the file breaks over two or three lines, written on one line in old_str
// ("f(a,\n      b)" sent as "f(a, b)" or "f(a,b)"). Each line of old_str stands for one line
// of the file or for a few joined: the line break and the blanks around it become one space
// or nothing, and everything else must match exactly. The reading is that map, and new_str
// goes through it line by line: a line it repeats is the file's text; a rewrite of a joined
// line is broken where the file breaks it, each piece on the file's line with the file's
// indentation (a piece left as it was keeps the file's bytes). The file breaks after certain
// characters (a `;`, a `,`): a line of new_str with more such places than the line it
// rewrites, a new line with any, or a rewrite whose breaks cannot be placed says nothing
// certain about where the file would break it, and the edit is refused rather than written
// half split.
import { alignLines, type Origin } from '../../../services/modlog/lineAlign';
import { opsOf, reversed, type Op } from '../charDiff';
import { findAll } from '../lines';
import { NONE, Unmapped, anchored, countAccepted, judge, shared, type EditInput, type Range, type Strategy } from '../types';
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
  /** The first file line it stands for (0-based). */
  line: number;
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
        if (from !== null && to !== null) yield { r, line: j, from, to, joins };
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
      render: (n) => {
        const out: string[] = [];
        for (const f of found) {
          const one = rejoin(c, oldLines, n.split('\n'), f);
          if (one instanceof Unmapped) return one;
          out.push(one);
        }
        return out;
      },
    });
  },
};

/**
 * new_str through the fit's map, line by line: a line that repeats a line of old_str is the
 * file text it stood for, a rewrite is broken where the file breaks the line it rewrites, and
 * a line the map cannot place is Unmapped.
 */
function rejoin(c: Ctx, oldLines: string[], newLines: string[], f: Fit): string | Unmapped {
  // The characters the file breaks a line after, here: the last one before each join, and
  // whether the join glued two word characters (then a break sits inside what looks a word).
  const tails = new Map<string, boolean>();
  f.groups.forEach((g, i) => {
    for (const jn of g.joins) {
      const t = oldLines[i][jn.at - 1];
      const glued = !jn.sep && WORD.test(t) && WORD.test(oldLines[i][jn.at] ?? '');
      tails.set(t, tails.get(t) || glued);
    }
  });
  const shown = [...tails.keys()].map((t) => JSON.stringify(t)).join(' or ');
  const out: string[] = [];
  const origins = alignLines(oldLines, newLines);
  const unsure = unsurePairs(origins, oldLines.length);
  for (let j = 0; j < newLines.length; j++) {
    const o = origins[j];
    const line = newLines[j];
    const hunk = unsure[j];
    if (hunk?.olds.some((i) => f.groups[i].joins.length)) {
      const fewer = hunk.olds.length > hunk.news ? 'fewer' : 'more';
      if (breaksIn(line, tails)) return new Unmapped(j, line, `new_str has ${fewer} lines than old_str here, so which line of old_str it rewrites is not clear; one of those the file breaks over several lines, and this one has text after ${shown} too`);
      // Nothing in it that the file breaks after: whichever line it rewrites, it stays one line.
      out.push(line);
      continue;
    }
    if (o.kind === 'inserted') {
      if (breaksIn(line, tails)) return new Unmapped(j, line, `it is a new line with text after ${shown}, where the file breaks its lines here, so whether the file would break it is not clear`);
      out.push(line);
      continue;
    }
    const g = f.groups[o.from];
    if (o.kind === 'equal') {
      out.push(c.input.text.slice(g.from, g.to));
      continue;
    }
    const old = oldLines[o.from];
    const more = breaksIn(line, tails) > breaksIn(old, tails);
    if (more) return new Unmapped(j, line, `it has text after ${shown} in more places than the line of old_str it rewrites, and the file breaks its lines there, so which of them the file would break is not clear`);
    if (!g.joins.length) {
      out.push(line);
      continue;
    }
    const at = splitLike(old, line, g.joins);
    if (at) out.push(pieces(c, g, old, line, at));
    // Nothing in it that the file breaks after: a statement the file would keep on one line.
    else if (!breaksIn(line, tails)) out.push(line);
    else return new Unmapped(j, line, `it rewrites a line the file breaks over ${g.joins.length + 1} lines, and where those breaks fall in it is not clear`);
  }
  return out.join('\n');
}

const WORD = /[\p{L}\p{N}_]/u;

/** A changed hunk: the old lines it removed and how many new lines stand in their place. */
interface Hunk {
  olds: number[];
  news: number;
}

/**
 * For each line of new_str in a changed hunk whose line count differs from old_str's there,
 * that hunk: pairing the k-th new line with the k-th old one is a guess there, and a rewrite
 * of a line the file breaks cannot rest on a guess. Other lines get null.
 */
function unsurePairs(origins: Origin[], oldCount: number): (Hunk | null)[] {
  const out: (Hunk | null)[] = origins.map(() => null);
  let prevOld = -1;
  let start = 0;
  const close = (end: number, nextOld: number) => {
    const hunk: Hunk = { olds: [], news: end - start };
    for (let i = prevOld + 1; i < nextOld; i++) hunk.olds.push(i);
    if (hunk.news && hunk.olds.length !== hunk.news) for (let j = start; j < end; j++) out[j] = hunk;
  };
  origins.forEach((o, j) => {
    if (o.kind !== 'equal') return;
    close(j, o.from);
    prevOld = o.from;
    start = j + 1;
  });
  close(origins.length, oldCount);
  return out;
}

/**
 * How many places `line` has text after one of `tails`: where the file could break it. Inside
 * a word only for a tail the file breaks inside a word.
 */
function breaksIn(line: string, tails: Map<string, boolean>): number {
  const last = contentEnd(line) - 1;
  let n = 0;
  for (let p = 0; p < last; p++) {
    const glued = tails.get(line[p]);
    if (glued === undefined) continue;
    if (glued || !(WORD.test(line[p]) && WORD.test(line[p + 1]))) n++;
  }
  return n;
}

/**
 * A rewrite of a joined line laid out as the file lays out the original: piece m on the m-th
 * file line, between the file's indentation and its trailing blanks; a piece new_str left as
 * it was is the file's bytes. `at` holds where each join's separator starts in `line`.
 */
function pieces(c: Ctx, g: Group, old: string, line: string, at: number[]): string {
  const { text, lines } = c.input;
  const r = g.joins.length;
  const oldCut = (m: number) => old.slice(m === 0 ? 0 : g.joins[m - 1].at + g.joins[m - 1].sep.length, m === r ? old.length : g.joins[m].at);
  const newCut = (m: number) => line.slice(m === 0 ? 0 : at[m - 1] + g.joins[m - 1].sep.length, m === r ? line.length : at[m]);
  const fileCut = (m: number) => {
    const start = lines.lineStart(g.line + m + 1);
    return text.slice(m === 0 ? g.from : start, m === r ? g.to : start + lineOf(c, g.line + m).length);
  };
  const out: string[] = [];
  for (let m = 0; m <= r; m++) {
    const piece = newCut(m);
    if (piece === oldCut(m)) {
      out.push(fileCut(m));
      continue;
    }
    // The blanks the file has before a break are part of the break old_str wrote as a separator.
    const file = m < r ? lineOf(c, g.line + m) : '';
    const trail = contentEnd(piece) === piece.length ? file.slice(contentEnd(file)) : '';
    out.push((m === 0 ? '' : g.joins[m - 1].indent) + piece + trail);
  }
  return out.join('\n');
}

/**
 * Where each join's separator starts in `line` (a rewrite of `old`), or null when that is not
 * clear: `line` must keep most of `old` or change it in one place; a separator that is a
 * space must be kept; one that is nothing must sit in kept text or beside a change wholly on
 * one side of it (text inserted right at it could belong to either line). Aligning the two
 * lines from their ends must give the same answer, or a repeated character decided it.
 */
function splitLike(old: string, line: string, joins: Join[]): number[] | null {
  const ahead = breakPositions(old, line, joins);
  if (!ahead) return null;
  const back = breakPositions(
    reversed(old),
    reversed(line),
    [...joins].reverse().map((jn) => ({ ...jn, at: old.length - jn.at - jn.sep.length })),
  );
  if (!back) return null;
  const fromEnd = back.reverse().map((p, m) => line.length - p - joins[m].sep.length);
  if (!ahead.every((p, m) => p === fromEnd[m])) return null;
  // A piece left with no text would be a line of nothing but the file's indentation.
  const ends = [0, ...ahead.flatMap((p, m) => [p, p + joins[m].sep.length]), line.length];
  for (let m = 0; m < ends.length; m += 2) if (!line.slice(ends[m], ends[m + 1]).trim()) return null;
  return ahead;
}

function breakPositions(old: string, line: string, joins: Join[]): number[] | null {
  const ops = opsOf(old, line);
  if (!ops) return null;
  // Text kept by chance inside a rewrite places nothing: most of old must be kept, or all of
  // it but one change (then what is kept is what comes before and after it).
  const changes = ops.filter((op) => !op.kept).length;
  if (changes > 1 && 2 * ops.reduce((sum, op) => sum + (op.kept ? op.oLen : 0), 0) < old.length) return null;
  const out: number[] = [];
  let from = 0;
  for (const jn of joins) {
    const at = placeBreak(ops, jn.at, jn.sep.length);
    if (at === null || at < from) return null;
    out.push(at);
    from = at + jn.sep.length;
  }
  return out;
}

/** Where old's separator at [at, at + len) lands in the new line, or null. */
function placeBreak(ops: Op[], at: number, len: number): number | null {
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i];
    if (!op.kept) continue;
    if (len > 0) {
      if (op.o <= at && at + len <= op.o + op.oLen) return op.n + (at - op.o);
      continue;
    }
    if (op.o < at && at < op.o + op.oLen) return op.n + (at - op.o);
    // At the edge of kept text: the change beside it must have replaced text of its own side.
    if (op.o + op.oLen === at && ops[i + 1] && ops[i + 1].oLen > 0) return op.n + op.nLen;
    if (op.o === at && ops[i - 1] && ops[i - 1].oLen > 0) return op.n;
  }
  return null;
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
