// The viewer's read (file.read): one handle opened through real folders, checked to be a
// regular file without blocking, so a FIFO or a link swapped in is an error, never a hang.
import { constants as C } from 'node:fs';
import type { FileContent } from '../../../shared/contract';
import { FileNotFoundError } from '../../errors';
import { openInside } from '../files/safeOpen';
import { decodeUtf8 } from '../files/textFile';
import { languageOf } from './language';

export const MAX_VIEW_BYTES = 10 * 1024 * 1024;
const SNIFF_BYTES = 8192;

/** A NUL byte in the first 8 KB is how git and ripgrep decide a file is binary. */
export function looksBinary(head: Buffer): boolean {
  return head.subarray(0, SNIFF_BYTES).includes(0);
}

export async function readForViewer(root: string, abs: string, rel: string, maxBytes = MAX_VIEW_BYTES): Promise<FileContent> {
  const opened = await openInside(root, abs, C.O_RDONLY, { rel });
  if (!opened) throw new FileNotFoundError(rel);
  const { fh, st } = opened;
  try {
    const base = { path: rel, size: st.size, language: languageOf(rel) };
    if (st.size > maxBytes) return { ...base, binary: false, tooLarge: true };
    const buf = await fh.readFile();
    if (looksBinary(buf)) return { ...base, binary: true, tooLarge: false };
    // Shown either way; a save would turn bytes that are not UTF-8 into replacement characters.
    const text = decodeUtf8(buf);
    if (text === null) return { ...base, binary: false, tooLarge: false, content: buf.toString('utf8'), read_only: 'not UTF-8 text: saving would change its bytes' };
    return { ...base, binary: false, tooLarge: false, content: text };
  } finally {
    await fh.close();
  }
}
