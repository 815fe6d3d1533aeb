// Matching happens in one canonical form (no BOM, LF line breaks); the edit is then spliced
// into the original text, so BOM, CRLF (even mixed line endings) and the final newline stay
// exactly as they were wherever the edit did not touch.

import { alignLines, endingsFor } from '../../services/modlog/lineAlign';

const BOM = '\uFEFF';

export interface Canonical {
  /** BOM removed, every CRLF turned into LF. */
  text: string;
  bom: boolean;
  /** Canonical offsets of the LFs that were CRLF on disk, ascending. */
  crlfAt: number[];
  /** The file ended with a line break (LF or CRLF). */
  finalNewline: boolean;
  /** The line break a new line gets when nothing nearer decides: the file's majority. */
  eol: '\n' | '\r\n';
}

export const toLf = (s: string): string => s.split('\r\n').join('\n');

export function canonicalise(raw: string): Canonical {
  const bom = raw.startsWith(BOM);
  const body = bom ? raw.slice(1) : raw;
  const crlfAt: number[] = [];
  let text = '';
  let from = 0;
  let lfCount = 0;
  for (let i = body.indexOf('\n'); i !== -1; i = body.indexOf('\n', i + 1)) {
    lfCount++;
    if (i > 0 && body[i - 1] === '\r') {
      text += body.slice(from, i - 1);
      crlfAt.push(text.length);
      from = i;
    }
  }
  text += body.slice(from);
  const eol = crlfAt.length * 2 > lfCount ? '\r\n' : '\n';
  return { text, bom, crlfAt, finalNewline: text.endsWith('\n'), eol };
}

export interface Splice {
  start: number;
  end: number;
  replacement: string;
}

function lowerBound(xs: number[], v: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A run of whole lines of the canonical text, [from, to), and the splices inside it. */
interface Group {
  from: number;
  to: number;
  splices: Splice[];
}

/** Start of the line holding `pos`, and the end of that line including its LF. */
const lineStartAt = (text: string, pos: number) => (pos === 0 ? 0 : text.lastIndexOf('\n', pos - 1) + 1);
function lineEndAt(text: string, pos: number): number {
  const nl = text.indexOf('\n', pos);
  return nl === -1 ? text.length : nl + 1;
}

/** Splices gathered into runs of whole lines; splices sharing a line share a run. */
export function groupByLines(text: string, splices: Splice[]): Group[] {
  const groups: Group[] = [];
  for (const s of splices) {
    const from = lineStartAt(text, s.start);
    const to = lineEndAt(text, Math.max(s.start, s.end - 1));
    const last = groups[groups.length - 1];
    if (last && from < last.to) {
      last.to = Math.max(last.to, to);
      last.splices.push(s);
    } else groups.push({ from, to, splices: [s] });
  }
  return groups;
}

/** A run's new text: its lines with the splices applied. */
function groupAfter(text: string, g: Group): string {
  const out: string[] = [];
  let at = g.from;
  for (const s of g.splices) {
    out.push(text.slice(at, s.start), s.replacement);
    at = s.end;
  }
  out.push(text.slice(at, g.to));
  return out.join('');
}

/** Lines of `s` without their LFs, and whether the last one had an LF. */
function splitLines(s: string): { lines: string[]; lastEnded: boolean } {
  const lines = s.split('\n');
  const lastEnded = lines.length > 1 && lines[lines.length - 1] === '';
  if (lastEnded) lines.pop();
  return { lines, lastEnded };
}

/**
 * Applies canonical-offset splices to the original text, line by line: lines outside the
 * splices keep their bytes; within a splice's lines, an unchanged line keeps its own ending, a
 * changed line takes the ending of the line it replaces and an inserted line that of its
 * neighbour, so a file that mixes CRLF and LF keeps each line's own. Splices must be sorted and
 * must not overlap.
 */
export function spliceOriginal(c: Canonical, splices: Splice[]): string {
  const crlf = new Set(c.crlfAt);
  const eolAt = (lfAt: number) => (crlf.has(lfAt) ? '\r\n' : '\n');
  const rawAt = (pos: number) => pos + lowerBound(c.crlfAt, pos);
  const rawBody = restore(c);
  const body: string[] = [];
  let rawFrom = 0;
  for (const g of groupByLines(c.text, splices)) {
    body.push(rawBody.slice(rawFrom, rawAt(g.from)));
    const before = splitLines(c.text.slice(g.from, g.to));
    const oldEols: string[] = [];
    for (let i = 0, at = g.from; i < before.lines.length; i++) {
      at += before.lines[i].length;
      oldEols.push(at < c.text.length ? eolAt(at) : '');
      at++;
    }
    const after = splitLines(groupAfter(c.text, g));
    const fallback = g.from > 0 ? eolAt(g.from - 1) : c.eol;
    const eols = endingsFor(alignLines(before.lines, after.lines), oldEols, fallback);
    after.lines.forEach((line, j) => body.push(line, j < after.lines.length - 1 || after.lastEnded ? eols[j] : ''));
    rawFrom = rawAt(g.to);
  }
  body.push(rawBody.slice(rawFrom));
  let out = body.join('');
  const last = splices[splices.length - 1];
  if (last && out.length > 0) out = keepFinalNewline(out, c, last.end === c.text.length);
  return (c.bom ? BOM : '') + out;
}

/** The original text without its BOM. */
function restore(c: Canonical): string {
  if (c.crlfAt.length === 0) return c.text;
  const parts: string[] = [];
  let from = 0;
  for (const at of c.crlfAt) {
    parts.push(c.text.slice(from, at), '\r');
    from = at;
  }
  parts.push(c.text.slice(from));
  return parts.join('');
}

function keepFinalNewline(out: string, c: Canonical, touchedEnd: boolean): string {
  const endsWithBreak = out.endsWith('\n');
  if (c.finalNewline && !endsWithBreak) {
    const lastLf = c.text.length - 1;
    return out + (c.crlfAt.includes(lastLf) ? '\r\n' : '\n');
  }
  if (!c.finalNewline && endsWithBreak && touchedEnd) return out.slice(0, out.endsWith('\r\n') ? -2 : -1);
  return out;
}

/** Lines with their LFs (the last one may have none). */
const linesOf = (s: string): string[] => s.match(/[^\n]*\n|[^\n]+$/g) ?? [];

/**
 * `raw` (a file's text as on disk) turned into `edited` (the same text as an editor gives it
 * back: LF line breaks, no BOM) by one splice over the lines that differ, so every line the
 * person did not change keeps its bytes, a changed line keeps the ending of the line it
 * replaces, and the BOM stays. The final line break is the editor's: removing it is an edit.
 */
export function applyEditedText(raw: string, edited: string): string {
  const c = canonicalise(raw);
  const target = toLf(edited.startsWith(BOM) ? edited.slice(1) : edited);
  if (c.text === target) return raw;
  const a = linesOf(c.text);
  const b = linesOf(target);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  // A last line without its break is never shared with a line that has one: that is a change.
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const len = (xs: string[]) => xs.reduce((n, l) => n + l.length, 0);
  const start = len(a.slice(0, head));
  const end = c.text.length - len(a.slice(a.length - tail));
  const replacement = target.slice(start, target.length - len(b.slice(b.length - tail)));
  const out = spliceOriginal(c, [{ start, end, replacement }]);
  // spliceOriginal keeps the file's final line break as it was; here the editor decides it.
  const got = canonicalise(out).text;
  if (got + '\n' === target) {
    // The break goes back as that line had it, when the line is one the person left alone.
    const k = b.length - 1;
    const own = k < head ? (c.crlfAt.includes(len(a.slice(0, k + 1)) - 1) ? '\r\n' : '\n') : c.eol;
    return out + own;
  }
  if (got === target + '\n') return out.slice(0, out.endsWith('\r\n') ? -2 : -1);
  return out;
}
