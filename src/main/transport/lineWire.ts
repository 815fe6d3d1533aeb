// A Wire over a byte stream (a Unix socket, a child's stdio): one JSON text per line. JSON.stringify
// never writes a raw newline, so a line is a message; a line longer than the limit ends the
// connection, as an over-size WebSocket message does.
import type { Duplex, Readable, Writable } from 'node:stream';
import type { Wire } from './wire';

export const MAX_LINE_BYTES = 16 * 1024 * 1024 + 1024;

/** Splits a byte stream into lines without holding more than `max` bytes of an unfinished one. */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;

  constructor(private readonly max = MAX_LINE_BYTES) {}

  /** The complete lines in `chunk` (with what came before); throws when a line passes the limit. */
  push(chunk: Buffer): string[] {
    const lines: string[] = [];
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      if (nl === -1) break;
      const piece = chunk.subarray(start, nl);
      if (this.size + piece.length > this.max) throw new Error(`a message longer than ${this.max} bytes`);
      this.parts.push(piece);
      const line = Buffer.concat(this.parts).toString('utf8');
      this.parts = [];
      this.size = 0;
      if (line) lines.push(line);
      start = nl + 1;
    }
    const rest = chunk.subarray(start);
    if (rest.length) {
      if (this.size + rest.length > this.max) throw new Error(`a message longer than ${this.max} bytes`);
      // Copied: the stream may reuse the chunk's memory.
      this.parts.push(Buffer.from(rest));
      this.size += rest.length;
    }
    return lines;
  }
}

/** One line per message, both ways, over a duplex stream (or a readable and a writable). */
export function lineWire(input: Readable, output: Writable = input as unknown as Duplex): Wire {
  const splitter = new LineSplitter();
  const messageListeners: ((text: string) => void)[] = [];
  const closeListeners: (() => void)[] = [];
  let open = true;
  const close = () => {
    if (!open) return;
    open = false;
    for (const l of closeListeners) l();
  };
  input.on('data', (chunk: Buffer) => {
    if (!open) return;
    let lines: string[];
    try {
      lines = splitter.push(chunk);
    } catch {
      wire.terminate();
      return;
    }
    for (const line of lines) for (const l of messageListeners) l(line);
  });
  input.on('end', close);
  input.on('close', close);
  input.on('error', close);
  output.on('error', close);
  output.on('close', close);
  const wire: Wire = {
    send(text) {
      if (!open || output.writableEnded || output.destroyed) return;
      output.write(`${text}\n`);
    },
    bufferedBytes: () => output.writableLength,
    pause: () => void input.pause(),
    resume: () => void input.resume(),
    isOpen: () => open,
    terminate() {
      input.destroy();
      if (output !== (input as unknown)) output.destroy();
      close();
    },
    onMessage: (l) => void messageListeners.push(l),
    onClose: (l) => void closeListeners.push(l),
  };
  return wire;
}
