// The checkpoint's bytes (docs/architecture.md, the modification log): a fixed header, then
// sections read as a query needs them, never the whole file: a fixed record per row, the rows
// of each file and of each correlation grouped (a filter reads its group's slice only), the
// status flags (a status filter reads a byte a row) and the ids in id order (a lookup is a
// binary search). Numbers are little-endian; columns are read as typed arrays in the
// platform's order, which is little-endian everywhere Loupe runs.
// Everything in it is untrusted input: the header is checked against the file's size here,
// and each value is checked where it is used (checkpointRows.ts).

const MAGIC = Buffer.from('LOUPEFLD', 'latin1');
export const VERSION = 5;
/** A row's fixed record (recOf). */
export const REC = 64;
/** At most this many rows: beyond it the log is folded instead (a forged count cannot allocate much). */
export const MAX_ROWS = 50_000_000;

export const FLAG_APPROVED = 1;
export const FLAG_ROLLED = 2;

export enum Section {
  Files,
  Corrs,
  Flags,
  Rec,
  Ids,
  Perm,
  Hunks,
  /** Rows grouped by file, oldest first within a group; FileStart[k] is where file k's begin. */
  FileRows,
  FileStart,
  /** The same for correlations; rows without one are in no group. */
  CorrRows,
  CorrStart,
  /** Group ids (a command's writes, an undo), and their rows grouped the same way. */
  Groups,
  GroupRows,
  GroupStart,
}
const SECTIONS = 14;
export const HEADER = MAGIC.length + 8 + 16 + 32 + SECTIONS * 16;

/** A whole checkpoint in memory (written by snapshot, read whole only to extend it). */
export interface CheckpointData {
  offset: number;
  ino: number;
  /** sha256 hex of the sampled prefix (prefixHash). */
  prefix: string;
  n: number;
  files: string[];
  corrs: string[];
  groups: string[];
  flags: Uint8Array;
  /** REC bytes per row (see recOf). */
  rec: Buffer;
  ids: Buffer;
  /** Rows ordered by their id's bytes: the id lookup's binary search. */
  perm: Uint32Array;
  /** [target row, hunk rollback row] pairs, in log order per target. */
  hunks: Uint32Array;
}

export interface Rec {
  /** Where its line sits in the log. */
  off: number;
  len: number;
  /** Its latest test results line; testsOff -1 when none. */
  testsOff: number;
  testsLen: number;
  /** Row of the rollback that reverses it, -1 for none. */
  rolledBy: number;
  /** Index into files. */
  file: number;
  /** Index into corrs, -1 for none. */
  corr: number;
  /** Its id is ids[idStart, idEnd). */
  idStart: number;
  idEnd: number;
  /** Index into groups, -1 for none. */
  group: number;
  /** Its latest diagnostics line (problems that came after the write's bound); diagOff -1 when none. */
  diagOff: number;
  diagLen: number;
}

export function recOf(buf: Buffer, at: number): Rec {
  return {
    off: buf.readDoubleLE(at),
    testsOff: buf.readDoubleLE(at + 8),
    len: buf.readUInt32LE(at + 16),
    testsLen: buf.readUInt32LE(at + 20),
    rolledBy: buf.readInt32LE(at + 24),
    file: buf.readUInt32LE(at + 28),
    corr: buf.readInt32LE(at + 32),
    idStart: buf.readUInt32LE(at + 36),
    idEnd: buf.readUInt32LE(at + 40),
    group: buf.readInt32LE(at + 44),
    diagOff: buf.readDoubleLE(at + 48),
    diagLen: buf.readUInt32LE(at + 56),
  };
}

export function writeRec(buf: Buffer, at: number, r: Rec): void {
  buf.writeDoubleLE(r.off, at);
  buf.writeDoubleLE(r.testsOff, at + 8);
  buf.writeUInt32LE(r.len, at + 16);
  buf.writeUInt32LE(r.testsLen, at + 20);
  buf.writeInt32LE(r.rolledBy, at + 24);
  buf.writeUInt32LE(r.file, at + 28);
  buf.writeInt32LE(r.corr, at + 32);
  buf.writeUInt32LE(r.idStart, at + 36);
  buf.writeUInt32LE(r.idEnd, at + 40);
  buf.writeInt32LE(r.group, at + 44);
  buf.writeDoubleLE(r.diagOff, at + 48);
  buf.writeUInt32LE(r.diagLen, at + 56);
}

/** Rows grouped by `key(row)` (-1: in no group), in row order within a group: [rows, starts]. */
function groups(n: number, count: number, key: (i: number) => number): [Uint32Array, Uint32Array] {
  const start = new Uint32Array(count + 1);
  for (let i = 0; i < n; i++) {
    const k = key(i);
    if (k >= 0 && k < count) start[k + 1]++;
  }
  for (let k = 0; k < count; k++) start[k + 1] += start[k];
  const rows = new Uint32Array(start[count]);
  const fill = start.slice(0, count);
  for (let i = 0; i < n; i++) {
    const k = key(i);
    if (k >= 0 && k < count) rows[fill[k]++] = i;
  }
  return [rows, start];
}

export function encodeStrings(list: string[]): Buffer {
  const bytes = list.map((s) => Buffer.from(s, 'utf8'));
  const head = Buffer.alloc(4 + 4 * (list.length + 1));
  head.writeUInt32LE(list.length, 0);
  let at = 0;
  bytes.forEach((b, i) => {
    head.writeUInt32LE(at, 4 + 4 * i);
    at += b.length;
  });
  head.writeUInt32LE(at, 4 + 4 * list.length);
  return Buffer.concat([head, ...bytes]);
}

/** The strings of a table, or null when its bytes do not hold one. */
export function decodeStrings(buf: Buffer): string[] | null {
  if (buf.length < 8) return null;
  const count = buf.readUInt32LE(0);
  const body = 4 + 4 * (count + 1);
  if (count > buf.length || body > buf.length) return null;
  const out = new Array<string>(count);
  let prev = buf.readUInt32LE(4);
  if (prev !== 0) return null;
  for (let i = 0; i < count; i++) {
    const next = buf.readUInt32LE(8 + 4 * i);
    if (next < prev || body + next > buf.length) return null;
    out[i] = buf.toString('utf8', body + prev, body + next);
    prev = next;
  }
  return body + prev === buf.length ? out : null;
}

const bytesOf = (a: ArrayBufferView) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

export function encodeCheckpoint(d: CheckpointData): Buffer {
  const [fileRows, fileStart] = groups(d.n, d.files.length, (i) => d.rec.readUInt32LE(REC * i + 28));
  const [corrRows, corrStart] = groups(d.n, d.corrs.length, (i) => d.rec.readInt32LE(REC * i + 32));
  const [groupRows, groupStart] = groups(d.n, d.groups.length, (i) => d.rec.readInt32LE(REC * i + 44));
  const parts: Buffer[] = [
    encodeStrings(d.files),
    encodeStrings(d.corrs),
    bytesOf(d.flags),
    d.rec,
    d.ids,
    bytesOf(d.perm),
    bytesOf(d.hunks),
    bytesOf(fileRows),
    bytesOf(fileStart),
    bytesOf(corrRows),
    bytesOf(corrStart),
    encodeStrings(d.groups),
    bytesOf(groupRows),
    bytesOf(groupStart),
  ];
  const head = Buffer.alloc(HEADER);
  MAGIC.copy(head, 0);
  let at = MAGIC.length;
  head.writeUInt32LE(VERSION, at);
  head.writeUInt32LE(d.n, at + 4);
  head.writeDoubleLE(d.offset, at + 8);
  head.writeDoubleLE(d.ino, at + 16);
  Buffer.from(d.prefix, 'hex').copy(head, at + 24);
  at += 56;
  let start = HEADER;
  for (const p of parts) {
    // Sections start 8-aligned so a column read whole can be viewed as its typed array.
    start = Math.ceil(start / 8) * 8;
    head.writeDoubleLE(start, at);
    head.writeDoubleLE(p.length, at + 8);
    at += 16;
    start += p.length;
  }
  const out = Buffer.alloc(start);
  head.copy(out, 0);
  for (let i = 0; i < parts.length; i++) parts[i].copy(out, out.readDoubleLE(MAGIC.length + 56 + 16 * i));
  return out;
}

export interface Header {
  n: number;
  offset: number;
  ino: number;
  prefix: string;
  /** [start, length] per section. */
  sections: [number, number][];
}

/** The header, or null when `buf` (the file's first HEADER bytes) is not one this code wrote for a file of `size` bytes. */
export function decodeHeader(buf: Buffer, size: number): Header | null {
  if (buf.length < HEADER || !buf.subarray(0, MAGIC.length).equals(MAGIC)) return null;
  let at = MAGIC.length;
  if (buf.readUInt32LE(at) !== VERSION) return null;
  const n = buf.readUInt32LE(at + 4);
  const offset = buf.readDoubleLE(at + 8);
  const ino = buf.readDoubleLE(at + 16);
  const prefix = buf.toString('hex', at + 24, at + 56);
  if (n > MAX_ROWS || !Number.isSafeInteger(offset) || offset <= 0 || !Number.isFinite(ino)) return null;
  at += 56;
  const sections: [number, number][] = [];
  for (let i = 0; i < SECTIONS; i++) {
    const start = buf.readDoubleLE(at);
    const length = buf.readDoubleLE(at + 8);
    at += 16;
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(length) || start < HEADER || start % 8 !== 0 || length < 0 || start + length > size) return null;
    sections.push([start, length]);
  }
  const fixed: [Section, number][] = [[Section.Flags, n], [Section.Rec, REC * n], [Section.Perm, 4 * n], [Section.FileRows, 4 * n]];
  if (fixed.some(([s, len]) => sections[s][1] !== len)) return null;
  if (sections[Section.Hunks][1] % 8 !== 0 || sections[Section.CorrRows][1] % 4 !== 0 || sections[Section.CorrRows][1] > 4 * n) return null;
  if (sections[Section.FileStart][1] % 4 !== 0 || sections[Section.CorrStart][1] % 4 !== 0) return null;
  if (sections[Section.GroupRows][1] % 4 !== 0 || sections[Section.GroupRows][1] > 4 * n || sections[Section.GroupStart][1] % 4 !== 0) return null;
  return { n, offset, ino, prefix, sections };
}

/** The whole checkpoint from its bytes, or null (values inside are checked where they are used). */
export function decodeCheckpoint(buf: Buffer): CheckpointData | null {
  const h = decodeHeader(buf, buf.length);
  if (!h) return null;
  const sec = (s: Section) => buf.subarray(h.sections[s][0], h.sections[s][0] + h.sections[s][1]);
  const copy = (s: Section) => new Uint8Array(sec(s)).buffer;
  const files = decodeStrings(sec(Section.Files));
  const corrs = decodeStrings(sec(Section.Corrs));
  const groups = decodeStrings(sec(Section.Groups));
  if (!files || !corrs || !groups) return null;
  return {
    offset: h.offset,
    ino: h.ino,
    prefix: h.prefix,
    n: h.n,
    files,
    corrs,
    groups,
    flags: new Uint8Array(copy(Section.Flags)),
    rec: Buffer.from(copy(Section.Rec)),
    ids: Buffer.from(copy(Section.Ids)),
    perm: new Uint32Array(copy(Section.Perm)),
    hunks: new Uint32Array(copy(Section.Hunks)),
  };
}
