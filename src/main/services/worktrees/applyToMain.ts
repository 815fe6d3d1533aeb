// Bringing a worktree's work back (docs/architecture.md, "Sessions in a worktree"): what the
// worktree holds now against the commit it shares with the main folder (its base) becomes
// modifications of the main folder's log, as one group. A file the main folder changed since the
// base is merged three ways (merge3, as a rollback is); anything that does not merge cleanly —
// overlapping edits, a file changed on one side and deleted or created differently on the other,
// a link — is a conflict, and one conflict refuses the whole apply with every conflict named and
// nothing written. The plan is checked again under the files' locks (applyBatch), so a change in
// the main folder between plan and write refuses too.
import path from 'node:path';
import { sha256 } from '../files/hash';
import { readInside } from '../files/safeOpen';
import { GitRunner } from '../git/gitRunner';
import { newGroupId } from '../modlog/groupRollback';
import { merge3 } from '../modlog/merge3';
import { isProtectedPath, type BatchFile, type ModificationLog } from '../modlog/modificationLog';
import type { Operation } from '../modlog/types';
import { diffCounts, unifiedDiff } from '../modlog/unifiedDiff';
import { InvalidArgumentError } from '../../errors';
import { ApplyConflictError, type ApplyConflict } from './errors';
import { branchOf } from './names';

export interface ApplyFile {
  file: string;
  operation: Extract<Operation, 'create' | 'overwrite' | 'delete_file'>;
  /** The main folder's bytes when planned (null: absent). */
  current: Buffer | null;
  /** What the main folder gets (null: the file goes). */
  result: Buffer | null;
  /** The worktree file's mode, for a file it creates. */
  mode?: number;
  /** Merged with changes the main folder made since the base. */
  merged: boolean;
  added: number;
  removed: number;
}

export interface ApplyPlan {
  name: string;
  branch: string;
  /** The commit the worktree and the main folder share. */
  base: string;
  files: ApplyFile[];
  conflicts: ApplyConflict[];
  /** Files the worktree changed that the main folder already holds as applying would leave them; lines against the base. */
  applied: { file: string; added: number; removed: number }[];
  /** Every file the worktree changed, with its lines as the worktree changed them (base → worktree); a special file counts no lines. */
  changed: { file: string; added: number; removed: number }[];
}

type Side = { buf: Buffer; mode: number } | null;

const same = (a: Buffer | null, b: Buffer | null): boolean => (a === null || b === null ? a === b : a.equals(b));

async function readSide(root: string, rel: string): Promise<Side | 'special'> {
  try {
    const r = await readInside(root, path.join(root, rel));
    return r && { buf: r.buf, mode: r.st.mode & 0o7777 };
  } catch {
    // A link, a FIFO, a folder where a file was: not something to carry over silently.
    return 'special';
  }
}

/** What applying worktree `name` (at `worktree`) to the main folder `root` would do; writes nothing. */
export async function planApply(root: string, worktree: string, name: string, opts: { linked?: string[]; signal?: AbortSignal } = {}): Promise<ApplyPlan> {
  const { signal } = opts;
  // The links a new worktree got to the main folder's own folders (settings worktrees.link) are setup, not work.
  const linked = new Set(opts.linked ?? []);
  const main = new GitRunner(root);
  const wt = new GitRunner(worktree);
  const [mainHead, wtHead] = await Promise.all([main.run(['rev-parse', 'HEAD'], { signal }), wt.run(['rev-parse', 'HEAD'], { signal })]);
  const base = (await main.run(['merge-base', mainHead.trim(), wtHead.trim()], { signal })).trim();
  // Committed, staged and unstaged changes since the base, and new files git does not ignore.
  const [diff, untracked] = await Promise.all([
    wt.run(['diff', '--name-only', '-z', '--no-renames', base, '--'], { signal }),
    wt.run(['ls-files', '--others', '--exclude-standard', '-z'], { signal }),
  ]);
  const news = untracked.split('\0').filter((p) => !linked.has(p));
  const paths = [...new Set([...diff.split('\0'), ...news].filter((p) => p && !isProtectedPath(p)))].sort();
  const files: ApplyFile[] = [];
  const conflicts: ApplyConflict[] = [];
  const applied: ApplyPlan['applied'] = [];
  const changed: ApplyPlan['changed'] = [];
  const already = (file: string, base: Buffer | null, t: Buffer | null) => applied.push({ file, ...diffCounts(base?.toString('utf8') ?? '', t?.toString('utf8') ?? '') });
  for (const file of paths) {
    const [theirs, current] = await Promise.all([readSide(worktree, file), readSide(root, file)]);
    if (theirs === 'special' || current === 'special') {
      conflicts.push({ file, why: 'a link or special file on one side; bring it over by hand' });
      changed.push({ file, added: 0, removed: 0 });
      continue;
    }
    const baseBuf = await main.blob(base, file, { signal });
    const t = theirs?.buf ?? null;
    const c = current?.buf ?? null;
    if (same(t, baseBuf)) continue;
    changed.push({ file, ...diffCounts(baseBuf?.toString('utf8') ?? '', t?.toString('utf8') ?? '') });
    if (same(c, t)) {
      already(file, baseBuf, t);
      continue;
    }
    let result: Buffer | null;
    let merged = false;
    if (same(c, baseBuf)) result = t;
    else if (baseBuf && t && c) {
      const m = await merge3(c, baseBuf, t, signal);
      if (!m.clean) {
        conflicts.push({ file, why: `changed in both: ${m.why}` });
        continue;
      }
      result = m.merged;
      merged = true;
    } else {
      const why = !baseBuf ? 'created in both with different contents' : !t ? 'deleted in the worktree, changed in the main folder' : 'deleted in the main folder, changed in the worktree';
      conflicts.push({ file, why });
      continue;
    }
    // Already applied (the main folder holds the merge's result): nothing to do.
    if (same(result, c)) {
      already(file, baseBuf, t);
      continue;
    }
    const counts = diffCounts(c?.toString('utf8') ?? '', result?.toString('utf8') ?? '');
    files.push({
      file,
      operation: result === null ? 'delete_file' : c === null ? 'create' : 'overwrite',
      current: c,
      result,
      ...(c === null && theirs ? { mode: theirs.mode } : {}),
      merged,
      added: counts.added,
      removed: counts.removed,
    });
  }
  return { name, branch: branchOf(name), base, files, conflicts, applied, changed };
}

/** The plan restricted to the files the person chose after review (conflicts elsewhere no longer matter). */
export function selectFiles(plan: ApplyPlan, files: readonly string[]): ApplyPlan {
  const known = new Set([...plan.files.map((f) => f.file), ...plan.conflicts.map((c) => c.file)]);
  const unknown = files.filter((f) => !known.has(f));
  if (unknown.length) throw new InvalidArgumentError(`Worktree ${plan.name} has no change to ${unknown.join(', ')}; its changed files: ${[...known].join(', ') || 'none'}.`);
  const chosen = new Set(files);
  return { ...plan, files: plan.files.filter((f) => chosen.has(f.file)), conflicts: plan.conflicts.filter((c) => chosen.has(c.file)), applied: plan.applied.filter((f) => chosen.has(f.file)), changed: plan.changed.filter((f) => chosen.has(f.file)) };
}

/** What applying would write, as unified diffs of the main folder's files (for review before applying). */
export function planDiff(plan: ApplyPlan): string {
  return plan.files.map((f) => unifiedDiff(f.file, f.current?.toString('utf8') ?? null, f.result?.toString('utf8') ?? null)).join('');
}

export interface AppliedToMain {
  group_id: string;
  files: string[];
}

/**
 * Writes a plan into the main folder through its log, as one group (`group_kind` worktree), or
 * throws ApplyConflictError naming every conflict and writes nothing.
 */
export async function applyPlan(log: ModificationLog, plan: ApplyPlan, opts: { sessionId: string; correlationId?: string }): Promise<AppliedToMain> {
  if (plan.conflicts.length) throw new ApplyConflictError(plan.name, plan.conflicts);
  const groupId = newGroupId('worktree');
  const batch: BatchFile[] = plan.files.map((f) => ({
    file: f.file,
    abs: path.join(log.root, f.file),
    write: { content: f.result, ...(f.mode !== undefined ? { mode: f.mode } : {}) },
    expectBeforeSha: f.current ? sha256(f.current) : null,
    entries: [
      {
        session_id: opts.sessionId,
        ...(opts.correlationId ? { correlation_id: opts.correlationId } : {}),
        tool: 'apply_worktree',
        operation: f.operation,
        file: f.file,
        lines_changed: f.added + f.removed,
        reason: `applied from worktree ${plan.name} (branch ${plan.branch})${f.merged ? ', merged with changes made here since' : ''}`,
        before_sha256: f.current ? sha256(f.current) : null,
        after_sha256: f.result ? sha256(f.result) : null,
        group_id: groupId,
        group_kind: 'worktree',
      },
    ],
  }));
  const blobs = plan.files.flatMap((f) => [f.current, f.result].filter((b): b is Buffer => b !== null));
  await log.applyBatch(batch, blobs);
  return { group_id: groupId, files: plan.files.map((f) => f.file) };
}
