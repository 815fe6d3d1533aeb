// Matching happens in one canonical form (no BOM, LF line breaks); the edit is then spliced
// into the original text, so BOM, CRLF (even mixed line endings) and the final newline stay
// exactly as they were wherever the edit did not touch.

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

/**
 * Applies canonical-offset splices to the original text. A replacement's line breaks take the
 * form of the line break ending the first line it touches, so a CRLF region stays CRLF even
 * in a file that mixes both. Splices must be sorted and must not overlap.
 */
export function spliceOriginal(c: Canonical, splices: Splice[]): string {
  const crlf = new Set(c.crlfAt);
  const rawAt = (pos: number) => pos + lowerBound(c.crlfAt, pos);
  const body: string[] = [];
  let rawFrom = 0;
  const rawBody = restore(c);
  for (const s of splices) {
    const nextLf = c.text.indexOf('\n', s.start);
    const eol = nextLf === -1 ? c.eol : crlf.has(nextLf) ? '\r\n' : '\n';
    body.push(rawBody.slice(rawFrom, rawAt(s.start)));
    body.push(eol === '\n' ? s.replacement : s.replacement.split('\n').join('\r\n'));
    rawFrom = rawAt(s.end);
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
