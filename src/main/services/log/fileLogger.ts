// The user's log file: JSON lines, owner-only, rotated by size. Written synchronously, so the
// stack of a crash is on disk before the process that hit it goes away; every line opens the
// file anew, so another Loupe process (the app, `loupe mcp`) rotating it meanwhile loses nothing.
import { chmodSync, closeSync, constants, fstatSync, fchmodSync, mkdirSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import { jsonLine, recordLogger, type LogRecord, type Logger } from './logger';

export const LOG_FILE_NAME = 'loupe.log';

/** Where the user's log lives: one file per user, beside settings.json. */
export function logFilePath(configDir: string): string {
  return path.join(configDir, 'logs', LOG_FILE_NAME);
}

export interface FileLoggerOptions {
  /** A file grows to this size before it is rotated. */
  maxBytes?: number;
  /** How many files are kept in all: the live one and maxFiles - 1 older ones (`.1` newest). */
  maxFiles?: number;
}

export const DEFAULT_MAX_BYTES = 5 * 1024 * 1024;
export const DEFAULT_MAX_FILES = 3;

const OPEN_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0);

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

function rotate(file: string, maxFiles: number): void {
  if (maxFiles === 1) return void rmSync(file, { force: true }); // no older file is kept: start afresh
  for (let i = maxFiles - 1; i >= 1; i--) {
    const from = i === 1 ? file : `${file}.${i - 1}`;
    try {
      renameSync(from, `${file}.${i}`); // the oldest is replaced, so it drops out
    } catch {
      // a missing older file, or another process rotated first
    }
  }
}

function appendLine(file: string, line: string): void {
  const fd = openSync(file, OPEN_FLAGS, 0o600);
  try {
    // A file made before by a wider umask, or by hand, is narrowed: logs hold paths and commands.
    if ((fstatSync(fd).mode & 0o777) !== 0o600) fchmodSync(fd, 0o600);
    const bytes = Buffer.from(line);
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off);
  } finally {
    closeSync(fd);
  }
}

/** A logger that writes to `file`, creating its folder owner-only. */
export function fileLogger(file: string, opts: FileLoggerOptions = {}): Logger {
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  const maxFiles = Math.max(1, opts.maxFiles ?? DEFAULT_MAX_FILES);
  let dirReady = false;
  return recordLogger((record: LogRecord) => {
    if (!dirReady) {
      const dir = path.dirname(file);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      try {
        chmodSync(dir, 0o700);
      } catch {
        // not ours to narrow (a shared folder): the file itself is still owner-only
      }
      dirReady = true;
    }
    const line = jsonLine(record);
    const size = sizeOf(file);
    if (size > 0 && size + Buffer.byteLength(line) > maxBytes) rotate(file, maxFiles);
    appendLine(file, line);
  });
}
