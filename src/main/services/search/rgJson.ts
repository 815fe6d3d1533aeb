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

/** The kind of a JSON record without parsing it: rg always writes `{"type":"…"` first. */
export function peekType(record: Buffer): string {
  const head = record.subarray(0, 24).toString('latin1');
  // The summary record puts `data` first and so reads as '' here, which every caller skips.
  return /^\{"type":"(\w+)"/.exec(head)?.[1] ?? '';
}

const PATH_HEAD = Buffer.from('{"type":"match","data":{"path":{"text":"');

/**
 * The path of a match record without parsing the rest (its lines, submatches): rg writes the
 * path first. null when it is not that shape (a `bytes` path), so the caller parses it all.
 */
export function peekPath(record: Buffer): string | null {
  if (!record.subarray(0, PATH_HEAD.length).equals(PATH_HEAD)) return null;
  // The string ends at the first quote not escaped by an odd run of backslashes.
  for (let i = PATH_HEAD.length; i < record.length; i++) {
    const c = record[i];
    if (c === 0x5c) i++;
    else if (c === 0x22) {
      try {
        return JSON.parse(record.subarray(PATH_HEAD.length - 1, i + 1).toString('utf8')) as string;
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

/** One line of a match or context, without its newline, cut when absurdly long (minified code). */
export function displayLines(d: RgData): string[] {
  const text = rgText(d).replace(/\r?\n$/, '');
  return text.split(/\r?\n/).map((l) => (l.length > MAX_LINE_CHARS ? `${l.slice(0, MAX_LINE_CHARS)}… [line cut at ${MAX_LINE_CHARS} chars]` : l));
}
