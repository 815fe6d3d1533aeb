// Step 6g: a statement the file breaks over two or three lines, written on one line in old_str
// ("f(a,\n      b)" sent as "f(a, b)" or "f(a,b)"). Each line of old_str stands for one line
// of the file or for a few joined: the line break and the blanks around it become one space
// or nothing, and everything else must match exactly. new_str gets the file's own lines
// wherever it repeats a joined line, and a line it rewrites is broken where the file breaks
// it, when the text around each break is text new_str kept; when it is not, this reading
// gives up rather than decide where the file's line breaks went.
import { diffChars } from 'diff';
import { alignLines } from '../../../services/modlog/lineAlign';
import { findAll } from '../lines';
import { NONE, anchored, countAccepted, judge, type EditInput, type Range, type Strategy } from '../types';
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

/** The ways old_str fits the file from line index j on (0-based), at most MAX_FITS + 1 of them. */
function fitsAt(c: Ctx, j: number): Fit[] {
  const out: Fit[] = [];
  const walk = (i: number, line: number, groups: Group[], joins: number) => {
    if (out.length > MAX_FITS) return;
    if (i === c.oldLines.length) {
      if (joins > 0) out.push({ range: { start: groups[0].from, end: groups[groups.length - 1].to }, groups });
      return;
    }
    for (const { r, ...g } of groupFits(c, i, line)) walk(i + 1, line + r + 1, [...groups, g], joins + r);
  };
  walk(0, j, [], 0);
  return out;
}

export const joinedLines: Strategy = {
  name: 'joined-lines',
  locate(input) {
    const oldLines = input.oldStr.split('\n');
    const needle = squeeze(input.oldStr);
    if (!oldLines[0].trim() || !needle) return NONE;
    const skeleton = squeeze(input.text);
    if (!skeleton.includes(needle)) return NONE;
    const c: Ctx = { input, oldLines, count: input.lines.lineCount + (input.text.endsWith('\n') ? 1 : 0) };
    const places = new Map<number, Fit>();
    const seen = new Set<number>();
    let ambiguous = false;
    const origin = originOf(input.text);
    for (let s = skeleton.indexOf(needle); s !== -1; s = skeleton.indexOf(needle, s + 1)) {
      // old_str's first line has text, so its first character is on the line the match starts on.
      const j = input.lines.lineAt(origin(s)) - 1;
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
    const newLines = input.newStr.split('\n');
    if (accepted && found.some((f) => rejoin(input.text, oldLines, newLines, f) === null)) return NONE;
    return judge(input, {
      strategy: 'joined-lines',
      ranges: found.map((f) => f.range),
      newStr: input.newStr,
      correctedOld: found.length ? input.text.slice(found[0].range.start, found[0].range.end) : undefined,
      needle: found.length ? input.text.slice(found[0].range.start, found[0].range.end) : input.oldStr,
      // A line R4 later rewrites so that its breaks cannot be placed is written as given.
      render: (n) => found.map((f) => rejoin(input.text, oldLines, n.split('\n'), f) ?? n),
    });
  },
};

/**
 * new_str with each line that repeats a line of old_str replaced by the file text it stood
 * for, and each line that rewrites a joined one broken where the file breaks it; null when
 * such a break cannot be placed.
 */
function rejoin(text: string, oldLines: string[], newLines: string[], f: Fit): string | null {
  const out: string[] = [];
  for (const [j, o] of alignLines(oldLines, newLines).entries()) {
    if (o.kind === 'inserted') {
      out.push(newLines[j]);
      continue;
    }
    const g = f.groups[o.from];
    const line = o.kind === 'equal' ? text.slice(g.from, g.to) : g.joins.length ? splitLike(oldLines[o.from], newLines[j], g.joins) : newLines[j];
    if (line === null) return null;
    out.push(line);
  }
  return out.join('\n');
}

/** `line` (a rewrite of `old`) broken at old's joins, each placed through text both share. */
function splitLike(old: string, line: string, joins: Join[]): string | null {
  // Where each position of `old` lands in `line`, from the runs of text they share.
  const runs: { o: number; n: number; len: number }[] = [];
  let o = 0;
  let n = 0;
  for (const p of diffChars(old, line)) {
    const len = p.value.length;
    if (!p.added && !p.removed) runs.push({ o, n, len });
    if (!p.added) o += len;
    if (!p.removed) n += len;
  }
  const place = (pos: number): number | null => {
    const at = new Set(runs.filter((r) => pos >= r.o && pos <= r.o + r.len).map((r) => r.n + (pos - r.o)));
    return at.size === 1 ? [...at][0] : null;
  };
  let out = '';
  let from = 0;
  for (const jn of joins) {
    const start = place(jn.at);
    const end = place(jn.at + jn.sep.length);
    if (start === null || end === null || end - start !== jn.sep.length || start < from) return null;
    out += line.slice(from, start) + '\n' + jn.indent;
    from = end;
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
