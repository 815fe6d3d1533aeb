// ripgrep's --json messages. Text that is not valid UTF-8 arrives base64 in a `bytes`
// field instead of `text`; both variants appear for paths and for lines.

export type RgData = { text: string } | { bytes: string };

export interface RgLineMessage {
  type: 'match' | 'context';
  data: {
    path: RgData;
    lines: RgData;
    line_number: number | null;
    submatches: { match: RgData; start: number; end: number }[];
  };
}

export type RgMessage = RgLineMessage | { type: 'begin' | 'end' | 'summary'; data: unknown };

/** Lossy UTF-8 text of either variant: a stray byte becomes U+FFFD instead of failing. */
export function rgText(d: RgData | undefined): string {
  if (!d) return '';
  if ('text' in d) return d.text;
  return Buffer.from(d.bytes, 'base64').toString('utf8');
}

const TYPE_HEAD = Buffer.from('{"type":"');
/** The record kinds by their first letter after TYPE_HEAD. */
const KINDS: Record<number, string> = { 0x6d: 'match', 0x63: 'context', 0x62: 'begin', 0x65: 'end' };

/**
 * The kind of a JSON record without parsing it or making a string of it (it runs on every
 * record, three per matching file): rg always writes `{"type":"…"` first.
 */
export function peekType(record: Buffer): string {
  // The summary record puts `data` first and so reads as '' here, which every caller skips.
  if (record.length <= TYPE_HEAD.length || record.compare(TYPE_HEAD, 0, TYPE_HEAD.length, 0, TYPE_HEAD.length) !== 0) return '';
  return KINDS[record[TYPE_HEAD.length]] ?? '';
}

const PATH_HEADS = { match: Buffer.from('{"type":"match","data":{"path":{"text":"'), context: Buffer.from('{"type":"context","data":{"path":{"text":"') };

/**
 * The path of a match (or context) record without parsing the rest (its lines, submatches):
 * rg writes the path first. null when it is not that shape (a `bytes` path), so the caller
 * parses it all.
 */
export function peekPath(record: Buffer, type: 'match' | 'context' = 'match'): string | null {
  const head = PATH_HEADS[type];
  if (record.length <= head.length || record.compare(head, 0, head.length, 0, head.length) !== 0) return null;
  // The string ends at the first quote not escaped by an odd run of backslashes.
  let escaped = false;
  for (let i = head.length; i < record.length; i++) {
    const c = record[i];
    if (c === 0x5c) {
      escaped = true;
      i++;
    } else if (c === 0x22) {
      // Most paths hold no escape: their bytes are the path.
      if (!escaped) return record.toString('utf8', head.length, i);
      try {
        return JSON.parse(record.subarray(head.length - 1, i + 1).toString('utf8')) as string;
      } catch {
        return null;
      }
    }
  }
  return null;
}

export function parseRecord(record: Buffer): RgMessage | null {
  try {
    return JSON.parse(record.toString('utf8')) as RgMessage;
  } catch {
    return null;
  }
}

const MAX_LINE_CHARS = 2000;

/** The first line of a match, as displayLines(d)[0] is, without splitting the rest. */
export function firstLine(d: RgData): string {
  const text = rgText(d);
  const nl = text.indexOf('\n');
  const line = nl === -1 ? text : text.slice(0, nl > 0 && text[nl - 1] === '\r' ? nl - 1 : nl);
  return line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}… [line cut at ${MAX_LINE_CHARS} chars]` : line;
}

/** One line of a match or context, without its newline, cut when absurdly long (minified code). */
export function displayLines(d: RgData): string[] {
  const text = rgText(d).replace(/\r?\n$/, '');
  return text.split(/\r?\n/).map((l) => (l.length > MAX_LINE_CHARS ? `${l.slice(0, MAX_LINE_CHARS)}… [line cut at ${MAX_LINE_CHARS} chars]` : l));
}
