// One spare checkout kept ready in the worktrees folder (docs/architecture.md, "Sessions in a
// worktree"): writing 100,000 files is what makes a worktree slow (3-5 s here, all of it the
// kernel creating files), so after a worktree is made the next one's checkout is made in the
// background, detached, and a new session takes it over by a rename and a branch switch.
// A checkout in progress lives under a `.spare-…` name and becomes `.spare` only once complete,
// so an interrupted one is never taken; it is removed the next time. Names starting with a dot
// are not worktree names (names.ts), so the spare never shows as a session.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { lstat, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { GitRunner } from '../git/gitRunner';

export const SPARE = '.spare';
const PARTIAL = `${SPARE}-`;

export interface ListedWorktree {
  path: string;
  /** The commit checked out. */
  head?: string;
  branch: string | null;
  prunable: boolean;
}

export interface SpareDeps {
  git: GitRunner;
  /** Another worktree's runner (the spare's own). */
  gitAt: (dir: string) => GitRunner;
  listed: (signal?: AbortSignal) => Promise<ListedWorktree[]>;
  report?: (err: unknown) => void;
}

export class SpareCheckout {
  private job: Promise<void> | null = null;
  private readonly stop = new AbortController();

  constructor(private readonly deps: SpareDeps) {}

  /**
   * Turns the spare into worktree `target` on `branch` (made at `commit` unless it exists); false
   * when there is no clean spare, and then nothing changed. A refill under way is waited for:
   * it is the same checkout, already begun. `listed`: the worktrees as the caller just listed them.
   */
  async claim(folder: string, target: string, branch: string, commit: string, hasBranch: boolean, signal?: AbortSignal, listed?: ListedWorktree[]): Promise<boolean> {
    // The caller's listing holds unless a refill ran meanwhile (one `git worktree list` less).
    const refilling = this.job;
    if (refilling) await refilling;
    const spare = path.join(folder, SPARE);
    const found = (listed && !refilling ? listed : await this.deps.listed(signal)).find((w) => w.path === spare);
    if (!found || found.prunable || found.branch !== null || !found.head) return false;
    const own = this.deps.gitAt(spare);
    // Anything written there since it was made (by hand, or a half-done switch) would become the session's.
    const dirty = await own.run(['status', '--porcelain=v1', '-z', '--untracked-files=all', '--ignored=matching'], { signal }).catch(() => 'unreadable');
    if (dirty !== '') {
      await this.remove(spare, signal).catch((err) => this.deps.report?.(err));
      return false;
    }
    // Another worktree made at the same moment may have taken it first: then this one is made afresh.
    if (!(await this.deps.git.run(['worktree', 'move', '--', spare, target], { signal }).then(() => true, () => false))) return false;
    const mine = this.deps.gitAt(target);
    let made = false;
    try {
      if (!hasBranch && found.head === commit) {
        // Same commit: the files are right already, so only the branch is made and checked out
        // (`switch -c` would re-read the whole index and stat every file: 0.5 s at 100,000).
        await this.deps.git.run(['branch', '--no-track', '--', branch, commit], { signal });
        made = true;
        await mine.run(['symbolic-ref', 'HEAD', `refs/heads/${branch}`], { signal });
      } else {
        await mine.run(hasBranch ? ['switch', '--quiet', '--no-guess', branch] : ['switch', '--quiet', '--no-guess', '-c', branch, commit], { signal, timeoutMs: 300_000 });
      }
    } catch (err) {
      // Back to nothing: the caller makes the worktree the slow way.
      await this.remove(target).catch(() => undefined);
      if (made) await this.deps.git.run(['branch', '-D', '--', branch]).catch(() => undefined);
      this.deps.report?.(err);
      return false;
    }
    return true;
  }

  /** Starts making the spare of HEAD unless one is ready or under way; never throws. */
  refill(folder: string): void {
    if (this.job || this.stop.signal.aborted) return;
    this.job = this.make(folder)
      .catch((err) => {
        if (!this.stop.signal.aborted) this.deps.report?.(err);
      })
      .finally(() => (this.job = null));
  }

  /** Waits for a refill under way (tests, the bench). */
  async settled(): Promise<void> {
    await this.job;
  }

  /** Removes the spare and any unfinished one (nothing left behind once no worktree remains). */
  async clear(folder: string, signal?: AbortSignal): Promise<void> {
    if (this.job) await this.job;
    for (const w of await this.deps.listed(signal)) if (isSpare(folder, w.path) && (path.basename(w.path) === SPARE || abandoned(w.path))) await this.remove(w.path, signal);
    await this.sweep(folder);
  }

  /** Stops a refill (its git removes the half-made checkout on SIGTERM) and waits for it. */
  async dispose(): Promise<void> {
    this.stop.abort();
    await this.job;
  }

  private async make(folder: string): Promise<void> {
    const signal = this.stop.signal;
    const spare = path.join(folder, SPARE);
    const listed = await this.deps.listed(signal);
    for (const w of listed) if (isSpare(folder, w.path) && w.path !== spare && abandoned(w.path)) await this.remove(w.path, signal);
    await this.sweep(folder);
    const ready = listed.find((w) => w.path === spare);
    if (ready && !ready.prunable) return;
    if (ready) await this.deps.git.run(['worktree', 'prune'], { signal });
    const partial = path.join(folder, `${PARTIAL}${process.pid}-${randomBytes(4).toString('hex')}`);
    await this.deps.git.run(['worktree', 'add', '--quiet', '--detach', '--', partial, 'HEAD'], { signal, timeoutMs: 600_000 });
    try {
      await this.deps.git.run(['worktree', 'move', '--', partial, spare], { signal });
    } catch (err) {
      // Another Loupe on this repository finished one first: one spare is enough.
      await this.remove(partial);
      if (!existsSync(spare)) throw err;
    }
  }

  /** The spare's folder when one is ready now. */
  async ready(folder: string, signal?: AbortSignal): Promise<string | null> {
    const spare = path.join(folder, SPARE);
    const found = (await this.deps.listed(signal)).find((w) => w.path === spare);
    return found && !found.prunable && existsSync(spare) ? spare : null;
  }

  private async remove(dir: string, signal?: AbortSignal): Promise<void> {
    // Twice --force: an interrupted `worktree add` leaves its worktree locked ("initializing").
    await this.deps.git.run(['worktree', 'remove', '--force', '--force', '--', dir], { signal, timeoutMs: 300_000 }).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
    await this.deps.git.run(['worktree', 'prune'], { signal });
  }

  /** Folders of unfinished spares git no longer knows (a process killed outright). */
  private async sweep(folder: string): Promise<void> {
    const names = await readdir(folder).catch(() => [] as string[]);
    for (const n of names) {
      const p = path.join(folder, n);
      if (!n.startsWith(PARTIAL) || !abandoned(p)) continue;
      if ((await lstat(p).catch(() => null))?.isDirectory()) await rm(p, { recursive: true, force: true });
    }
  }
}

/** An unfinished spare whose maker is gone; another Loupe may be making its own right now. */
function abandoned(p: string): boolean {
  const pid = Number(/^\.spare-(\d+)-/.exec(path.basename(p))?.[1]);
  if (!pid) return true;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

const isSpare = (folder: string, p: string) => path.dirname(p) === folder && (path.basename(p) === SPARE || path.basename(p).startsWith(PARTIAL));
