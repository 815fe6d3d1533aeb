// The checkpoint's rows, read from the open file as they are asked for: a query over one
// correlation reads that correlation's slice of rows and the records of the rows it shows; a
// row becomes an object (LazyFolded) only when shown or changed. Every value is checked where
// it is read; one out of range marks the checkpoint bad, which fails that query and makes the
// next sync fold the log itself (fold.ts).
import { readSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { ModificationStatus } from '../../../shared/contract';
import { LazyFolded, type LogReader } from './checkpoint';
import { decodeStrings, FLAG_APPROVED, FLAG_ROLLED, recOf, REC, Section, type Header, type Rec } from './checkpointFormat';
import { CheckpointMismatchError } from './errors';

/** After this many single reads of a section, it is read whole: a timeline of 10,000 rows costs one read, not 10,000. */
const READ_WHOLE_AFTER = 64;

export class CheckpointRows {
  readonly n: number;
  /** Rows made into objects so far. */
  private readonly rows = new Map<number, LazyFolded>();
  private readonly whole = new Map<Section, Buffer>();
  private readonly hits = new Map<Section, number>();
  private fileNames: string[] | null = null;
  private corrNames: string[] | null = null;
  private groupNames: string[] | null = null;
  private hunkLists: Map<number, number[]> | null = null;
  private maxIdBytes: Buffer | null = null;
  closed = false;

  constructor(
    private readonly fh: FileHandle,
    private readonly header: Header,
    readonly reader: LogReader,
  ) {
    this.n = header.n;
  }

  /** Fails the query and drops the checkpoint: the next sync folds the log. */
  private bad(why: string): never {
    this.reader.bad = true;
    throw new CheckpointMismatchError(why);
  }

  private readRaw(s: Section, at: number, len: number): Buffer {
    if (this.closed || this.reader.closed) throw new CheckpointMismatchError('the log was reopened since this fold was read');
    const [start, length] = this.header.sections[s];
    if (!(at >= 0 && len >= 0 && at + len <= length)) this.bad('a value points outside its section');
    // Its own ArrayBuffer, so a whole section can be viewed as a typed array.
    const buf = Buffer.from(new ArrayBuffer(len));
    if (len && readSync(this.fh.fd, buf, 0, len, start + at) !== len) this.bad('the checkpoint is shorter than its header says');
    return buf;
  }

  /** The whole section, read once. */
  section(s: Section): Buffer {
    let b = this.whole.get(s);
    if (!b) this.whole.set(s, (b = this.readRaw(s, 0, this.header.sections[s][1])));
    return b;
  }

  /** `len` bytes of a section at `at`: single reads at first, the whole section once it is read often. */
  private bytes(s: Section, at: number, len: number): Buffer {
    let w = this.whole.get(s);
    if (!w) {
      const hits = (this.hits.get(s) ?? 0) + 1;
      this.hits.set(s, hits);
      if (hits <= READ_WHOLE_AFTER) return this.readRaw(s, at, len);
      w = this.section(s);
    }
    if (!(at >= 0 && len >= 0 && at + len <= w.length)) this.bad('a value points outside its section');
    return w.subarray(at, at + len);
  }

  private u32(s: Section, k: number): number {
    return this.bytes(s, 4 * k, 4).readUInt32LE(0);
  }

  fileTable(): string[] {
    this.fileNames ??= decodeStrings(this.section(Section.Files)) ?? this.bad('its file table is not one');
    return this.fileNames;
  }

  corrTable(): string[] {
    this.corrNames ??= decodeStrings(this.section(Section.Corrs)) ?? this.bad('its correlation table is not one');
    return this.corrNames;
  }

  groupTable(): string[] {
    this.groupNames ??= decodeStrings(this.section(Section.Groups)) ?? this.bad('its group table is not one');
    return this.groupNames;
  }

  /** Rows (oldest first) of one group; each checked against its own record. */
  rowsOfGroup(group: string): number[] {
    const gi = this.indexIn(Section.Groups, group);
    if (gi === -1) return [];
    const rows = this.group(Section.GroupRows, Section.GroupStart, gi);
    for (const i of rows) if (this.rec(i).group !== gi) this.bad('a group names a row of another group');
    return rows;
  }

  /** Index of `name` in a string table, -1 when absent: compares bytes, decodes nothing. */
  private indexIn(s: Section, name: string): number {
    const t = this.section(s);
    const key = Buffer.from(name, 'utf8');
    const count = t.length >= 4 ? t.readUInt32LE(0) : 0;
    const body = 4 + 4 * (count + 1);
    if (body > t.length) this.bad('a table is not one');
    for (let k = 0; k < count; k++) {
      const a = body + t.readUInt32LE(4 + 4 * k);
      const b = body + t.readUInt32LE(8 + 4 * k);
      if (b - a === key.length && b <= t.length && t.compare(key, 0, key.length, a, b) === 0) return k;
    }
    return -1;
  }

  /** The record of row i, its values checked. */
  rec(i: number): Rec {
    if (!(Number.isInteger(i) && i >= 0 && i < this.n)) this.bad('a row index is out of range');
    const r = recOf(this.bytes(Section.Rec, REC * i, REC), 0);
    const limit = this.header.offset;
    if (!(Number.isSafeInteger(r.off) && r.off >= 0 && r.len > 0 && r.off + r.len <= limit)) this.bad('a line position is outside the log it covers');
    if (r.testsOff !== -1 && !(Number.isSafeInteger(r.testsOff) && r.testsOff >= 0 && r.testsLen > 0 && r.testsOff + r.testsLen <= limit)) this.bad('a test results position is outside the log it covers');
    if (r.diagOff !== -1 && !(Number.isSafeInteger(r.diagOff) && r.diagOff >= 0 && r.diagLen > 0 && r.diagOff + r.diagLen <= limit)) this.bad('a diagnostics position is outside the log it covers');
    if (r.rolledBy < -1 || r.rolledBy >= this.n || r.corr < -1 || r.group < -1 || r.idEnd <= r.idStart) this.bad('a record is out of range');
    return r;
  }

  private idOf(r: Rec): Buffer {
    return this.bytes(Section.Ids, r.idStart, r.idEnd - r.idStart);
  }

  idBytes(i: number): Buffer {
    return this.idOf(this.rec(i));
  }

  /** The status of row i: from its object once made (its state may have moved on), else as checkpointed. */
  status(i: number): ModificationStatus {
    const r = this.rows.get(i);
    if (r) return r.rolledBackBy ? 'rolled_back' : r.approved ? 'approved' : 'applied';
    const f = this.bytes(Section.Flags, i, 1)[0];
    return f & FLAG_ROLLED ? 'rolled_back' : f & FLAG_APPROVED ? 'approved' : 'applied';
  }

  made(i: number): LazyFolded | undefined {
    return this.rows.get(i);
  }

  /** Rows made so far, by index. */
  madeRows(): IterableIterator<[number, LazyFolded]> {
    return this.rows.entries();
  }

  /** Row i as an object, made once. */
  row(i: number): LazyFolded {
    const made = this.rows.get(i);
    if (made) return made;
    const r = this.rec(i);
    const files = this.fileTable();
    const corrs = this.corrTable();
    const groups = this.groupTable();
    if (r.file >= files.length || r.corr >= corrs.length || r.group >= groups.length) this.bad('a table index is out of range');
    const f = new LazyFolded(this.reader, this.idOf(r).toString('utf8'), files[r.file], r.corr === -1 ? undefined : corrs[r.corr], r.group === -1 ? undefined : groups[r.group], r.off, r.len);
    f.row = i;
    // Kept before its links are followed, so a cycle in forged links ends here.
    this.rows.set(i, f);
    f.approved = (this.bytes(Section.Flags, i, 1)[0] & FLAG_APPROVED) !== 0;
    if (r.testsOff !== -1) f.testsAt = [r.testsOff, r.testsLen];
    if (r.diagOff !== -1) f.diagnosticsAt = [r.diagOff, r.diagLen];
    if (r.rolledBy !== -1) f.rolledBackBy = this.idBytes(r.rolledBy).toString('utf8');
    const hunks = this.hunks().get(i);
    if (hunks) f.hunkRollbacks = hunks.map((j) => this.row(j));
    return f;
  }

  /** [target, hunk rollback] row pairs as the checkpoint holds them. */
  hunkPairs(): Uint32Array {
    const b = this.section(Section.Hunks);
    return new Uint32Array(b.buffer, b.byteOffset, b.length / 4);
  }

  private hunks(): Map<number, number[]> {
    if (!this.hunkLists) {
      const pairs = this.hunkPairs();
      const lists = new Map<number, number[]>();
      for (let k = 0; k < pairs.length; k += 2) {
        if (pairs[k] >= this.n || pairs[k + 1] >= this.n) this.bad('a hunk link is out of range');
        const list = lists.get(pairs[k]);
        if (list) list.push(pairs[k + 1]);
        else lists.set(pairs[k], [pairs[k + 1]]);
      }
      this.hunkLists = lists;
    }
    return this.hunkLists;
  }

  /** The row whose id is `id`, or -1: a binary search over the rows in id order. */
  find(id: string): number {
    if (!this.n) return -1;
    const key = Buffer.from(id, 'utf8');
    const rowAt = (k: number) => {
      const r = this.u32(Section.Perm, k);
      if (r >= this.n) this.bad('the id order names a row that is not there');
      return r;
    };
    this.maxIdBytes ??= Buffer.from(this.idBytes(rowAt(this.n - 1)));
    // Ids in a live log grow with time: a new one is past every checkpointed id.
    if (Buffer.compare(key, this.maxIdBytes) > 0) return -1;
    let lo = 0;
    let hi = this.n - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const r = rowAt(mid);
      const c = Buffer.compare(this.idBytes(r), key);
      if (c === 0) return r;
      if (c < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /** Group k's rows (oldest first), each checked to be in range and in order. */
  private group(rowsSec: Section, startSec: Section, k: number): number[] {
    const from = this.u32(startSec, k);
    const to = this.u32(startSec, k + 1);
    if (to < from) this.bad('a group ends before it starts');
    const b = this.bytes(rowsSec, 4 * from, 4 * (to - from));
    const out = new Array<number>(to - from);
    for (let j = 0; j < out.length; j++) {
      out[j] = b.readUInt32LE(4 * j);
      if (out[j] >= this.n || (j > 0 && out[j] <= out[j - 1])) this.bad('a group names rows out of range or order');
    }
    return out;
  }

  /**
   * Rows (oldest first) with this file and/or correlation; null for every row. Each row found is
   * checked against its own record, so a forged group cannot show another file's rows.
   */
  rowsWhere(file: string | undefined, corr: string | undefined): number[] | null {
    if (file === undefined && corr === undefined) return null;
    const fi = file === undefined ? -2 : this.indexIn(Section.Files, file);
    const ci = corr === undefined ? -2 : this.indexIn(Section.Corrs, corr);
    if (fi === -1 || ci === -1) return [];
    const byCorr = ci >= 0 ? this.group(Section.CorrRows, Section.CorrStart, ci) : null;
    const byFile = fi >= 0 ? this.group(Section.FileRows, Section.FileStart, fi) : null;
    let rows = byCorr ?? byFile!;
    if (byCorr && byFile) {
      const inFile = new Set(byFile);
      rows = byCorr.filter((i) => inFile.has(i));
    }
    for (const i of rows) {
      const r = this.rec(i);
      if ((fi >= 0 && r.file !== fi) || (ci >= 0 && r.corr !== ci)) this.bad('a group names a row of another file or correlation');
    }
    return rows;
  }

  /** The file of row i, without making the row. */
  fileOf(i: number): string {
    const made = this.rows.get(i);
    if (made) return made.file;
    const name = this.fileTable()[this.rec(i).file];
    return name ?? this.bad('a file index is out of range');
  }

  close(): Promise<void> {
    this.closed = true;
    return this.fh.close();
  }
}
