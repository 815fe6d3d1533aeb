// Append-only JSON lines. A crash mid-append can leave one torn last line: readers skip
// lines that do not parse, and the next append repairs the tail before writing. The log sits
// in a folder a cloned repository may have shipped, so it is opened only through real folders
// and never through a link (safeOpen): `root` is the folder it must stay inside.
import { constants as C } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { openInside, readInside } from '../files/safeOpen';
import { FileNotFoundError } from '../../errors';

export function appendJsonLine(root: string, file: string, value: unknown): Promise<void> {
  return appendJsonLines(root, file, [value]);
}

/** Several lines in one write and one fsync: a torn write leaves at most the last one torn. */
export async function appendJsonLines(root: string, file: string, values: readonly unknown[]): Promise<void> {
  const opened = await openInside(root, file, C.O_RDWR | C.O_APPEND | C.O_CREAT, { fileMode: 0o644 });
  if (!opened) throw new FileNotFoundError(file);
  const { fh } = opened;
  try {
    await repairTornTail(fh);
    await fh.write(values.map((v) => JSON.stringify(v) + '\n').join(''));
    await fh.datasync();
  } finally {
    await fh.close();
  }
}

/**
 * A tail without its newline is a crash mid-append. If it parses, the entry was complete and
 * only the newline is missing; otherwise it was never acknowledged and is cut off, so the log
 * never holds more than one torn line (its last).
 */
async function repairTornTail(fh: FileHandle): Promise<void> {
  const { size } = await fh.stat();
  if (size === 0) return;
  const last = Buffer.alloc(1);
  await fh.read(last, 0, 1, size - 1);
  if (last[0] === 0x0a) return;
  const window = Math.min(size, 1024 * 1024);
  const buf = Buffer.alloc(window);
  await fh.read(buf, 0, window, size - window);
  const lastNl = buf.lastIndexOf(0x0a);
  const tail = buf.subarray(lastNl + 1).toString('utf8');
  if (parseObject(tail)) await fh.write('\n');
  else await fh.truncate(size - window + lastNl + 1);
}

function parseObject(line: string): object | null {
  try {
    const v = JSON.parse(line) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

export interface JsonLines<T> {
  entries: T[];
  /** Lines that did not parse (a torn tail after a crash). */
  skipped: number;
}

export async function readJsonLines<T = Record<string, unknown>>(root: string, file: string): Promise<JsonLines<T>> {
  const read = await readInside(root, file);
  if (!read) return { entries: [], skipped: 0 };
  return parseJsonLines<T>(read.buf.toString('utf8'));
}

export function parseJsonLines<T>(text: string): JsonLines<T> {
  const entries: T[] = [];
  let skipped = 0;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const v = parseObject(line);
    if (v) entries.push(v as T);
    else skipped++;
  }
  return { entries, skipped };
}

/** The last `bytes` of the file as JSON lines (the first, partial line dropped). */
export async function readTailJsonLines<T>(root: string, file: string, bytes = 64 * 1024): Promise<T[]> {
  const opened = await openInside(root, file);
  if (!opened) return [];
  const { fh } = opened;
  try {
    const { size } = opened.st;
    const start = Math.max(0, size - bytes);
    const buf = Buffer.alloc(size - start);
    await fh.read(buf, 0, buf.length, start);
    let text = buf.toString('utf8');
    if (start > 0) text = text.slice(text.indexOf('\n') + 1);
    return parseJsonLines<T>(text).entries;
  } finally {
    await fh.close();
  }
}
