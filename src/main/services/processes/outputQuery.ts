// Reading a process's output by range: the newest bytes from the ring buffer, older ones from
// the log on disk. `tail` walks back from the end a chunk at a time, so the last lines of a
// 100 MB log cost what those lines cost; `grep` streams the range once.
import { StringDecoder } from 'node:string_decoder';
import { stripAnsi } from '../shell/ansi';
import type { OutputLog } from './outputLog';
import type { RingBuffer } from './ringBuffer';

export interface OutputStore {
  ring: RingBuffer;
  log: OutputLog | null;
}

export interface OutputQuery {
  /** Absolute byte offset to start from (0: the beginning). */
  from: number;
  /** Only the last N lines of the range (of the matching lines, with grep). */
  tail?: number;
  grep?: RegExp;
  /** At most this many bytes of text come back; the newest are kept. */
  maxBytes: number;
}

export interface OutputSlice {
  text: string;
  /** Where the returned text starts, and the offset the next read continues from. */
  from: number;
  to: number;
  /** Bytes of the range left out: before the tail, or the oldest ones past maxBytes (matching lines, with grep). */
  omitted: number;
  /** Bytes of the range no longer kept anywhere (a log that stopped at its cap or could not be written). */
  lost: number;
}

const CHUNK = 256 * 1024;

/** Bytes [from, to) from wherever they are still kept; `lost` counts the ones that are nowhere. */
export function readRange(store: OutputStore, from: number, to: number): { bytes: Buffer; lost: number } {
  const ringStart = store.ring.start;
  const parts: Buffer[] = [];
  let lost = 0;
  if (from < ringStart) {
    const upTo = Math.min(to, ringStart);
    const old = store.log ? store.log.read(from, upTo) : Buffer.alloc(0);
    parts.push(old);
    lost += upTo - from - old.length;
  }
  if (to > ringStart) parts.push(store.ring.read(Math.max(from, ringStart), to));
  return { bytes: parts.length === 1 ? parts[0]! : Buffer.concat(parts), lost };
}

/** The offset where the last `lines` lines of [from, to) begin (a last line without newline counts). */
export function tailStart(store: OutputStore, from: number, to: number, lines: number): number {
  if (lines <= 0) return to;
  let pos = to;
  let seen = 0;
  let first = true;
  while (pos > from) {
    const a = Math.max(from, pos - CHUNK);
    const { bytes } = readRange(store, a, pos);
    for (let i = bytes.length - 1; i >= 0; i--) {
      if (bytes[i] !== 0x0a) {
        first = false;
        continue;
      }
      // The newline that ends the range closes the last line; it does not start one.
      if (first && a + i === to - 1) {
        first = false;
        continue;
      }
      if (++seen === lines) return a + i + 1;
    }
    pos = a;
  }
  return from;
}

export function queryOutput(store: OutputStore, end: number, q: OutputQuery): OutputSlice {
  const from = Math.min(Math.max(0, q.from), end);
  if (q.grep) return grepRange(store, from, end, q);
  const start = q.tail !== undefined ? tailStart(store, from, end, q.tail) : from;
  const { bytes, lost } = readRange(store, start, end);
  let keep = bytes;
  if (keep.length > q.maxBytes) {
    keep = keep.subarray(keep.length - q.maxBytes);
    const nl = keep.indexOf(0x0a);
    if (nl >= 0 && nl < keep.length - 1) keep = keep.subarray(nl + 1);
  }
  return { text: stripAnsi(keep.toString('utf8')), from: end - keep.length, to: end, omitted: bytes.length - keep.length + (start - from), lost };
}

function grepRange(store: OutputStore, from: number, end: number, q: OutputQuery): OutputSlice {
  const hits: string[] = [];
  let bytes = 0;
  let lost = 0;
  let carry = '';
  let dropped = 0;
  const decoder = new StringDecoder('utf8');
  const limit = q.tail ?? Infinity;
  const take = (line: string) => {
    const plain = stripAnsi(line);
    q.grep!.lastIndex = 0;
    if (!q.grep!.test(plain)) return;
    hits.push(plain);
    bytes += Buffer.byteLength(plain) + 1;
    while (hits.length > limit || (bytes > q.maxBytes && hits.length > 1)) {
      const n = Buffer.byteLength(hits.shift()!) + 1;
      bytes -= n;
      dropped += n;
    }
  };
  for (let pos = from; pos < end; pos += CHUNK) {
    const r = readRange(store, pos, Math.min(end, pos + CHUNK));
    lost += r.lost;
    const lines = (carry + decoder.write(r.bytes)).split('\n');
    carry = lines.pop()!;
    for (const line of lines) take(line);
  }
  if (carry) take(carry);
  const text = hits.join('\n') + (hits.length ? '\n' : '');
  return { text, from, to: end, omitted: dropped, lost };
}
