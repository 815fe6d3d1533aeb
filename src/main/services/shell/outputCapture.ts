// A command's output in bounded memory: the first HEAD bytes and the last TAIL bytes are
// kept for the model; once the output outgrows them, all of it goes to a log file the model
// can read, itself capped so a runaway `yes` cannot fill the disk.
import { closeSync, constants as C, fstatSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import { stripAnsi } from './ansi';
import { UnsafePathError } from '../files/errors';
import { holdDir, O_NOFOLLOW, O_NONBLOCK } from '../files/safeOpen';
import { pruneOutputs } from './outputPrune';

export const HEAD_BYTES = 10 * 1024;
export const TAIL_BYTES = 20 * 1024;
export const MAX_LOG_BYTES = 64 * 1024 * 1024;

export interface CapturedOutput {
  /** ANSI-stripped text for the model: everything, or head + marker + tail. */
  text: string;
  totalBytes: number;
  truncated: boolean;
  /** NUL bytes seen: the output is not shown as text. */
  binary: boolean;
  /** The full output (up to MAX_LOG_BYTES) when it did not fit. */
  logFile: string | null;
  logTruncated: boolean;
}

export class OutputCapture {
  private head: Buffer[] = [];
  private headLen = 0;
  private tail: Buffer[] = [];
  private tailLen = 0;
  private total = 0;
  private binary = false;
  private fd: number | null = null;
  private logged = 0;
  private logTruncated = false;

  constructor(
    /** Where the full output goes if it has to: created on first need. */
    private readonly logPath: string | null,
    private readonly headBytes = HEAD_BYTES,
    private readonly tailBytes = TAIL_BYTES,
    /** The folder the log must stay inside, reached through real folders only (default: the log's parent's parent). */
    private readonly root = logPath ? path.dirname(path.dirname(logPath)) : '',
  ) {}

  push(chunk: Buffer): void {
    if (!this.binary && chunk.includes(0)) this.binary = true;
    this.total += chunk.length;
    if (this.headLen < this.headBytes) {
      const take = chunk.subarray(0, this.headBytes - this.headLen);
      this.head.push(take);
      this.headLen += take.length;
      chunk = chunk.subarray(take.length);
      if (!chunk.length) return;
    }
    if (this.fd === null && this.logPath && this.total > this.headBytes + this.tailBytes) this.openLog();
    this.log(chunk);
    this.tail.push(chunk);
    this.tailLen += chunk.length;
    while (this.tail.length > 1 && this.tailLen - this.tail[0].length >= this.tailBytes) this.tailLen -= this.tail.shift()!.length;
  }

  private openLog(): void {
    try {
      // .loupe/outputs may have come with a clone as a link out of the folder: never write through it.
      const dir = holdDir(this.root, path.dirname(this.logPath!), { create: true })!;
      let fd: number;
      try {
        fd = openSync(dir.at(path.basename(this.logPath!)), C.O_WRONLY | C.O_CREAT | C.O_TRUNC | O_NOFOLLOW | O_NONBLOCK, 0o600);
      } finally {
        dir.close();
      }
      if (!fstatSync(fd).isFile()) {
        closeSync(fd);
        throw new UnsafePathError(this.logPath!, 'is not a regular file');
      }
      this.fd = fd;
      void pruneOutputs(path.dirname(this.logPath!), this.logPath!, undefined, undefined, this.root).catch(() => undefined);
      this.log(Buffer.concat(this.head));
      this.log(Buffer.concat(this.tail));
    } catch {
      // No log then: the model still gets head and tail.
      this.fd = null;
    }
  }

  private log(buf: Buffer): void {
    if (this.fd === null || this.logTruncated) return;
    const room = MAX_LOG_BYTES - this.logged;
    const part = buf.length > room ? buf.subarray(0, room) : buf;
    writeSync(this.fd, part);
    this.logged += part.length;
    if (part.length < buf.length) this.logTruncated = true;
  }

  finish(): CapturedOutput {
    if (this.fd !== null) closeSync(this.fd);
    const head = Buffer.concat(this.head);
    const tailAll = Buffer.concat(this.tail);
    const truncated = this.total > head.length + tailAll.length || tailAll.length > this.tailBytes;
    const tail = tailAll.subarray(Math.max(0, tailAll.length - this.tailBytes));
    const base = { totalBytes: this.total, truncated, binary: this.binary, logFile: this.fd !== null ? this.logPath : null, logTruncated: this.logTruncated };
    if (this.binary) return { ...base, text: '' };
    if (!truncated) return { ...base, text: stripAnsi(Buffer.concat([head, tail]).toString('utf8')) };
    // Cut at line boundaries so neither side starts or ends mid-line (or mid-character).
    const headText = head.toString('utf8');
    const headCut = headText.lastIndexOf('\n');
    const tailText = tail.toString('utf8');
    const tailCut = tailText.indexOf('\n');
    const shownHead = headCut > 0 ? headText.slice(0, headCut + 1) : headText;
    const shownTail = tailCut >= 0 && tailCut < tailText.length - 1 ? tailText.slice(tailCut + 1) : tailText;
    const omitted = this.total - Buffer.byteLength(shownHead) - Buffer.byteLength(shownTail);
    return { ...base, text: `${stripAnsi(shownHead)}\n… ${omitted} bytes omitted …\n\n${stripAnsi(shownTail)}` };
  }
}
