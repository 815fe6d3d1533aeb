// The folded view of the log (docs/architecture.md, the modification log): one record per modification with its status,
// rollback links and latest test results. Kept in memory and brought up to date by reading
// only the bytes appended since the last look, so a query over 10,000 entries costs a stat.
import path from 'node:path';
import { openInside } from '../files/safeOpen';
import { unlinkInside } from '../files/safeWrite';
import { LazyFolded, LogReader, openCheckpoint, prefixHash, snapshot, writeCheckpoint, type LineAt } from './checkpoint';
import type { CheckpointRows } from './checkpointRows';
import type { ModificationQuery, ModificationStatus, ModificationView } from '../../../shared/contract';
import type { DiagnosticsLine, LogLine, ModificationEntry, TestResultsLine } from './types';

export interface Folded {
  /** The entry's id, file and correlation, kept outside it so filtering never needs the whole line. */
  readonly id: string;
  readonly file: string;
  readonly correlation: string | undefined;
  /** The group it belongs to (a command's writes, an undo), if any. */
  readonly group: string | undefined;
  entry: ModificationEntry;
  approved: boolean;
  /** The whole-file rollback that currently reverses this modification. */
  rolledBackBy?: string;
  /** Rollbacks of single hunks of this modification, in log order, live or since rolled back themselves. */
  hunkRollbacks?: Folded[];
  tests?: TestResultsLine;
  /** The latest diagnostics fact (problems that came after the write's bound). */
  diagnostics?: DiagnosticsLine;
}

// Status stays about whole rollbacks (docs/architecture.md, the modification log): a modification whose hunks were all reverted
// one by one still reads applied/approved, with every hunk listed in reverted_hunks. Its hunk
// rollbacks are modifications of their own, each with its own status.
export const statusOf = (f: Folded): ModificationStatus => (f.rolledBackBy ? 'rolled_back' : f.approved ? 'approved' : 'applied');

/**
 * Hunk → the hunk rollback that currently reverts it. A hunk rollback stops counting once it is
 * rolled back itself, and counts again when that rollback is rolled back in turn.
 */
export function revertedHunks(f: Folded): Map<number, string> {
  const out = new Map<number, string>();
  for (const r of f.hunkRollbacks ?? []) {
    const h = r.entry.hunk;
    if (h !== undefined && !r.rolledBackBy && !out.has(h)) out.set(h, r.entry.modification_id);
  }
  return out;
}

/** The diff's hunk count as the latest hunk rollback recorded it (absent in older logs). */
function hunkCount(f: Folded): number | undefined {
  const list = f.hunkRollbacks ?? [];
  for (let i = list.length - 1; i >= 0; i--) if (typeof list[i].entry.hunk_count === 'number') return list[i].entry.hunk_count;
  return undefined;
}

export function toView(f: Folded): ModificationView {
  // The view is the entry minus what only rollback needs (blob ids, index entry), plus the folded facts.
  const { type: _t, before_sha256: _b, after_sha256: _a, git_index_before: _g, hunk: _h, hunk_count: _c, ...shown } = f.entry;
  const t = f.tests;
  const late = f.diagnostics?.diagnostics;
  const by = f.hunkRollbacks ? revertedHunks(f) : new Map<number, string>();
  const reverted = [...by.keys()].sort((a, b) => a - b);
  const count = reverted.length ? hunkCount(f) : undefined;
  return {
    ...shown,
    ...(late ? { diagnostics: late } : {}),
    status: statusOf(f),
    ...(f.rolledBackBy ? { rolled_back_by: f.rolledBackBy } : {}),
    ...(reverted.length ? { reverted_hunks: reverted, reverted_hunks_by: reverted.map((h) => by.get(h)!) } : {}),
    ...(count !== undefined ? { hunk_count: count } : {}),
    test_results: t ? { passed: t.passed, failed: t.failed, skipped: t.skipped, duration_ms: t.duration_ms, status: t.status } : null,
  };
}

/**
 * Pure folding of lines in log order; used by LogIndex and directly by tests. A fold restored
 * from a checkpoint keeps its rows there (`base`, read as asked for) and only the lines after it
 * as objects (`tail`), so its first query costs the same at 100,000 entries as at 1,000.
 */
export class Fold {
  /** Records folded from lines (after the checkpoint's), in log order. */
  readonly tail: Folded[] = [];
  /** The tail's records by id; the checkpoint's are found by its own id order. */
  private ids = new Map<string, Folded>();
  private byCorrelation = new Map<string, Folded[]>();
  private byFile = new Map<string, Folded[]>();
  private byGroup = new Map<string, Folded[]>();

  /** `base`: the checkpoint's rows (its ids are unique and none is in the tail). */
  constructor(readonly base: CheckpointRows | null = null) {}

  /** How many modifications, without making any checkpoint row an object. */
  get size(): number {
    return (this.base?.n ?? 0) + this.tail.length;
  }

  /** Every record in log order. Makes every checkpoint row an object: for tests and small logs. */
  get order(): Folded[] {
    const base = this.base;
    if (!base) return this.tail;
    return [...Array.from({ length: base.n }, (_, i) => base.row(i)), ...this.tail];
  }

  /** The record with this id (the first, when a log repeats one). */
  get(id: string): Folded | undefined {
    const t = this.ids.get(id);
    if (t || !this.base) return t;
    const i = this.base.find(id);
    return i === -1 ? undefined : this.base.row(i);
  }

  add(line: LogLine): void {
    if (line.type === 'modification') return this.addModification(line);
    const target = this.get(line.modification_id);
    if (!target) return;
    if (line.type === 'review' && line.verdict === 'approved') target.approved = true;
    if (line.type === 'test_results') target.tests = line;
    if (line.type === 'diagnostics' && line.diagnostics && typeof line.diagnostics === 'object') target.diagnostics = line;
  }

  private addModification(e: ModificationEntry): void {
    if (typeof e.modification_id !== 'string' || this.get(e.modification_id)) return;
    const group = typeof e.group_id === 'string' ? e.group_id : undefined;
    const f: Folded = { id: e.modification_id, file: e.file, correlation: e.correlation_id, group, entry: e, approved: false };
    this.insert(f);
    if (e.operation === 'rollback' && e.rolls_back && e.hunk !== undefined) {
      // One hunk: recorded on the target; whether it still counts is read off the rollback's own fold.
      const target = this.get(e.rolls_back);
      if (target && Number.isInteger(e.hunk) && e.hunk >= 0) (target.hunkRollbacks ??= []).push(f);
      return;
    }
    if (e.operation === 'rollback' && e.rolls_back) {
      const target = this.get(e.rolls_back);
      if (!target) return;
      target.rolledBackBy = e.modification_id;
      // Rolling back a rollback re-applies what it had reversed.
      const reApplied = target.entry.operation === 'rollback' && target.entry.hunk === undefined && target.entry.rolls_back;
      const original = reApplied ? this.get(reApplied) : undefined;
      if (original?.rolledBackBy === target.entry.modification_id) delete original.rolledBackBy;
    }
  }

  /** Adds a new line's record at the end of the log order. */
  private insert(f: Folded): void {
    this.tail.push(f);
    this.ids.set(f.id, f);
    push(this.byFile, f.file, f);
    if (f.correlation) push(this.byCorrelation, f.correlation, f);
    if (f.group) push(this.byGroup, f.group, f);
  }

  /** The modifications of one group, in log order. */
  ofGroup(id: string): Folded[] {
    const base = this.base;
    return [...(base ? base.rowsOfGroup(id).map((i) => base.row(i)) : []), ...(this.byGroup.get(id) ?? [])];
  }

  /** Modifications of `file` that come after `id` in the log. */
  laterOn(file: string, id: string): Folded[] {
    const target = this.get(id);
    if (!target || target.file !== file) return [];
    const tail = this.byFile.get(file) ?? [];
    const base = this.base;
    if (!base || this.ids.get(id) === target) return tail.slice(tail.indexOf(target) + 1);
    const row = target instanceof LazyFolded ? target.row : -1;
    return [...(base.rowsWhere(file, undefined) ?? []).filter((i) => i > row).map((i) => base.row(i)), ...tail];
  }

  /**
   * The records appended after `iso` (a timestamp of the log's), in log order. Walks back from the
   * end and stops at the first older one, so it costs what was appended since, not the log.
   */
  since(iso: string): Folded[] {
    const out: Folded[] = [];
    for (let i = this.tail.length - 1; i >= 0; i--) {
      if (this.tail[i].entry.timestamp <= iso) return out.reverse();
      out.push(this.tail[i]);
    }
    for (let i = (this.base?.n ?? 0) - 1; i >= 0; i--) {
      const row = this.base!.row(i);
      if (row.entry.timestamp <= iso) break;
      out.push(row);
    }
    return out.reverse();
  }

  ofFile(file: string): Folded[] {
    return [...this.baseRows(file, undefined), ...(this.byFile.get(file) ?? [])];
  }

  ofCorrelation(id: string): Folded[] {
    return [...this.baseRows(undefined, id), ...(this.byCorrelation.get(id) ?? [])];
  }

  private baseRows(file: string | undefined, corr: string | undefined): Folded[] {
    const base = this.base;
    return base ? (base.rowsWhere(file, corr) ?? []).map((i) => base.row(i)) : [];
  }

  /** Files with at least one modification in this status. */
  filesWith(status: ModificationStatus): string[] {
    const out = new Set<string>();
    for (let i = 0; i < (this.base?.n ?? 0); i++) if (this.base!.status(i) === status) out.add(this.base!.fileOf(i));
    for (const f of this.tail) if (statusOf(f) === status) out.add(f.file);
    return [...out];
  }

  /** Newest first. Reads only the checkpoint columns the filter names, and only the rows it shows. */
  query(q: ModificationQuery = {}): { modifications: ModificationView[]; total: number } {
    const limit = q.limit ?? 10_000;
    const out: ModificationView[] = [];
    let total = 0;
    let list = this.tail;
    if (q.correlation_id !== undefined) list = this.byCorrelation.get(q.correlation_id) ?? [];
    if (q.file !== undefined && (q.correlation_id === undefined || (this.byFile.get(q.file) ?? []).length < list.length)) list = this.byFile.get(q.file) ?? [];
    for (let i = list.length - 1; i >= 0; i--) {
      const f = list[i];
      if ((q.correlation_id !== undefined && f.correlation !== q.correlation_id) || (q.file !== undefined && f.file !== q.file) || (q.status !== undefined && statusOf(f) !== q.status)) continue;
      total++;
      if (out.length < limit) out.push(toView(f));
    }
    const base = this.base;
    if (!base) return { modifications: out, total };
    const rows = base.rowsWhere(q.file, q.correlation_id);
    for (let k = (rows ? rows.length : base.n) - 1; k >= 0; k--) {
      const i = rows ? rows[k] : k;
      if (q.status !== undefined && base.status(i) !== q.status) continue;
      total++;
      if (out.length < limit) out.push(toView(base.row(i)));
    }
    return { modifications: out, total };
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

export interface LogIndexOptions {
  /** A checkpoint of the fold kept beside the log (checkpoint.ts); none when absent. */
  checkpoint?: string;
  /** New lines folded before the checkpoint is rewritten (default 1,000). */
  checkpointEvery?: number;
  /** An older checkpoint this one replaces: removed once this one is written. */
  replaces?: string;
}

/** A Fold that follows the JSONL file, whoever appends to it. */
export class LogIndex {
  private fold = new Fold();
  /** Bytes consumed: always just after a newline, so a line being written is read next time. */
  private offset = 0;
  private ino = -1;
  private queue: Promise<unknown> = Promise.resolve();
  private loaded = false;
  /** Lines folded since the checkpoint on disk was written or loaded. */
  private unsaved = 0;
  private saving = false;
  /** Where each line folded from the log itself sits, for the next checkpoint. */
  private where = new WeakMap<object, LineAt>();
  /** The log held open for the checkpoint's entries, read when first shown. */
  private reader: LogReader | null = null;

  /** `root`: the folder the log must be reached through without links (default: its own folder). */
  constructor(
    readonly file: string,
    private readonly root = path.dirname(file),
    private readonly opts: LogIndexOptions = {},
  ) {}

  /** Brings the fold up to date and returns it. Serialised: each caller sees what was appended before it asked. */
  sync(): Promise<Fold> {
    const job = this.queue.then(() => this.readTail());
    this.queue = job.catch(() => undefined);
    return job;
  }

  /**
   * Writes the checkpoint now if at least `checkpointEvery` lines were folded since the last one
   * (on dispose). Fewer are left to the next open to fold: cheap, and a closing process does not
   * write into a folder being removed.
   */
  flush(): Promise<void> {
    const job = this.queue.then(() => this.saveCheckpoint());
    this.queue = job.catch(() => undefined);
    return job;
  }

  private async readTail(): Promise<Fold> {
    const opened = await openInside(this.root, this.file);
    if (!opened) {
      if (this.offset) this.reset(-1);
      return this.fold;
    }
    const { fh, st } = opened;
    try {
      if (this.reader?.bad) {
        // A checkpoint that passed the prefix check but not a line's: drop it and fold the log.
        this.reset(-1);
        if (this.opts.checkpoint) await unlinkInside(this.root, this.opts.checkpoint).catch(() => undefined);
      } else if (!this.loaded) {
        this.loaded = true;
        await this.loadCheckpoint(st.ino, st.size);
      }
      // Replaced or cut below what we read (a torn tail is cut only after the last newline): start over.
      if (st.ino !== this.ino || st.size < this.offset) this.reset(st.ino);
      if (st.size === this.offset) return this.fold;
      const buf = Buffer.alloc(st.size - this.offset);
      const { bytesRead } = await fh.read(buf, 0, buf.length, this.offset);
      const end = buf.subarray(0, bytesRead).lastIndexOf(0x0a);
      if (end === -1) return this.fold;
      for (let pos = 0; pos <= end; ) {
        const nl = buf.indexOf(0x0a, pos);
        this.unsaved++;
        const parsed = parseLine(buf.toString('utf8', pos, nl));
        if (parsed) {
          this.where.set(parsed, [this.offset + pos, nl - pos]);
          this.fold.add(parsed);
        }
        pos = nl + 1;
      }
      this.offset += end + 1;
    } finally {
      await fh.close();
    }
    if (this.opts.checkpoint && this.unsaved >= this.every && !this.saving) {
      // After the answer, in the queue: the caller does not wait for it and no read races it.
      this.saving = true;
      setImmediate(() => void this.flush().finally(() => (this.saving = false)));
    }
    return this.fold;
  }

  /** Takes the checkpoint's fold when it covers a prefix of this very log; otherwise keeps folding from the start. */
  private async loadCheckpoint(ino: number, size: number): Promise<void> {
    if (!this.opts.checkpoint) return;
    // Its own handle: entries are read from it later, after this sync's handle is closed.
    const opened = await openInside(this.root, this.file).catch(() => null);
    if (!opened) return;
    const reader = new LogReader(opened.fh);
    const got = await openCheckpoint(this.root, this.opts.checkpoint, reader);
    let ok = !!got && got.ino === ino && opened.st.ino === ino && got.offset <= size;
    if (ok) {
      const nl = Buffer.alloc(1);
      await opened.fh.read(nl, 0, 1, got!.offset - 1);
      ok = nl[0] === 0x0a && (await prefixHash(opened.fh, got!.offset)) === got!.prefix;
    }
    if (!ok) {
      await got?.rows.close();
      return void (await reader.close());
    }
    this.fold = new Fold(got!.rows);
    this.offset = got!.offset;
    this.ino = ino;
    this.reader = reader;
  }

  private async saveCheckpoint(): Promise<void> {
    const file = this.opts.checkpoint;
    if (!file || this.unsaved < this.every || !this.offset) return;
    try {
      const opened = await openInside(this.root, this.file);
      if (!opened) return;
      let prefix: string;
      try {
        if (opened.st.ino !== this.ino || opened.st.size < this.offset) return;
        prefix = await prefixHash(opened.fh, this.offset);
      } finally {
        await opened.fh.close();
      }
      const cp = snapshot(this.fold, this.where, this.offset, this.ino, prefix);
      if (cp) {
        await writeCheckpoint(this.root, file, cp);
        if (this.opts.replaces) await unlinkInside(this.root, this.opts.replaces).catch(() => undefined);
      }
      this.unsaved = 0;
    } catch {
      // Only a cache: the next open folds the log instead.
    }
  }

  /** Saves the checkpoint if it moved and lets go of the log. */
  async dispose(): Promise<void> {
    await this.flush();
    const r = this.reader;
    const rows = this.fold.base;
    this.reader = null;
    await Promise.all([r?.close(), rows?.close()]);
  }

  private get every(): number {
    return Math.max(1, this.opts.checkpointEvery ?? 1000);
  }

  private reset(ino: number): void {
    // Records already handed out keep reading nothing: their reader says so instead.
    void this.reader?.close().catch(() => undefined);
    void this.fold.base?.close().catch(() => undefined);
    this.reader = null;
    this.where = new WeakMap();
    this.fold = new Fold();
    this.offset = 0;
    this.ino = ino;
    this.unsaved = 0;
  }
}

function parseLine(line: string): LogLine | null {
  if (!line.trim()) return null;
  try {
    const v = JSON.parse(line) as LogLine;
    return v && typeof v === 'object' && typeof v.modification_id === 'string' ? v : null;
  } catch {
    return null;
  }
}
