// Loading a workspace file for the tools: one place for the size cap, binary sniffing and
// strict UTF-8, so read and edit agree on what counts as text. The bytes come through one
// handle opened via real folders (safeOpen): what was checked is what is returned.
import { lstat, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import path from 'node:path';
import { FileNotFoundError, LoupeError } from '../../errors';
import { BinaryFileError, FileReadError, FileTooLargeError, NotAFileError } from './errors';
import { sha256 } from './hash';
import { readInside } from './safeOpen';

export const MAX_FILE_BYTES = 10 * 1024 * 1024;
const SNIFF_BYTES = 8192;
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export interface LoadedFile {
  buf: Buffer;
  /** Decoded text, BOM included. */
  text: string;
  hash: string;
  mode: number;
}

/** A NUL byte in the first 8 KB is how git and ripgrep decide a file is binary. */
export function looksBinary(buf: Buffer): boolean {
  return buf.subarray(0, SNIFF_BYTES).includes(0);
}

/** Strict decoding: a file that is not valid UTF-8 would be corrupted by a text round trip. */
export function decodeUtf8(buf: Buffer): string | null {
  try {
    return utf8.decode(buf);
  } catch {
    return null;
  }
}

/** stat that maps "missing" to null and other failures to named errors. */
export async function statFile(abs: string, rel: string): Promise<Stats | null> {
  try {
    const st = await stat(abs);
    if (st.isDirectory()) throw new NotAFileError(rel);
    if (!st.isFile()) throw new NotAFileError(rel, 'not a regular file');
    return st;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    if (code === 'EACCES' || code === 'EPERM') throw new FileReadError(rel, code);
    throw err;
  }
}

export async function isSymlink(abs: string): Promise<boolean> {
  try {
    return (await lstat(abs)).isSymbolicLink();
  } catch {
    return false;
  }
}

export interface LoadOptions {
  maxBytes?: number;
  /** Decode even when the bytes are not valid UTF-8 (for display only). */
  lossy?: boolean;
  /** The workspace the file must be reached inside (default: the file's own folder). */
  root?: string;
}

/** Reads a regular file as text; throws FILE_NOT_FOUND, FILE_TOO_LARGE, BINARY_FILE… */
export async function loadTextFile(abs: string, rel: string, opts: LoadOptions = {}): Promise<LoadedFile> {
  const max = opts.maxBytes ?? MAX_FILE_BYTES;
  let read;
  try {
    read = await readInside(opts.root ?? path.dirname(abs), abs, { maxBytes: max, rel });
  } catch (err) {
    if (err instanceof LoupeError) throw err;
    throw new FileReadError(rel, (err as NodeJS.ErrnoException).code ?? (err as Error).message);
  }
  if (!read) throw new FileNotFoundError(rel);
  const { buf, st } = read;
  if (buf.length > max) throw new FileTooLargeError(rel, buf.length, max);
  if (looksBinary(buf)) throw new BinaryFileError(rel);
  const text = decodeUtf8(buf) ?? (opts.lossy ? buf.toString('utf8') : null);
  if (text === null) throw new BinaryFileError(rel, 'is not valid UTF-8 text');
  return { buf, text, hash: sha256(buf), mode: st.mode & 0o7777 };
}
