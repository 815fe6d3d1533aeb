// A git index file read in this process, for the few paths a write is about to stage: the
// entries `git ls-files -s` would print for them, without starting git (a process and a read of
// the whole index: 36 ms at 10,000 files here, 190 ms at 100,000). Versions 2, 3 and 4. Whatever
// this reader cannot answer exactly as git would (a split or sparse index, an entry marked
// intent-to-add or skip-worktree, another hash, a file that does not parse to its end) is null,
// and the caller asks git.

export interface IndexFileEntry {
  /** Octal, as ls-files prints it: 100644, 100755, 120000, 160000. */
  mode: string;
  oid: string;
}

const SHA1 = 20;
/** Bytes before an entry's name: ten 32-bit stat fields, the object id, the flags. */
const FIXED = 40 + SHA1 + 2;
const EXTENDED = 0x4000;
/** Extended flags git's ls-files answers for otherwise (intent-to-add, skip-worktree). */
const SPECIAL = 0x6000;

/**
 * The stage-0 entries of `paths` (repository-relative, `/`-separated) in `buf`, an index file's
 * bytes; a path with no such entry is absent. Null when the answer might differ from git's.
 */
export function readIndexEntries(buf: Buffer, paths: ReadonlySet<string>): Map<string, IndexFileEntry> | null {
  if (buf.length < 12 + SHA1 || buf.toString('latin1', 0, 4) !== 'DIRC') return null;
  const version = buf.readUInt32BE(4);
  if (version < 2 || version > 4) return null;
  const count = buf.readUInt32BE(8);
  const end = buf.length - SHA1;
  const out = new Map<string, IndexFileEntry>();
  // Only names as long as a wanted one are decoded: 100,000 decodes would cost more than the parse.
  const lengths = new Set([...paths].map((p) => Buffer.byteLength(p)));
  let off = 12;
  let prev: Buffer = Buffer.alloc(0);
  for (let i = 0; i < count; i++) {
    const start = off;
    if (off + FIXED > end) return null;
    const flags = buf.readUInt16BE(off + 40 + SHA1);
    let p = off + FIXED;
    let extended = 0;
    if (flags & EXTENDED) {
      if (version < 3 || p + 2 > end) return null;
      extended = buf.readUInt16BE(p);
      p += 2;
    }
    let name: Buffer;
    if (version === 4) {
      // git's varint (varint.c): 7 bits a byte, each continuation adding one before the shift.
      let b = buf[p++];
      let strip = b & 0x7f;
      while (b & 0x80) {
        if (p >= end) return null;
        b = buf[p++];
        strip = ((strip + 1) << 7) + (b & 0x7f);
      }
      const nul = buf.indexOf(0, p);
      if (nul === -1 || nul >= end || strip > prev.length) return null;
      name = Buffer.concat([prev.subarray(0, prev.length - strip), buf.subarray(p, nul)]);
      off = nul + 1;
    } else {
      const len = flags & 0xfff;
      const nameEnd = len < 0xfff ? p + len : buf.indexOf(0, p + 0xfff);
      if (nameEnd === -1 || nameEnd >= end || buf[nameEnd] !== 0) return null;
      name = buf.subarray(p, nameEnd);
      // Padded with one to eight NULs to a multiple of eight bytes from the entry's start.
      off = start + ((nameEnd - start + 8) & ~7);
      if (off > end) return null;
    }
    prev = name;
    if (!lengths.has(name.length)) continue;
    const rel = name.toString('utf8');
    if (!paths.has(rel)) continue;
    if (extended & SPECIAL) return null;
    if ((flags >> 12) & 3) continue;
    out.set(rel, { mode: buf.readUInt32BE(start + 24).toString(8).padStart(6, '0'), oid: buf.toString('hex', start + 40, start + 40 + SHA1) });
  }
  // Extensions to the end: a split index keeps its entries elsewhere, a sparse one folds folders.
  while (off + 8 <= end) {
    const sig = buf.toString('latin1', off, off + 4);
    if (sig === 'link' || sig === 'sdir') return null;
    off += 8 + buf.readUInt32BE(off + 4);
  }
  return off === end ? out : null;
}
