// Rollback of one modification, or of one of its hunks (docs/architecture.md, the modification log). When the file still holds
// the modification's after-content the before-content comes back exactly (created files are
// deleted, deleted ones recreated) with the git index entry it replaced. Otherwise the reversal
// is merged three-way into what is there now; a conflict refuses and changes nothing. The
// rollback goes through apply(), so it is a modification itself and can be rolled back.
import { readInside } from '../files/safeOpen';
import { InvalidArgumentError } from '../../errors';
import { sha256 } from '../files/hash';
import { resolveInWorkspace } from '../workspace/pathGuard';
import { AlreadyRolledBackError, ModificationNotFoundError, RollbackConflictError } from './errors';
import { revertedHunks, statusOf, type Fold, type Folded } from './fold';
import { merge3 } from './merge3';
import type { ModificationLog } from './modificationLog';
import type { ModificationEntry } from './types';
import type { DiagnosticsView } from '../../../shared/contract';
import { hunkCount, linesTouched, revertOneHunk } from './unifiedDiff';

export interface RollbackRequest {
  modificationId: string;
  /** Only this hunk (0-based, in the order of the modification's unified diff). */
  hunk?: number;
  sessionId: string;
  /** The subagent that asked for it, when a child session did. */
  agentId?: string;
  tool: string;
  reason?: string;
  correlationId?: string;
  signal?: AbortSignal;
  /**
   * Called with the file's current and proposed bytes before anything is written; throwing
   * stops the rollback with nothing changed (the agent's tools ask permission here). What it
   * returns is recorded on the rollback's line (the problems the language server foresees).
   */
  confirm?: (proposal: { file: string; before: Buffer | null; after: Buffer | null }) => Promise<void | WriteNotes>;
}

/** Facts about a write learnt before it, kept on its line. */
export interface WriteNotes {
  diagnostics?: DiagnosticsView;
}

export interface RollbackOutcome {
  status: 'rolled_back';
  rollback_id: string;
  file: string;
  lines_restored: number;
  /** false: clean restore; true: the reversal was merged with later changes. */
  merged: boolean;
  git_staged: boolean;
}

/** What the file holds now, through real folders; a FIFO or a link in its place is refused without blocking. */
async function readOrNull(root: string, abs: string): Promise<Buffer | null> {
  return (await readInside(root, abs))?.buf ?? null;
}

const blob = (log: ModificationLog, sha: string | null) => (sha ? log.blobs.get(sha) : Promise.resolve(null));

export async function findModification(log: ModificationLog, id: string): Promise<{ fold: Fold; target: Folded }> {
  const fold = await log.index().sync();
  const target = fold.get(id);
  if (!target) throw new ModificationNotFoundError(id);
  return { fold, target };
}

/** Before/after bytes of a modification, from the blob store (never from git). */
export async function sidesOf(log: ModificationLog, e: ModificationEntry): Promise<{ before: Buffer | null; after: Buffer | null }> {
  // Both reads run at once, but which one fails first must not choose the error: a planted link
  // (UNSAFE_PATH) is always the one reported, ahead of a blob that is merely missing.
  const [before, after] = await Promise.allSettled([blob(log, e.before_sha256), blob(log, e.after_sha256)]);
  if (before.status === 'fulfilled' && after.status === 'fulfilled') return { before: before.value, after: after.value };
  const errors = [before, after].flatMap((r) => (r.status === 'rejected' ? [r.reason as { code?: string }] : []));
  throw errors.find((err) => err?.code === 'UNSAFE_PATH') ?? errors[0];
}

export async function rollbackModification(log: ModificationLog, req: RollbackRequest): Promise<RollbackOutcome> {
  const { target } = await findModification(log, req.modificationId);
  const e = target.entry;
  if (req.hunk === undefined && target.rolledBackBy) throw new AlreadyRolledBackError(e.modification_id, target.rolledBackBy);
  // Reverting a hunk twice would log a no-op that keeps the hunk marked after the first is undone.
  const hunkBy = req.hunk === undefined ? undefined : revertedHunks(target).get(req.hunk);
  if (hunkBy) throw new AlreadyRolledBackError(`Hunk ${req.hunk} of ${e.modification_id}`, hunkBy);
  const { abs } = await resolveInWorkspace(log.root, e.file);
  return log.withFileLock(abs, async () => {
    const { before, after } = await sidesOf(log, e);
    const wanted = req.hunk === undefined ? before : hunkReverted(e, before, after, req.hunk);
    const current = await readOrNull(log.root, abs);
    const currentSha = current ? sha256(current) : null;
    let result: Buffer | null;
    let merged = false;
    if (currentSha === e.after_sha256) {
      // As the modification left it, although a later one is in effect and the file was edited
      // outside Loupe since: that edit brought it back (a deletion, as a rule); going back would undo it.
      const since = await conflict(log, e, currentSha, current === null ? 'the file was deleted outside Loupe after a later change made it again' : 'the file was set back outside Loupe after a later change');
      if (since.blocking.length && since.outsideChanges) throw since;
      result = wanted;
    } else if (current === null && wanted === null) result = null;
    else if (current && after && wanted) {
      const m = await merge3(current, after, wanted, req.signal);
      if (!m.clean) throw await conflict(log, e, currentSha, m.why);
      result = m.merged;
      merged = true;
    } else {
      throw await conflict(log, e, currentSha, current === null ? 'the file is gone' : 'the file exists again with other content');
    }
    const clean = !merged && req.hunk === undefined;
    const notes = await req.confirm?.({ file: e.file, before: current, after: result });
    const hunks = req.hunk !== undefined && before && after ? hunkCount(before.toString('utf8'), after.toString('utf8')) : undefined;
    const res = await log.apply({
      file: e.file,
      abs,
      content: result,
      tool: req.tool,
      operation: 'rollback',
      sessionId: req.sessionId,
      ...(req.agentId ? { agentId: req.agentId } : {}),
      // For people (the timeline, modification_log): hunks counted from 1, as the diff view shows them.
      reason: req.reason ?? rollbackReason(e.modification_id, req.hunk, hunks),
      correlationId: req.correlationId ?? e.correlation_id,
      rollsBack: e.modification_id,
      hunk: req.hunk,
      ...(hunks !== undefined ? { hunkCount: hunks } : {}),
      linesAffected: e.lines_affected,
      linesChanged: linesTouched(current?.toString('utf8') ?? '', result?.toString('utf8') ?? ''),
      expectBeforeSha: currentSha,
      // A clean whole rollback puts the index entry back as it was; a merge stages its result.
      ...(clean && e.git_index_before !== undefined ? { restoreIndex: e.git_index_before } : {}),
      ...(notes?.diagnostics ? { diagnostics: notes.diagnostics } : {}),
    });
    return {
      status: 'rolled_back',
      rollback_id: res.modificationId,
      file: e.file,
      lines_restored: res.entry.lines_changed ?? 0,
      merged,
      git_staged: res.gitStaged,
    };
  });
}

function hunkReverted(e: ModificationEntry, before: Buffer | null, after: Buffer | null, hunk: number): Buffer {
  if (!before || !after) throw new InvalidArgumentError(`${e.modification_id} ${before ? 'deleted' : 'created'} ${e.file}; roll it back whole instead of by hunk.`);
  const text = revertOneHunk(before.toString('utf8'), after.toString('utf8'), hunk);
  if (text === null) throw new InvalidArgumentError(`${e.modification_id} has no hunk ${hunk}. Hunks are numbered from 0 in the order of its diff.`);
  return Buffer.from(text, 'utf8');
}

async function conflict(log: ModificationLog, e: ModificationEntry, currentSha: string | null, why: string): Promise<RollbackConflictError> {
  const fold = await log.index().sync();
  const later = fold.laterOn(e.file, e.modification_id);
  // A later change already undone by its own rollback is not in the way; the pair cancels out.
  const cancelled = (f: Folded) => f.entry.operation === 'rollback' && f.entry.hunk === undefined && fold.get(f.entry.rolls_back ?? '')?.rolledBackBy === f.entry.modification_id;
  const blocking = later.filter((f) => statusOf(f) !== 'rolled_back' && !cancelled(f)).map((f) => f.entry.modification_id);
  const lastKnown = [e, ...later.map((f) => f.entry)].pop()!.after_sha256;
  return new RollbackConflictError(e.modification_id, e.file, blocking, lastKnown !== currentSha, why);
}

/** "Rolled back mod-…", or "Reverted hunk 2 of 3 in mod-…" for one hunk (`hunk` is 0-based). */
export function rollbackReason(id: string, hunk?: number, hunkCount?: number): string {
  if (hunk === undefined) return `Rolled back ${id}`;
  return `Reverted hunk ${hunk + 1}${hunkCount ? ` of ${hunkCount}` : ''} in ${id}`;
}
