// A background process's whole output on disk, under `.loupe/outputs/processes/`, reached the
// way every file Loupe keeps for itself is (real folders only, no link followed, a regular file
// or nothing; see files/safeOpen.ts). Written as the output arrives and read back by offset, so
// `process_output` can reach bytes the ring buffer no longer holds.
import { closeSync, constants as C, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import path from 'node:path';
import { UnsafePathError } from '../files/errors';
import { holdDir, O_NOFOLLOW, O_NONBLOCK } from '../files/safeOpen';
import { pruneOutputs, type PruneLimits } from '../shell/outputPrune';

/** One log stops growing here; what follows is counted but not kept (a runaway must not fill the disk). */
export const MAX_PROCESS_LOG_BYTES = 1024 * 1024 * 1024;
/** The processes folder keeps this much; running logs are written continuously, so they are the newest. */
const PROCESS_LOGS: PruneLimits = { maxFiles: 50, maxBytes: 2 * 1024 * 1024 * 1024, maxAgeMs: 7 * 24 * 3600 * 1000 };

export class OutputLog {
  private written = 0;
  truncated = false;

  private constructor(
    readonly file: string,
    private fd: number | null,
    private readonly cap: number,
  ) {}

  /** Creates the log; null when it cannot be (the output then lives in memory only). */
  static create(root: string, dir: string, name: string, cap = MAX_PROCESS_LOG_BYTES): OutputLog | null {
    try {
      const held = holdDir(root, dir, { create: true })!;
      let fd: number;
      try {
        fd = openSync(held.at(name), C.O_RDWR | C.O_CREAT | C.O_TRUNC | O_NOFOLLOW | O_NONBLOCK, 0o600);
      } finally {
        held.close();
      }
      if (!fstatSync(fd).isFile()) {
        closeSync(fd);
        throw new UnsafePathError(path.join(dir, name), 'is not a regular file');
      }
      void pruneOutputs(dir, path.join(dir, name), PROCESS_LOGS, undefined, root).catch(() => undefined);
      return new OutputLog(path.join(dir, name), fd, cap);
    } catch {
      return null;
    }
  }

  /** Bytes on disk: offsets below this can be read back. */
  get size(): number {
    return this.written;
  }

  append(chunk: Buffer): void {
    if (this.fd === null || this.truncated) return;
    const room = this.cap - this.written;
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    try {
      writeSync(this.fd, part, 0, part.length, this.written);
      this.written += part.length;
    } catch {
      // A full disk: keep what is there, stop writing.
      this.truncated = true;
      return;
    }
    if (part.length < chunk.length) this.truncated = true;
  }

  /** Bytes [from, to) as written; shorter when the log stopped early. */
  read(from: number, to: number): Buffer {
    to = Math.min(to, this.written);
    if (this.fd === null || to <= from) return Buffer.alloc(0);
    const out = Buffer.allocUnsafe(to - from);
    let got = 0;
    while (got < out.length) {
      const n = readSync(this.fd, out, got, out.length - got, from + got);
      if (n <= 0) break;
      got += n;
    }
    return out.subarray(0, got);
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}
