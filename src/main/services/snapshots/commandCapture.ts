// What a command wrote becomes modifications (docs/architecture.md, "What a command wrote"):
// a snapshot of the non-ignored tree before the command and one after; the paths that differ
// are recorded as one group of the request, attributed to the command, with before and after
// contents from the snapshots (binary files too), staged like any write. A path another writer
// of this process recorded during the command (an agent edit of another session, the review
// pane) is left to that record. Ignored paths are never recorded; the group says how many
// changed. Links and nested repositories are not files Loupe writes: they are counted, not kept.
import path from 'node:path';
import { sha256 } from '../files/hash';
import type { Logger } from '../log/logger';
import type { BatchFile, ModificationLog } from '../modlog/modificationLog';
import { newGroupId } from '../modlog/groupRollback';
import type { EntryDraft, ModificationEntry } from '../modlog/types';
import { linesTouched } from '../modlog/unifiedDiff';
import { WorkTreeSnapshots, type Snapshot, type TreeChange } from './workTreeSnapshots';

export interface CaptureRequest {
  /** bash, run_tests, or an MCP server's tool (mcp__<server>__<tool>). */
  tool: string;
  command: string;
  sessionId: string;
  /** The subagent that ran it, when a child session did. */
  agentId?: string;
  correlationId?: string;
  /** What the command is for (the model's description): kept as the lines' reason. */
  reason?: string;
  signal?: AbortSignal;
}

export interface CapturedFile {
  file: string;
  change: 'created' | 'changed' | 'deleted';
  /** With a rename: the other path (created: where it came from; deleted: where it went). */
  renamed?: string;
  modification_id: string;
  binary: boolean;
  lines_changed?: number;
}

export interface CaptureResult {
  /** The group of modifications the command made; null when it changed no recorded file. */
  group_id: string | null;
  files: CapturedFile[];
  /** Ignored entries (a wholly ignored folder counts once) that appeared, went or changed; null if unknown. */
  ignored_changed: number | null;
  /** Paths that changed but are not files Loupe records (links, nested repositories). */
  not_recorded: string[];
  /** Why nothing could be recorded (the snapshot failed); the command ran all the same. */
  error?: string;
}

const REGULAR = new Set(['100644', '100755']);
const isBinary = (b: Buffer | null) => !!b && b.subarray(0, 8000).includes(0);

/** One side of a change, as a regular file or nothing (a link or a nested repository is nothing here). */
interface Side {
  path: string;
  oid: string | null;
  mode: string | null;
}

export interface CaptureHandle {
  /** Takes the snapshot after and records what changed (once; later calls get the same answer). */
  end(): Promise<CaptureResult>;
  /** Nothing ran after all (it threw before it could write): record nothing. */
  cancel(): void;
}

export class CommandCapture {
  /** The last snapshot's ignored entries: the next command's "before" for counting them. */
  private lastIgnored: Snapshot['ignored'] = null;

  constructor(
    private readonly snapshots: WorkTreeSnapshots,
    private readonly log: ModificationLog,
    private readonly logger: Logger,
  ) {}

  private warmed = false;

  /** Takes the first snapshot now (the slowest: every file is hashed or borrowed), so a first command waits less. Once. */
  warm(): void {
    if (this.warmed) return;
    this.warmed = true;
    void this.snapshots.take({ ignored: true }).then(
      (s) => (this.lastIgnored = s.ignored),
      () => undefined,
    );
  }

  /** Runs `run` between two snapshots and records what changed as one group. */
  async around<T>(req: CaptureRequest, run: () => Promise<T>): Promise<{ value: T; capture: CaptureResult }> {
    const capture = await this.begin(req);
    let value: T;
    try {
      value = await run();
    } catch (err) {
      capture.cancel();
      throw err;
    }
    return { value, capture: await capture.end() };
  }

  /**
   * The snapshot before something runs (a foreground command, a background process for its whole
   * life); `end` takes the one after and records the difference. Writes another writer of this
   * process records meanwhile are left to that record.
   */
  async begin(req: CaptureRequest): Promise<CaptureHandle> {
    let before: Snapshot | null = null;
    let failed: string | null = null;
    try {
      before = await this.snapshots.take({ ignored: !this.lastIgnored });
      if (!before.ignored) before.ignored = this.lastIgnored;
    } catch (err) {
      failed = (err as Error).message;
      this.logger.warn('capture.failed', { stage: 'before', error: err });
    }
    const others = new Map<string, string | null>();
    const off = this.log.onApplied((e: ModificationEntry) => others.set(e.file, e.after_sha256));
    let ended: Promise<CaptureResult> | null = null;
    return {
      cancel: off,
      end: () =>
        (ended ??= (async () => {
          off();
          if (!before) return { group_id: null, files: [], ignored_changed: null, not_recorded: [], error: failed ?? 'no snapshot' };
          try {
            return await this.record(req, before, others);
          } catch (err) {
            this.logger.warn('capture.failed', { stage: 'after', error: err });
            return { group_id: null, files: [], ignored_changed: null, not_recorded: [], error: (err as Error).message };
          }
        })()),
    };
  }

  private async record(req: CaptureRequest, before: Snapshot, others: Map<string, string | null>): Promise<CaptureResult> {
    const after = await this.snapshots.take({ ignored: true });
    this.lastIgnored = after.ignored;
    const ignored = WorkTreeSnapshots.ignoredChanged(before, after);
    const changes = await this.snapshots.diff(before.tree, after.tree);
    const notRecorded: string[] = [];
    const pairs: Pair[] = [];
    for (const c of changes) {
      const oldSide = c.oldMode && REGULAR.has(c.oldMode) ? { path: c.from ?? c.path, oid: c.oldOid, mode: c.oldMode } : null;
      const newSide = c.newMode && REGULAR.has(c.newMode) ? { path: c.path, oid: c.newOid, mode: c.newMode } : null;
      if ((c.oldMode && !oldSide) || (c.newMode && !newSide)) notRecorded.push(c.path);
      if (!oldSide && !newSide) continue;
      pairs.push(...splitChange(c, oldSide, newSide));
    }
    const blobs = await this.snapshots.blobs(pairs.flatMap((p) => [p.old?.oid ?? '', p.neu?.oid ?? '']), req.signal);
    const groupId = newGroupId('command');
    const batch: BatchFile[] = [];
    const files: Omit<CapturedFile, 'modification_id'>[] = [];
    const kept: Buffer[] = [];
    for (const p of pairs) {
      const file = (p.neu ?? p.old)!.path;
      const beforeBuf = p.old?.oid ? blobs.get(p.old.oid)! : null;
      const afterBuf = p.neu?.oid ? blobs.get(p.neu.oid)! : null;
      const afterSha = afterBuf ? sha256(afterBuf) : null;
      // Another writer's record already names this very content: theirs, not the command's.
      if (others.has(file) && others.get(file) === afterSha) continue;
      const binary = isBinary(beforeBuf) || isBinary(afterBuf);
      const lines = binary ? undefined : linesTouched(beforeBuf?.toString('utf8') ?? '', afterBuf?.toString('utf8') ?? '');
      const { renamedFrom, renamedTo } = p;
      const entry: EntryDraft = {
        session_id: req.sessionId,
        ...(req.agentId ? { agent_id: req.agentId } : {}),
        ...(req.correlationId ? { correlation_id: req.correlationId } : {}),
        tool: req.tool,
        operation: !p.old ? 'create' : !p.neu ? 'delete_file' : 'overwrite',
        file,
        ...(lines !== undefined ? { lines_changed: lines } : {}),
        ...(req.reason ? { reason: req.reason } : {}),
        before_sha256: beforeBuf ? sha256(beforeBuf) : null,
        after_sha256: afterSha,
        group_id: groupId,
        group_kind: 'command',
        command: req.command,
        ...(ignored !== null ? { ignored_changed: ignored } : {}),
        ...(renamedFrom ? { renamed_from: renamedFrom } : {}),
        ...(renamedTo ? { renamed_to: renamedTo } : {}),
        file_modes: [p.old?.mode ?? null, p.neu?.mode ?? null],
      };
      // Tree paths never pass through a link (git records links, it does not follow them): this is the real path.
      // In the snapshot, so git's ignore rules (the repository's own, read by the snapshot's git) keep it.
      batch.push({ file, abs: path.join(this.log.root, file), entries: [entry], notIgnored: true });
      if (beforeBuf) kept.push(beforeBuf);
      if (afterBuf) kept.push(afterBuf);
      files.push({ file, change: !p.old ? 'created' : !p.neu ? 'deleted' : 'changed', ...(renamedFrom || renamedTo ? { renamed: renamedFrom ?? renamedTo } : {}), binary, ...(lines !== undefined ? { lines_changed: lines } : {}) });
    }
    if (!batch.length) return { group_id: null, files: [], ignored_changed: ignored, not_recorded: notRecorded };
    const written = await this.log.applyBatch(batch, kept);
    return {
      group_id: groupId,
      files: files.map((f, i) => ({ ...f, modification_id: written[i][0].modification_id })),
      ignored_changed: ignored,
      not_recorded: notRecorded,
    };
  }

  dispose(): Promise<void> {
    return this.snapshots.dispose();
  }
}

interface Pair {
  old: Side | null;
  neu: Side | null;
  renamedFrom?: string;
  renamedTo?: string;
}

/** A rename becomes the old path's deletion and the new path's creation; a type change keeps only its regular side. */
function splitChange(c: TreeChange, old: Side | null, neu: Side | null): Pair[] {
  if (c.status !== 'R') return [{ old, neu }];
  return [...(old ? [{ old, neu: null, ...(neu ? { renamedTo: neu.path } : {}) }] : []), ...(neu ? [{ old: null, neu, ...(old ? { renamedFrom: old.path } : {}) }] : [])];
}
