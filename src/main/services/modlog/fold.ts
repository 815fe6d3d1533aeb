// The folded view of the log (docs/architecture.md, the modification log): one record per modification with its status,
// rollback links and latest test results. Kept in memory and brought up to date by reading
// only the bytes appended since the last look, so a query over 10,000 entries costs a stat.
import path from 'node:path';
import { openInside } from '../files/safeOpen';
import type { ModificationQuery, ModificationStatus, ModificationView } from '../../../shared/contract';
import type { LogLine, ModificationEntry, TestResultsLine } from './types';

export interface Folded {
  entry: ModificationEntry;
  approved: boolean;
  /** The whole-file rollback that currently reverses this modification. */
  rolledBackBy?: string;
  /** Rollbacks of single hunks of this modification, in log order, live or since rolled back themselves. */
  hunkRollbacks?: Folded[];
  tests?: TestResultsLine;
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
  const by = f.hunkRollbacks ? revertedHunks(f) : new Map<number, string>();
  const reverted = [...by.keys()].sort((a, b) => a - b);
  const count = reverted.length ? hunkCount(f) : undefined;
  return {
    ...shown,
    status: statusOf(f),
    ...(f.rolledBackBy ? { rolled_back_by: f.rolledBackBy } : {}),
    ...(reverted.length ? { reverted_hunks: reverted, reverted_hunks_by: reverted.map((h) => by.get(h)!) } : {}),
    ...(count !== undefined ? { hunk_count: count } : {}),
    test_results: t ? { passed: t.passed, failed: t.failed, skipped: t.skipped, duration_ms: t.duration_ms, status: t.status } : null,
  };
}

/** Pure folding of lines in log order; used by LogIndex and directly by tests. */
export class Fold {
  readonly order: Folded[] = [];
  readonly byId = new Map<string, Folded>();
  private readonly byCorrelation = new Map<string, Folded[]>();
  private readonly byFile = new Map<string, Folded[]>();

  add(line: LogLine): void {
    if (line.type === 'modification') return this.addModification(line);
    const target = this.byId.get(line.modification_id);
    if (!target) return;
    if (line.type === 'review' && line.verdict === 'approved') target.approved = true;
    if (line.type === 'test_results') target.tests = line;
  }

  private addModification(e: ModificationEntry): void {
    if (typeof e.modification_id !== 'string' || this.byId.has(e.modification_id)) return;
    const f: Folded = { entry: e, approved: false };
    this.order.push(f);
    this.byId.set(e.modification_id, f);
    push(this.byFile, e.file, f);
    if (e.correlation_id) push(this.byCorrelation, e.correlation_id, f);
    if (e.operation === 'rollback' && e.rolls_back && e.hunk !== undefined) {
      // One hunk: recorded on the target; whether it still counts is read off the rollback's own fold.
      const target = this.byId.get(e.rolls_back);
      if (target && Number.isInteger(e.hunk) && e.hunk >= 0) (target.hunkRollbacks ??= []).push(f);
      return;
    }
    if (e.operation === 'rollback' && e.rolls_back) {
      const target = this.byId.get(e.rolls_back);
      if (!target) return;
      target.rolledBackBy = e.modification_id;
      // Rolling back a rollback re-applies what it had reversed.
      const reApplied = target.entry.operation === 'rollback' && target.entry.hunk === undefined && target.entry.rolls_back;
      const original = reApplied ? this.byId.get(reApplied) : undefined;
      if (original?.rolledBackBy === target.entry.modification_id) delete original.rolledBackBy;
    }
  }

  /** Modifications of `file` that come after `id` in the log. */
  laterOn(file: string, id: string): Folded[] {
    const list = this.byFile.get(file) ?? [];
    const at = list.findIndex((f) => f.entry.modification_id === id);
    return at === -1 ? [] : list.slice(at + 1);
  }

  ofFile(file: string): Folded[] {
    return this.byFile.get(file) ?? [];
  }

  ofCorrelation(id: string): Folded[] {
    return this.byCorrelation.get(id) ?? [];
  }

  /** Newest first. Walks the narrowest list only as far as `limit` needs. */
  query(q: ModificationQuery = {}): { modifications: ModificationView[]; total: number } {
    let list = this.order;
    if (q.correlation_id !== undefined) list = this.ofCorrelation(q.correlation_id);
    if (q.file !== undefined && (q.correlation_id === undefined || this.ofFile(q.file).length < list.length)) list = this.ofFile(q.file);
    const keep = (f: Folded) =>
      (q.correlation_id === undefined || f.entry.correlation_id === q.correlation_id) &&
      (q.file === undefined || f.entry.file === q.file) &&
      (q.status === undefined || statusOf(f) === q.status);
    const limit = q.limit ?? 10_000;
    const out: ModificationView[] = [];
    let total = 0;
    for (let i = list.length - 1; i >= 0; i--) {
      if (!keep(list[i])) continue;
      total++;
      if (out.length < limit) out.push(toView(list[i]));
    }
    return { modifications: out, total };
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** A Fold that follows the JSONL file, whoever appends to it. */
export class LogIndex {
  private fold = new Fold();
  /** Bytes consumed: always just after a newline, so a line being written is read next time. */
  private offset = 0;
  private ino = -1;
  private queue: Promise<unknown> = Promise.resolve();

  /** `root`: the folder the log must be reached through without links (default: its own folder). */
  constructor(
    readonly file: string,
    private readonly root = path.dirname(file),
  ) {}

  /** Brings the fold up to date and returns it. Serialised: each caller sees what was appended before it asked. */
  sync(): Promise<Fold> {
    const job = this.queue.then(() => this.readTail());
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
      // Replaced or cut below what we read (a torn tail is cut only after the last newline): start over.
      if (st.ino !== this.ino || st.size < this.offset) this.reset(st.ino);
      if (st.size === this.offset) return this.fold;
      const buf = Buffer.alloc(st.size - this.offset);
      const { bytesRead } = await fh.read(buf, 0, buf.length, this.offset);
      const end = buf.subarray(0, bytesRead).lastIndexOf(0x0a);
      if (end === -1) return this.fold;
      for (const line of buf.subarray(0, end).toString('utf8').split('\n')) {
        const parsed = parseLine(line);
        if (parsed) this.fold.add(parsed);
      }
      this.offset += end + 1;
    } finally {
      await fh.close();
    }
    return this.fold;
  }

  private reset(ino: number): void {
    this.fold = new Fold();
    this.offset = 0;
    this.ino = ino;
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
