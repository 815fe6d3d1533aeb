// A checkpoint of the folded log beside it, so opening a years-long log reads neither the log
// nor every entry: it holds each modification's id, file, correlation, folded facts and where
// its line sits in the log, in columns read as a query needs them (checkpointFormat.ts,
// checkpointRows.ts); an entry's full line is read from the log only when it is shown.
// Never the source of truth: it is used only when it matches the log's prefix it claims to
// cover (same inode, long enough, the same bytes where it samples them, ending on a newline);
// anything else — missing, stale, corrupt, a link — is ignored and the log is folded from the
// start. Written atomically without following links (files/safeWrite).
import { createHash } from 'node:crypto';
import { readSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { openInside } from '../files/safeOpen';
import { writeAtomicInside } from '../files/safeWrite';
import { CheckpointRows } from './checkpointRows';
import { decodeHeader, encodeCheckpoint, FLAG_APPROVED, FLAG_ROLLED, HEADER, REC, Section, writeRec, type CheckpointData } from './checkpointFormat';
import { CheckpointMismatchError } from './errors';
import type { Fold, Folded } from './fold';
import type { DiagnosticsLine, ModificationEntry, TestResultsLine } from './types';

const WINDOW = 4096;
/** Windows sampled across the prefix: a rewrite keeping length and inode is caught where it lands on one. */
const SAMPLES = 16;

/** Where a line sits in the log: [byte offset, byte length]. */
export type LineAt = [number, number];

/** Hash of sampled windows of the first `offset` bytes of the open log. */
export async function prefixHash(fh: FileHandle, offset: number): Promise<string> {
  const h = createHash('sha256');
  h.update(String(offset));
  const whole = offset <= WINDOW * (SAMPLES + 1);
  const starts = whole ? [0] : [...Array.from({ length: SAMPLES }, (_, i) => Math.floor(((offset - WINDOW) * i) / SAMPLES)), offset - WINDOW];
  const buf = Buffer.alloc(whole ? offset : WINDOW);
  for (const start of starts) {
    const { bytesRead } = await fh.read(buf, 0, buf.length, start);
    h.update(buf.subarray(0, bytesRead));
  }
  return h.digest('hex');
}

/** The open log the lazy entries read from; closed when the fold it backs is dropped. */
export class LogReader {
  closed = false;
  /** Set when a line was not where the checkpoint said: the next sync folds the log instead. */
  bad = false;
  constructor(readonly fh: FileHandle) {}

  line<T extends { type?: unknown; modification_id?: unknown }>(at: LineAt, type: string, id?: string): T {
    if (this.closed) throw new CheckpointMismatchError('the log was reopened since this fold was read');
    const buf = Buffer.alloc(at[1]);
    const n = readSync(this.fh.fd, buf, 0, at[1], at[0]);
    let v: T | null = null;
    try {
      v = JSON.parse(buf.toString('utf8', 0, n)) as T;
    } catch {
      // Reported below.
    }
    if (!v || typeof v !== 'object' || v.type !== type || typeof v.modification_id !== 'string' || (id !== undefined && v.modification_id !== id)) {
      this.bad = true;
      throw new CheckpointMismatchError('a line is not where the checkpoint says');
    }
    return v;
  }

  close(): Promise<void> {
    this.closed = true;
    return this.fh.close();
  }
}

/** A folded modification restored from a checkpoint: its line is read from the log when first needed. */
export class LazyFolded implements Folded {
  // Assigned in the constructor only: a checkpoint makes 100,000 of these at once.
  declare approved: boolean;
  declare rolledBackBy?: string;
  declare hunkRollbacks?: Folded[];
  declare testsAt?: LineAt;
  declare diagnosticsAt?: LineAt;
  declare private e?: ModificationEntry;
  declare private t?: TestResultsLine;
  declare private d?: DiagnosticsLine;
  declare readonly reader: LogReader;
  declare readonly id: string;
  declare readonly file: string;
  declare readonly correlation: string | undefined;
  declare readonly group: string | undefined;
  declare readonly off: number;
  declare readonly len: number;
  /** Its row in the checkpoint. */
  declare row: number;

  constructor(reader: LogReader, id: string, file: string, correlation: string | undefined, group: string | undefined, off: number, len: number) {
    this.reader = reader;
    this.id = id;
    this.file = file;
    this.correlation = correlation;
    this.group = group;
    this.off = off;
    this.len = len;
    this.approved = false;
  }

  get at(): LineAt {
    return [this.off, this.len];
  }

  get entry(): ModificationEntry {
    this.e ??= this.reader.line<ModificationEntry>(this.at, 'modification', this.id);
    return this.e;
  }

  get tests(): TestResultsLine | undefined {
    if (!this.t && this.testsAt) this.t = this.reader.line<TestResultsLine>(this.testsAt, 'test_results');
    return this.t;
  }

  set tests(t: TestResultsLine | undefined) {
    this.t = t;
    this.testsAt = undefined;
  }

  get diagnostics(): DiagnosticsLine | undefined {
    if (!this.d && this.diagnosticsAt) this.d = this.reader.line<DiagnosticsLine>(this.diagnosticsAt, 'diagnostics');
    return this.d;
  }

  set diagnostics(d: DiagnosticsLine | undefined) {
    this.d = d;
    this.diagnosticsAt = undefined;
  }
}

/** Where each folded line sits in the log; null when one is unknown (then no checkpoint is written). */
export function snapshot(fold: Fold, where: WeakMap<object, LineAt>, offset: number, ino: number, prefix: string): CheckpointData | null {
  const base = fold.base;
  const n0 = base?.n ?? 0;
  const tail = fold.tail;
  const n = n0 + tail.length;
  const files = base ? [...base.fileTable()] : [];
  const corrs = base ? [...base.corrTable()] : [];
  const groups = base ? [...base.groupTable()] : [];
  const fileIds = new Map(files.map((f, i) => [f, i]));
  const corrIds = new Map(corrs.map((c, i) => [c, i]));
  const groupIds = new Map(groups.map((g, i) => [g, i]));
  const intern = (m: Map<string, number>, list: string[], s: string) => {
    let i = m.get(s);
    if (i === undefined) m.set(s, (i = list.push(s) - 1));
    return i;
  };
  const flags = new Uint8Array(n);
  const rec = Buffer.alloc(REC * n);
  const tailIds = tail.map((f) => Buffer.from(f.id, 'utf8'));
  // The checkpoint's rows are copied as they are; only rows made into objects may have moved on.
  const baseIds = base ? base.section(Section.Ids) : Buffer.alloc(0);
  if (base) {
    flags.set(base.section(Section.Flags));
    rec.set(base.section(Section.Rec));
  }
  const ids = Buffer.alloc(baseIds.length + tailIds.reduce((a, b) => a + b.length, 0));
  ids.set(baseIds);
  const indexOf = new Map<Folded, number>(tail.map((f, k) => [f, n0 + k]));
  const rowOf = (f: Folded | undefined) => (f === undefined ? -1 : f instanceof LazyFolded && base?.made(f.row) === f ? f.row : (indexOf.get(f) ?? -1));
  const hunks: number[] = [];
  if (base) {
    const pairs = base.hunkPairs();
    for (let k = 0; k < pairs.length; k += 2) if (!base.made(pairs[k])) hunks.push(pairs[k], pairs[k + 1]);
  }
  const put = (i: number, f: Folded, at: LineAt | undefined, ids: { file: number; corr: number; group: number; idStart: number; idEnd: number }): boolean => {
    if (!at) return false;
    const testsAt = f instanceof LazyFolded ? f.testsAt : undefined;
    const tests = testsAt ?? (f.tests ? where.get(f.tests) : undefined);
    if (!testsAt && f.tests && !tests) return false;
    const diagAt = f instanceof LazyFolded ? f.diagnosticsAt : undefined;
    const diag = diagAt ?? (f.diagnostics ? where.get(f.diagnostics) : undefined);
    if (!diagAt && f.diagnostics && !diag) return false;
    const rolledBy = f.rolledBackBy ? rowOf(fold.get(f.rolledBackBy)) : -1;
    if (f.rolledBackBy && rolledBy === -1) return false;
    writeRec(rec, REC * i, { off: at[0], len: at[1], testsOff: tests ? tests[0] : -1, testsLen: tests ? tests[1] : 0, diagOff: diag ? diag[0] : -1, diagLen: diag ? diag[1] : 0, rolledBy, ...ids });
    flags[i] = (f.approved ? FLAG_APPROVED : 0) | (f.rolledBackBy ? FLAG_ROLLED : 0);
    for (const h of f.hunkRollbacks ?? []) {
      const j = rowOf(h);
      if (j === -1) return false;
      hunks.push(i, j);
    }
    return true;
  };
  for (const [i, f] of base?.madeRows() ?? []) {
    const { file, corr, group, idStart, idEnd } = base!.rec(i);
    if (!put(i, f, f.at, { file, corr, group, idStart, idEnd })) return null;
  }
  let idAt = baseIds.length;
  for (let k = 0; k < tail.length; k++) {
    const f = tail[k];
    tailIds[k].copy(ids, idAt);
    const own = {
      file: intern(fileIds, files, f.file),
      corr: f.correlation === undefined ? -1 : intern(corrIds, corrs, f.correlation),
      group: f.group === undefined ? -1 : intern(groupIds, groups, f.group),
      idStart: idAt,
      idEnd: (idAt += tailIds[k].length),
    };
    if (!put(n0 + k, f, where.get(f.entry), own)) return null;
  }
  return { offset, ino, prefix, n, files, corrs, groups, flags, rec, ids, perm: mergePerm(base, tail.length, tailIds), hunks: Uint32Array.from(hunks) };
}

/** The id order of checkpoint rows plus `count` new rows after them: each new id placed by binary search. */
function mergePerm(base: CheckpointRows | null, count: number, tailIds: Buffer[]): Uint32Array {
  const n0 = base?.n ?? 0;
  const b = base?.section(Section.Perm);
  const old = b ? new Uint32Array(b.buffer, b.byteOffset, n0) : new Uint32Array(0);
  const order = Array.from({ length: count }, (_, k) => k).sort((a, b) => Buffer.compare(tailIds[a], tailIds[b]));
  const perm = new Uint32Array(n0 + count);
  let from = 0;
  let to = 0;
  for (const k of order) {
    let lo = from;
    let hi = n0;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (Buffer.compare(base!.idBytes(old[mid]), tailIds[k]) < 0) lo = mid + 1;
      else hi = mid;
    }
    perm.set(old.subarray(from, lo), to);
    to += lo - from;
    from = lo;
    perm[to++] = n0 + k;
  }
  perm.set(old.subarray(from), to);
  return perm;
}

/** The checkpoint at `file`, opened for reading its rows as asked; null when missing, a link, or not one this code wrote. */
export async function openCheckpoint(root: string, file: string, reader: LogReader): Promise<{ rows: CheckpointRows; offset: number; ino: number; prefix: string } | null> {
  const opened = await openInside(root, file).catch(() => null);
  if (!opened) return null;
  try {
    const head = Buffer.alloc(HEADER);
    const { bytesRead } = await opened.fh.read(head, 0, HEADER, 0);
    const h = decodeHeader(head.subarray(0, bytesRead), opened.st.size);
    if (!h) {
      await opened.fh.close();
      return null;
    }
    return { rows: new CheckpointRows(opened.fh, h, reader), offset: h.offset, ino: h.ino, prefix: h.prefix };
  } catch {
    await opened.fh.close().catch(() => undefined);
    return null;
  }
}

export function writeCheckpoint(root: string, file: string, cp: CheckpointData): Promise<void> {
  return writeAtomicInside(root, file, encodeCheckpoint(cp), { mode: 0o644 });
}
