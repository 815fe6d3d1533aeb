// A checkpoint of the folded log beside it, so opening a years-long log reads neither the log
// nor every entry: it holds each modification's id, file, correlation, folded facts and where
// its line sits in the log; an entry's full line is read from the log only when it is shown.
// Never the source of truth: it is used only when it matches the log's prefix it claims to
// cover (same inode, long enough, the same bytes where it samples them, ending on a newline);
// anything else — missing, stale, corrupt, a link — is ignored and the log is folded from the
// start. Written atomically without following links (files/safeWrite).
import { createHash } from 'node:crypto';
import { readSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { readInside } from '../files/safeOpen';
import { writeAtomicInside } from '../files/safeWrite';
import { CheckpointMismatchError } from './errors';
import { Fold, type Folded } from './fold';
import type { ModificationEntry, TestResultsLine } from './types';

const VERSION = 2;
const WINDOW = 4096;
/** Windows sampled across the prefix: a rewrite keeping length and inode is caught where it lands on one. */
const SAMPLES = 16;
const MAX_BYTES = 256 * 1024 * 1024;

/** Where a line sits in the log: [byte offset, byte length]. */
export type LineAt = [number, number];

interface Checkpoint {
  v: number;
  offset: number;
  ino: number;
  prefix: string;
  ids: string[];
  at: number[];
  files: string[];
  file: number[];
  corrs: string[];
  corr: number[];
  approved: number[];
  /** [target, rollback] pairs: target.rolledBackBy = rollback's id. */
  rolled: number[];
  /** [target, hunk rollback] pairs, in log order. */
  hunks: number[];
  /** [modification, offset, length] of its latest test results line. */
  tests: number[];
}

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
  declare private e?: ModificationEntry;
  declare private t?: TestResultsLine;
  declare readonly reader: LogReader;
  declare readonly id: string;
  declare readonly file: string;
  declare readonly correlation: string | undefined;
  declare readonly off: number;
  declare readonly len: number;

  constructor(reader: LogReader, id: string, file: string, correlation: string | undefined, off: number, len: number) {
    this.reader = reader;
    this.id = id;
    this.file = file;
    this.correlation = correlation;
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
}

/** Where each folded line sits in the log; null when one is unknown (then no checkpoint is written). */
export function snapshot(fold: Fold, where: WeakMap<object, LineAt>, offset: number, ino: number, prefix: string): Checkpoint | null {
  const pos = new Map<Folded, number>();
  const cp: Checkpoint = { v: VERSION, offset, ino, prefix, ids: [], at: [], files: [], file: [], corrs: [], corr: [], approved: [], rolled: [], hunks: [], tests: [] };
  const files = new Map<string, number>();
  const corrs = new Map<string, number>();
  const intern = (m: Map<string, number>, list: string[], s: string) => {
    let i = m.get(s);
    if (i === undefined) m.set(s, (i = list.push(s) - 1));
    return i;
  };
  for (const [i, f] of fold.order.entries()) {
    pos.set(f, i);
    const lazy = f instanceof LazyFolded ? f : null;
    const at = lazy ? lazy.at : where.get(f.entry);
    if (!at) return null;
    cp.ids.push(f.id);
    cp.at.push(at[0], at[1]);
    cp.file.push(intern(files, cp.files, f.file));
    cp.corr.push(f.correlation === undefined ? -1 : intern(corrs, cp.corrs, f.correlation));
    if (f.approved) cp.approved.push(i);
  }
  for (const [i, f] of fold.order.entries()) {
    if (f.rolledBackBy) cp.rolled.push(i, pos.get(fold.byId.get(f.rolledBackBy)!)!);
    for (const h of f.hunkRollbacks ?? []) cp.hunks.push(i, pos.get(h)!);
    const lazy = f instanceof LazyFolded ? f : null;
    const t = lazy?.testsAt ?? (f.tests ? where.get(f.tests) : undefined);
    if (lazy?.testsAt === undefined && f.tests && !t) return null;
    if (t) cp.tests.push(i, t[0], t[1]);
  }
  return cp;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
function ints(v: unknown, n: number, mult = 1): v is number[] {
  if (!Array.isArray(v) || v.length % mult !== 0) return false;
  for (let i = 0; i < v.length; i++) {
    const x = v[i] as unknown;
    if (typeof x !== 'number' || !Number.isInteger(x) || x < -1 || x >= n) return false;
  }
  return true;
}

function strings(v: unknown): v is string[] {
  if (!Array.isArray(v)) return false;
  for (let i = 0; i < v.length; i++) if (typeof v[i] !== 'string') return false;
  return true;
}

/** Rebuilds the fold from a checkpoint's data; null when its shape is not one this code wrote. */
export function restore(cp: unknown, reader: LogReader): { fold: Fold; offset: number; ino: number; prefix: string } | null {
  if (!isObject(cp) || cp.v !== VERSION || !Number.isSafeInteger(cp.offset) || (cp.offset as number) <= 0 || typeof cp.ino !== 'number' || typeof cp.prefix !== 'string') return null;
  const offset = cp.offset as number;
  const { ids, files, corrs } = cp;
  if (!strings(ids) || !strings(files) || !strings(corrs)) return null;
  const n = ids.length;
  if (!ints(cp.at, offset + 1, 2) || cp.at.length !== 2 * n || !ints(cp.file, files.length) || cp.file.length !== n || !ints(cp.corr, corrs.length) || cp.corr.length !== n) return null;
  if (!ints(cp.approved, n) || !ints(cp.rolled, n, 2) || !ints(cp.hunks, n, 2) || !ints(cp.tests, offset + 1, 3)) return null;
  const at = cp.at;
  const file = cp.file;
  const corr = cp.corr;
  const order: LazyFolded[] = new Array<LazyFolded>(n);
  const fileLists: Folded[][] = files.map(() => []);
  const corrLists: Folded[][] = corrs.map(() => []);
  for (let i = 0; i < n; i++) {
    const off = at[2 * i];
    const len = at[2 * i + 1];
    const fi = file[i];
    const ci = corr[i];
    if (off < 0 || len <= 0 || off + len > offset || fi < 0) return null;
    const f = new LazyFolded(reader, ids[i], files[fi], ci === -1 ? undefined : corrs[ci], off, len);
    order[i] = f;
    fileLists[fi].push(f);
    if (ci !== -1 && corrs[ci]) corrLists[ci].push(f);
  }
  // Table entries unique, as snapshot() wrote them. Ids are checked against the log's line when one is read.
  if (new Set(files).size !== files.length || new Set(corrs).size !== corrs.length) return null;
  const byFile = new Map<string, Folded[]>();
  files.forEach((k, i) => fileLists[i].length && byFile.set(k, fileLists[i]));
  const byCorr = new Map<string, Folded[]>();
  corrs.forEach((k, i) => corrLists[i].length && byCorr.set(k, corrLists[i]));
  const fold = Fold.restored(order, byFile, byCorr);
  for (const i of cp.approved) order[i].approved = true;
  for (let k = 0; k < cp.rolled.length; k += 2) order[cp.rolled[k]].rolledBackBy = order[cp.rolled[k + 1]].id;
  for (let k = 0; k < cp.hunks.length; k += 2) (order[cp.hunks[k]].hunkRollbacks ??= []).push(order[cp.hunks[k + 1]]);
  for (let k = 0; k < cp.tests.length; k += 3) {
    const [i, off, len] = [cp.tests[k], cp.tests[k + 1], cp.tests[k + 2]];
    if (i < 0 || i >= n || off < 0 || len <= 0 || off + len > offset) return null;
    order[i].testsAt = [off, len];
  }
  return { fold, offset, ino: cp.ino, prefix: cp.prefix };
}

/** The checkpoint's contents, or null when missing, unreadable, a link, or not JSON. */
export async function readCheckpoint(root: string, file: string): Promise<unknown> {
  try {
    const read = await readInside(root, file, { maxBytes: MAX_BYTES });
    return read ? (JSON.parse(read.buf.toString('utf8')) as unknown) : null;
  } catch {
    return null;
  }
}

export function writeCheckpoint(root: string, file: string, cp: Checkpoint): Promise<void> {
  return writeAtomicInside(root, file, JSON.stringify(cp), { mode: 0o644 });
}
