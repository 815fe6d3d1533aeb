import { open, stat } from 'node:fs/promises';
import type { FileContent } from '../../../shared/contract';
import { InvalidArgumentError } from '../../errors';
import { languageOf } from './language';

export const MAX_VIEW_BYTES = 10 * 1024 * 1024;
const SNIFF_BYTES = 8192;

/** A NUL byte in the first 8 KB is how git and ripgrep decide a file is binary. */
export function looksBinary(head: Buffer): boolean {
  return head.subarray(0, SNIFF_BYTES).includes(0);
}

export async function readForViewer(abs: string, rel: string, maxBytes = MAX_VIEW_BYTES): Promise<FileContent> {
  const st = await stat(abs);
  if (!st.isFile()) throw new InvalidArgumentError(`${rel} is not a file.`);
  const base = { path: rel, size: st.size, language: languageOf(rel) };
  if (st.size > maxBytes) return { ...base, binary: false, tooLarge: true };
  const fh = await open(abs, 'r');
  try {
    const buf = await fh.readFile();
    if (looksBinary(buf)) return { ...base, binary: true, tooLarge: false };
    return { ...base, binary: false, tooLarge: false, content: buf.toString('utf8') };
  } finally {
    await fh.close();
  }
}
