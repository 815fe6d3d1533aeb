// Rolling back many modifications as one step (docs/architecture.md, "Undo a request"): every
// modification of a request and the later ones of its session, or every member of a group (a
// command's writes, an undo — whose rollback is its redo). Planned first, changing nothing: per
// file, the modifications are reversed newest first in memory, each cleanly when the file holds
// its after-content, else by a three-way merge, exactly as one rollback does; a file where a
// step conflicts is a conflict, with the later modifications (or outside edits) in the way. The
// plan is what the preview shows. Applying it writes each file once, under every file's lock,
// after checking each still holds what the plan saw; a conflicting file is skipped or the whole
// step refused, as the caller chose, and never overwritten. Each reversed modification gets its
// own rollback line, all sharing one group id, so the step is itself one reversible group.
import { randomBytes } from 'node:crypto';
import { sha256 } from '../files/hash';
import { readInside } from '../files/safeOpen';
import { resolveInWorkspace } from '../workspace/pathGuard';
import { InvalidArgumentError } from '../../errors';
import { ConcurrentChangeError, ModificationNotFoundError, PlanStaleError, RollbackConflictError } from './errors';
import { statusOf, type Fold, type Folded } from './fold';
import { stampOf } from './ids';
import { merge3 } from './merge3';
import type { BatchFile, ModificationLog } from './modificationLog';
import type { EntryDraft, GroupKind } from './types';
import { sidesOf, type WriteNotes } from './rollback';
import { linesTouched } from './unifiedDiff';

/** One modification reversed within a file's plan: the file's content before and after that step. */
export interface PlanStep {
  target: Folded;
  before: Buffer | null;
  after: Buffer | null;
  merged: boolean;
}

export interface FilePlan {
  file: string;
  abs: string;
  /** On disk now, and its permission bits (null: absent). */
  current: Buffer | null;
  mode: number | null;
  /** What the file is left holding once every step ran. */
  result: Buffer | null;
  /** Newest target first; empty when it conflicts. */
  steps: PlanStep[];
  conflict: null | { why: string; blocking: string[]; outside: boolean; at: string };
}

export interface RollbackPlan {
  /** Every modification reversed, newest first. */
  targets: string[];
  files: FilePlan[];
}

export interface ApplyGroupOptions {
  /** A conflicting file: leave it and reverse the rest (`skip`), or change nothing at all (`refuse`). */
  onConflict: 'skip' | 'refuse';
  sessionId: string;
  /** The subagent that asked for it, when a child session did. */
  agentId?: string;
  tool: string;
  kind: GroupKind;
  reason?: string;
  /** The request an undo starts from (kept on its lines). */
  undoOf?: string;
  /** Overrides the correlation of the lines (default: each reversed modification's own). */
  correlationId?: string;
  /**
   * Called with the plan's files about to change; throwing stops everything (the agent's tools ask
   * permission here). Notes it returns per file are recorded on that file's last line.
   */
  confirm?: (files: FilePlan[]) => Promise<void | Map<string, WriteNotes>>;
  signal?: AbortSignal;
}

export interface GroupRollbackResult {
  group_id: string;
  /** The modifications reversed, newest first. */
  rolled_back: string[];
  files: string[];
  /** Files left as they are because they conflict (onConflict "skip"). */
  skipped: { file: string; why: string; blocking: string[] }[];
}

/** Group ids: sortable by time, kind first so a person can tell them apart. */
export function newGroupId(kind: GroupKind, now = new Date()): string {
  const prefix = { command: 'cmd', undo: 'undo', redo: 'redo', rollback: 'grp', worktree: 'wt' }[kind];
  return `${prefix}-${stampOf(now)}-${randomBytes(3).toString('hex')}`;
}

/** Where a record sits in the log, for newest-first order (ids are not ordered past 999 a second). */
function positions(fold: Fold): (f: Folded) => number {
  const at = new Map<Folded, number>();
  const n0 = fold.base?.n ?? 0;
  fold.tail.forEach((f, i) => at.set(f, n0 + i));
  return (f) => at.get(f) ?? (f as { row?: number }).row ?? -1;
}

/**
 * The modifications to reverse among `candidates`, newest first: those still in effect, and
 * those reversed by a rollback that is itself being reversed (else rolling that rollback back
 * would bring them back).
 */
export function selectTargets(fold: Fold, candidates: Folded[]): Folded[] {
  const pos = positions(fold);
  const sorted = [...new Set(candidates)].sort((a, b) => pos(b) - pos(a));
  const chosen = new Set<string>();
  const out: Folded[] = [];
  for (const f of sorted) {
    if (statusOf(f) !== 'rolled_back' || (f.rolledBackBy && chosen.has(f.rolledBackBy))) {
      chosen.add(f.id);
      out.push(f);
    }
  }
  return out;
}

const UNDO_KINDS = new Set<string | undefined>(['undo', 'redo']);

/**
 * What "undo changes from here" reverses: this session's modifications of the given requests,
 * leaving out the undos and redos themselves (their own rollback is the redo).
 */
export function undoCandidates(fold: Fold, sessionId: string, correlations: readonly string[]): Folded[] {
  return correlations.flatMap((c) => fold.ofCorrelation(c)).filter((f) => f.entry.session_id === sessionId && !UNDO_KINDS.has(f.entry.group_kind));
}

/**
 * The requests from `correlation` on, in log order, for callers that keep no list of a session's
 * requests (`code_rollback undo_request`, `loupe run --undo-last`): the session is the one that
 * made the request's first modification.
 */
export function requestsFrom(fold: Fold, correlation: string): { sessionId: string; correlations: string[] } {
  const own = fold.ofCorrelation(correlation).filter((f) => !UNDO_KINDS.has(f.entry.group_kind));
  if (!own.length) throw new ModificationNotFoundError(`for request ${correlation}`);
  const pos = positions(fold);
  const first = own.reduce((a, b) => (pos(a) <= pos(b) ? a : b));
  const sessionId = first.entry.session_id;
  const from = pos(first);
  const seen = new Set<string>([correlation]);
  const out = [correlation];
  for (const f of fold.order.slice(from)) {
    if (f.correlation && !seen.has(f.correlation) && f.entry.session_id === sessionId && !UNDO_KINDS.has(f.entry.group_kind)) {
      seen.add(f.correlation);
      out.push(f.correlation);
    }
  }
  return { sessionId, correlations: out };
}

/** The kind a group's rollback has: an undo's rollback is its redo, and a redo's an undo again. */
export function rollbackKindOf(members: Folded[]): GroupKind {
  const kind = members[0]?.entry.group_kind;
  return kind === 'undo' ? 'redo' : kind === 'redo' ? 'undo' : 'rollback';
}


/** Reverses `targets` (newest first) in memory, file by file; writes nothing. */
export async function planRollback(log: ModificationLog, fold: Fold, targets: Folded[], signal?: AbortSignal): Promise<RollbackPlan> {
  const byFile = new Map<string, Folded[]>();
  for (const t of targets) {
    const list = byFile.get(t.file);
    if (list) list.push(t);
    else byFile.set(t.file, [t]);
  }
  const chosen = new Set(targets.map((t) => t.id));
  const files: FilePlan[] = [];
  const sides = new Map<string, Sides>();
  for (const [file, chain] of byFile) {
    const { abs } = await resolveInWorkspace(log.root, file);
    const read = await readInside(log.root, abs);
    const current = read?.buf ?? null;
    const plan: FilePlan = { file, abs, current, mode: read ? read.st.mode & 0o7777 : null, result: current, steps: [], conflict: null };
    let cur = current;
    for (const [i, t] of chain.entries()) {
      const e = t.entry;
      const { before, after } = await sidesOf(log, e);
      sides.set(t.id, { before, after });
      const curSha = cur ? sha256(cur) : null;
      let next: Buffer | null;
      let merged = false;
      // The file as `t` left it, although another change is in effect since and the file was then
      // edited outside Loupe: it came back to this state by that edit (a file another session
      // made, then deleted by the person), so going back would undo the person's edit.
      const returned = i === 0 && curSha === e.after_sha256 ? conflictOf(fold, t, chosen, current, '') : null;
      if (returned?.blocking.length && returned.outside) {
        plan.conflict = { ...returned, why: cur === null ? 'the file was deleted outside Loupe after a later change made it again' : 'the file was set back outside Loupe after a later change' };
        break;
      }
      if (curSha === e.after_sha256) next = before;
      else if (cur === null && before === null) next = null;
      else if (cur && after && before) {
        const m = await merge3(cur, after, before, signal);
        if (!m.clean) {
          plan.conflict = conflictOf(fold, t, chosen, current, m.why);
          break;
        }
        next = m.merged;
        merged = true;
      } else {
        plan.conflict = conflictOf(fold, t, chosen, current, cur === null ? 'the file is gone' : 'the file exists again with other content');
        break;
      }
      plan.steps.push({ target: t, before: cur, after: next, merged });
      cur = next;
    }
    // Deleted outside Loupe after its last change: reversing that change agreed with the deletion,
    // but reversing an older one (the command that first removed it) would bring it back.
    if (!plan.conflict && current === null && cur !== null && lastKnownOf(fold, chain[0]!) !== null) {
      plan.conflict = conflictOf(fold, chain[0]!, chosen, current, 'the file was deleted outside Loupe after the change; undoing would bring it back');
    }
    if (plan.conflict) plan.steps = [];
    else plan.result = cur;
    files.push(plan);
  }
  await holdMovesTogether(log, fold, byFile, files, sides);
  return { targets: targets.map((t) => t.id), files };
}

/**
 * The other path of a rename that `t` (or the modification a rollback line reversed) is one
 * side of: a command's rename is recorded as the old path's deletion and the new path's creation.
 */
function renamePartner(fold: Fold, t: Folded): string | undefined {
  const e = t.entry.rolls_back ? (fold.get(t.entry.rolls_back)?.entry ?? t.entry) : t.entry;
  return e.renamed_to ?? e.renamed_from;
}

type Sides = { before: Buffer | null; after: Buffer | null };

/**
 * Content that a command moved goes back on both sides or on neither: reversing one side alone
 * deletes (or reverts) the path it went to while the path it came from stays as it is, and the
 * content that moved, with any other session's lines in it, leaves the tree. So a conflict in one
 * file makes a conflict of every file content moved to or from (and theirs, in turn):
 * - the two sides of a rename (a command's rename is recorded as the old path's deletion and the
 *   new path's creation);
 * - within one group, a file that lost lines (it went, or was overwritten) and a file that gained
 *   any of those lines. Git calls few moves renames: not `mv a b` over an existing `b`, not a
 *   chain `mv a b; mv c a`, not a move followed by an edit that leaves the two below its
 *   similarity threshold. Lines that are blank are no one's work and link nothing.
 * Holding more files only skips more of a conflicting step; it never writes more.
 */
async function holdMovesTogether(log: ModificationLog, fold: Fold, byFile: Map<string, Folded[]>, files: FilePlan[], sides: Map<string, Sides>): Promise<void> {
  if (!files.some((f) => f.conflict)) return;
  const links = new Map<string, Set<string>>();
  const link = (a: string, b: string) => {
    if (a === b) return;
    for (const [x, y] of [[a, b], [b, a]]) {
      const set = links.get(x) ?? new Set<string>();
      set.add(y);
      links.set(x, set);
    }
  };
  for (const [file, chain] of byFile) {
    for (const t of chain) {
      const other = renamePartner(fold, t);
      if (other && byFile.has(other)) link(file, other);
    }
  }
  // Only a file already held reads sides the plan did not (its steps stopped at the conflict);
  // a blob that cannot be read there tells nothing, and that file's own plan says why.
  const sideOf = async (t: Folded): Promise<Sides> => sides.get(t.id) ?? (await sidesOf(log, t.entry).catch(() => ({ before: null, after: null })));
  // `group \0 line` → the files of that group that lost the line.
  const lost = new Map<string, Set<string>>();
  const gained: { group: string; file: string; lines: Set<string> }[] = [];
  for (const [file, chain] of byFile) {
    for (const t of chain) {
      const e = t.entry;
      if (!e.group_id || e.before_sha256 === e.after_sha256) continue;
      const { before, after } = await sideOf(t);
      const was = linesOf(before);
      const now = linesOf(after);
      for (const l of was) {
        if (now.has(l)) continue;
        const key = `${e.group_id}\0${l}`;
        const set = lost.get(key) ?? new Set<string>();
        set.add(file);
        lost.set(key, set);
      }
      const added = new Set([...now].filter((l) => !was.has(l)));
      if (added.size) gained.push({ group: e.group_id, file, lines: added });
    }
  }
  for (const g of gained) for (const l of g.lines) for (const from of lost.get(`${g.group}\0${l}`) ?? []) link(g.file, from);
  const plans = new Map(files.map((f) => [f.file, f]));
  const queue = files.filter((f) => f.conflict);
  // Each file held back names the file whose own conflict holds it, not a chain of renames.
  const cause = new Map(queue.map((f) => [f.file, f]));
  while (queue.length) {
    const from = queue.shift()!;
    for (const other of links.get(from.file) ?? []) {
      const p = plans.get(other)!;
      if (p.conflict) continue;
      const root = cause.get(from.file)!;
      const c = root.conflict!;
      cause.set(other, root);
      p.conflict = { why: `it was renamed or moved together with ${root.file}, which cannot go back (${c.why})`, blocking: c.blocking, outside: c.outside, at: byFile.get(other)![0].id };
      p.steps = [];
      p.result = p.current;
      queue.push(p);
    }
  }
}

/** A content's distinct lines that hold more than whitespace. */
function linesOf(buf: Buffer | null): Set<string> {
  const out = new Set<string>();
  if (!buf) return out;
  for (const l of buf.toString('latin1').split('\n')) if (l.trim()) out.add(l);
  return out;
}

/** The file's content as the log last left it: after `t`, or after the last change logged since. */
function lastKnownOf(fold: Fold, t: Folded): string | null {
  return [t.entry, ...fold.laterOn(t.file, t.id).map((f) => f.entry)].pop()!.after_sha256;
}

/** What stands in the way of reversing `t`: later modifications outside the plan, and edits Loupe did not make. */
function conflictOf(fold: Fold, t: Folded, chosen: Set<string>, current: Buffer | null, why: string): NonNullable<FilePlan['conflict']> {
  const later = fold.laterOn(t.file, t.id);
  const cancelled = (f: Folded) => f.entry.operation === 'rollback' && f.entry.hunk === undefined && fold.get(f.entry.rolls_back ?? '')?.rolledBackBy === f.entry.modification_id;
  const blocking = later.filter((f) => !chosen.has(f.id) && statusOf(f) !== 'rolled_back' && !cancelled(f)).map((f) => f.id);
  return { why, blocking, outside: lastKnownOf(fold, t) !== (current ? sha256(current) : null), at: t.id };
}

/** Applies a plan (made just before, under no lock): each file must still hold what the plan saw. */
export async function applyRollbackPlan(log: ModificationLog, plan: RollbackPlan, opts: ApplyGroupOptions): Promise<GroupRollbackResult> {
  const conflicts = plan.files.filter((f) => f.conflict);
  if (conflicts.length && opts.onConflict === 'refuse') {
    const c = conflicts[0];
    throw new RollbackConflictError(c.conflict!.at, c.file, c.conflict!.blocking, c.conflict!.outside, `${c.conflict!.why}; ${conflicts.length} file${conflicts.length === 1 ? '' : 's'} conflict`);
  }
  const go = plan.files.filter((f) => !f.conflict && f.steps.length);
  if (!go.length) throw new InvalidArgumentError(conflicts.length ? 'Every file of this step conflicts with later changes; nothing was changed.' : 'Nothing to roll back: every modification here is already rolled back.');
  const notes = (await opts.confirm?.(go)) || undefined;
  const groupId = newGroupId(opts.kind);
  const blobs: Buffer[] = [];
  const batch: BatchFile[] = go.map((f) => {
    for (const s of f.steps) for (const b of [s.before, s.after]) if (b) blobs.push(b);
    const clean = f.steps.every((s) => !s.merged);
    const oldest = f.steps[f.steps.length - 1].target.entry;
    const entries = f.steps.map((s): EntryDraft => ({
      session_id: opts.sessionId,
      ...(opts.agentId ? { agent_id: opts.agentId } : {}),
      ...((opts.correlationId ?? s.target.entry.correlation_id) ? { correlation_id: opts.correlationId ?? s.target.entry.correlation_id } : {}),
      tool: opts.tool,
      operation: 'rollback',
      file: f.file,
      ...(s.target.entry.lines_affected ? { lines_affected: s.target.entry.lines_affected } : {}),
      lines_changed: linesTouched(s.before?.toString('utf8') ?? '', s.after?.toString('utf8') ?? ''),
      reason: opts.reason ?? `roll back ${s.target.id}`,
      before_sha256: s.before ? sha256(s.before) : null,
      after_sha256: s.after ? sha256(s.after) : null,
      rolls_back: s.target.id,
      group_id: groupId,
      group_kind: opts.kind,
      ...(opts.undoOf ? { undo_of: opts.undoOf } : {}),
      ...(s.target.entry.file_modes ? { file_modes: [s.target.entry.file_modes[1], s.target.entry.file_modes[0]] as [string | null, string | null] } : {}),
    }));
    // The last line leaves the file as the plan's result: what it introduces belongs there.
    const diagnostics = notes?.get(f.file)?.diagnostics;
    if (diagnostics) entries[entries.length - 1].diagnostics = diagnostics;
    // A file the chain brings back gets the permission bits it had when it went.
    const recreated = f.current === null && f.result !== null;
    const mode = recreated ? (oldest.file_modes?.[0] === '100755' ? 0o755 : undefined) : (f.mode ?? undefined);
    return {
      file: f.file,
      abs: f.abs,
      write: { content: f.result, mode },
      expectBeforeSha: f.current ? sha256(f.current) : null,
      entries,
      ...(clean && oldest.git_index_before !== undefined ? { restoreIndex: oldest.git_index_before } : {}),
      indexBefore: f.steps.map((s, i) => (i === 0 ? undefined : f.steps[i - 1].merged ? undefined : f.steps[i - 1].target.entry.git_index_before)),
    };
  });
  try {
    await log.applyBatch(batch, blobs);
  } catch (err) {
    if (err instanceof ConcurrentChangeError) throw new PlanStaleError(err.file);
    throw err;
  }
  return {
    group_id: groupId,
    rolled_back: go.flatMap((f) => f.steps.map((s) => s.target.id)),
    files: go.map((f) => f.file),
    skipped: conflicts.map((f) => ({ file: f.file, why: f.conflict!.why, blocking: f.conflict!.blocking })),
  };
}

/** Names the state a plan was made on: its targets and what each file held. */
export function planDigest(plan: RollbackPlan): string {
  const parts = [plan.targets.join(','), ...plan.files.map((f) => `${f.file}\0${f.current ? sha256(f.current) : '-'}`)];
  return sha256(parts.join('\n'));
}

export interface UndoScope {
  sessionId: string;
  /** The request the undo starts from, then the later ones of the session. */
  correlations: string[];
}

/** The plan of an undo: what "undo changes from here" would change, changing nothing. */
export async function planUndo(log: ModificationLog, scope: UndoScope, signal?: AbortSignal): Promise<RollbackPlan> {
  const fold = await log.index().sync();
  return planRollback(log, fold, selectTargets(fold, undoCandidates(fold, scope.sessionId, scope.correlations)), signal);
}

/** Undoes a request and the later ones of its session as one group; `digest`: refused when the state moved since that preview. */
export async function undoRequests(log: ModificationLog, scope: UndoScope, opts: Omit<ApplyGroupOptions, 'kind' | 'sessionId' | 'undoOf'> & { digest?: string }): Promise<GroupRollbackResult> {
  const plan = await planUndo(log, scope, opts.signal);
  if (!plan.targets.length) throw new InvalidArgumentError('Nothing to undo: these requests have no changes in effect.');
  if (opts.digest !== undefined && opts.digest !== planDigest(plan)) throw new PlanStaleError('the workspace');
  return applyRollbackPlan(log, plan, { ...opts, kind: 'undo', sessionId: scope.sessionId, undoOf: scope.correlations[0] });
}

/** The plan of reversing every member of a group still in effect (an undo's redo), changing nothing. */
export async function planGroup(log: ModificationLog, groupId: string, signal?: AbortSignal): Promise<{ plan: RollbackPlan; kind: GroupKind; members: Folded[] }> {
  const fold = await log.index().sync();
  const members = fold.ofGroup(groupId);
  if (!members.length) throw new ModificationNotFoundError(groupId);
  const targets = selectTargets(fold, members);
  if (!targets.length) throw new InvalidArgumentError(`Group ${groupId} is already rolled back; roll back the group that reversed it to apply it again.`);
  return { plan: await planRollback(log, fold, targets, signal), kind: rollbackKindOf(members), members };
}

/** Reverses every member of a group still in effect as one step (an undo's rollback is its redo); `digest`: refused when the state moved since that preview. */
export async function rollbackGroup(
  log: ModificationLog,
  groupId: string,
  opts: Omit<ApplyGroupOptions, 'kind' | 'onConflict'> & { onConflict?: ApplyGroupOptions['onConflict']; digest?: string },
): Promise<GroupRollbackResult> {
  const { plan, kind, members } = await planGroup(log, groupId, opts.signal);
  if (opts.digest !== undefined && opts.digest !== planDigest(plan)) throw new PlanStaleError('the workspace');
  // An undo's redo (and a redo's undo) stays with the session it undid.
  const sessionId = kind === 'rollback' ? opts.sessionId : members[0].entry.session_id;
  return applyRollbackPlan(log, plan, { ...opts, onConflict: opts.onConflict ?? 'refuse', kind, sessionId, correlationId: kind === 'rollback' ? opts.correlationId : undefined });
}

/** Whether `id` names a group rather than one modification. */
export async function isGroup(log: ModificationLog, id: string): Promise<boolean> {
  const fold = await log.index().sync();
  return !fold.get(id) && fold.ofGroup(id).length > 0;
}
