// "Merge branch", for a person who prefers history to a patch (docs/architecture.md, "Sessions
// in a worktree"): the worktree's uncommitted work is committed on loupe/<name>, then merged into
// the main folder's branch with a merge commit. git is asked first whether the merge would
// conflict (`merge-tree`, which touches neither folder); a conflict refuses with each file named
// and nothing merged. The merge itself runs between two snapshots of the main folder, so what it
// writes there is recorded as modifications like any command's (a group that rolls back).
import { GitRunner } from '../git/gitRunner';
import type { CaptureResult, CommandCapture } from '../snapshots/commandCapture';
import { ApplyConflictError } from './errors';
import { branchOf } from './names';

export interface MergeResult {
  /** The commit made in the worktree for its uncommitted work; null when there was none. */
  committed: string | null;
  /** The merge commit now at the main folder's HEAD. */
  merge: string;
  capture: CaptureResult;
}

export interface MergeRequest {
  root: string;
  worktree: string;
  name: string;
  /** The message of the worktree's commit (its uncommitted work). */
  message: string;
  sessionId: string;
  /** What setup copied and linked (settings worktrees.copy and .link): never committed, a copied `.env` least of all. */
  setupPaths?: string[];
  captures: CommandCapture;
  signal?: AbortSignal;
}

export async function mergeBranch(req: MergeRequest): Promise<MergeResult> {
  const { signal } = req;
  const branch = branchOf(req.name);
  const wt = new GitRunner(req.worktree);
  const main = new GitRunner(req.root);
  const exclude = (req.setupPaths ?? []).map((l) => `:(exclude,literal)${l}`);
  await wt.run(['add', '-A', '--', '.', ...exclude], { signal });
  let committed: string | null = null;
  if ((await wt.exec(['diff', '--cached', '--quiet'], { signal })).exitCode === 1) {
    await wt.run(['commit', '-q', '-m', req.message], { signal });
    committed = (await wt.run(['rev-parse', 'HEAD'], { signal })).trim();
  }
  const trial = await main.exec(['merge-tree', '--write-tree', '--name-only', '--no-messages', 'HEAD', `refs/heads/${branch}`], { signal });
  if (trial.exitCode === 1) {
    const files = trial.stdout.toString('utf8').split('\n').slice(1).filter(Boolean);
    throw new ApplyConflictError(req.name, files.map((file) => ({ file, why: 'changed in both (git merge-tree)' })));
  }
  if (trial.exitCode !== 0) await main.run(['merge-tree', '--write-tree', 'HEAD', `refs/heads/${branch}`], { signal });
  const command = `git merge --no-ff ${branch}`;
  const { capture } = await req.captures.around({ tool: 'merge_worktree', command, sessionId: req.sessionId, reason: `merged branch ${branch} (worktree ${req.name})`, signal }, () =>
    main.run(['merge', '--no-ff', '--no-edit', '-m', `Merge ${branch} (Loupe worktree ${req.name})`, `refs/heads/${branch}`], { signal }),
  );
  return { committed, merge: (await main.run(['rev-parse', 'HEAD'], { signal })).trim(), capture };
}
