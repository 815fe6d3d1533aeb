// The tree's git badges for one folder, kept fresh without letting git take over the machine:
// one status at a time plus one queued, spaced after a slow one so a burst of changes (a
// checkout, an install) costs a few runs rather than one per batch; bounded by a timeout after
// which the folder is "slow" (the last good badges stay) until a run finishes in time again.
// Nothing else waits for them: tools never ask for badges. While another git command holds the
// index lock (a checkout, a commit, a rebase) a run waits: midway, a checkout of 50,000 files
// showed tens of thousands of half-done changes, and sending them (up to 2 MB) froze the page
// for 250-440 ms each time, for badges that were stale a moment later.
import path from 'node:path';
import type { GitBadge } from '../../../shared/contract';
import { lstatInside } from '../files/safeOpen';
import { GitTimeoutError } from './errors';
import { gitStatus } from './gitStatus';

export const STATUS_TIMEOUT_MS = 5_000;
/** A status slower than this lets the next one store what it learnt in the index. */
const WRITE_AFTER_MS = 150;
/** How often at most git may take the index lock for that. */
const WRITE_EVERY_MS = 60_000;
/** Between two runs, at least twice the last one's time (within these bounds). */
const MIN_GAP_MS = 50;
const MAX_GAP_MS = 5_000;
/** Longest a run waits for another git's index lock (a git that crashed leaves it behind). */
const LOCK_WAIT_MS = 30_000;
const LOCK_POLL_MS = 100;

export interface GitBadgesOptions {
  timeoutMs?: number;
  /** The badges changed (not called for a run that found them as they were). */
  onStatus?: (status: Record<string, GitBadge>) => void;
  /** The folder's status became slow (a run hit the timeout) or fast again. */
  onSlow?: (slow: boolean) => void;
}

export class GitBadges {
  status: Record<string, GitBadge> = {};
  slow = false;
  /** git status runs started so far (how well bursts coalesce). */
  runs = 0;
  private job: Promise<void> | null = null;
  private again = false;
  private lastEnded = 0;
  private lastMs = 0;
  private lastOk = false;
  private lastWrite = Number.NEGATIVE_INFINITY;
  private readonly stop = new AbortController();

  constructor(
    readonly root: string,
    private readonly opts: GitBadgesOptions = {},
  ) {}

  /** Resolves when a run that started after this call has ended (or the badges are disposed). */
  refresh(): Promise<void> {
    if (this.job) {
      this.again = true;
      return this.job;
    }
    this.job = (async () => {
      do {
        this.again = false;
        await this.spacing();
        await this.afterOtherGit();
        if (this.stop.signal.aborted) return;
        await this.runOnce();
      } while (this.again && !this.stop.signal.aborted);
    })().finally(() => (this.job = null));
    return this.job;
  }

  dispose(): void {
    this.stop.abort();
  }

  private async runOnce(): Promise<void> {
    this.runs++;
    const started = performance.now();
    const timeoutMs = this.opts.timeoutMs ?? STATUS_TIMEOUT_MS;
    // Only after a run that finished, well within the bound: a git that hangs holding the
    // index lock blocks the person's own git until it is stopped.
    const writeIndex = this.lastOk && this.lastMs > WRITE_AFTER_MS && this.lastMs < timeoutMs / 4 && started - this.lastWrite > WRITE_EVERY_MS;
    if (writeIndex) this.lastWrite = started;
    try {
      const status = await gitStatus(this.root, { signal: this.stop.signal, timeoutMs, writeIndex });
      this.lastOk = true;
      this.setSlow(false);
      if (!sameBadges(status, this.status)) {
        this.status = status;
        if (!this.stop.signal.aborted) this.opts.onStatus?.(status);
      }
    } catch (err) {
      this.lastOk = false;
      // Any other failure (a repo mid-rebase, a locked index) keeps the last good badges.
      if (err instanceof GitTimeoutError) this.setSlow(true);
    }
    this.lastEnded = performance.now();
    this.lastMs = this.lastEnded - started;
  }

  private setSlow(slow: boolean): void {
    if (slow === this.slow || this.stop.signal.aborted) return;
    this.slow = slow;
    this.opts.onSlow?.(slow);
  }

  /** True while another git command holds the index lock. */
  private otherGitRunning(): boolean {
    try {
      return lstatInside(this.root, path.join(this.root, '.git', 'index.lock')) !== null;
    } catch {
      // .git is a file (a worktree) or a link: no lock to see here; run as before.
      return false;
    }
  }

  private async afterOtherGit(): Promise<void> {
    const until = performance.now() + LOCK_WAIT_MS;
    while (!this.stop.signal.aborted && performance.now() < until && this.otherGitRunning()) await this.sleep(LOCK_POLL_MS);
  }

  private sleep(ms: number): Promise<void> {
    const signal = this.stop.signal;
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  private spacing(): Promise<void> {
    const gap = Math.min(MAX_GAP_MS, Math.max(MIN_GAP_MS, 2 * this.lastMs));
    const wait = this.lastEnded + gap - performance.now();
    if (this.lastEnded === 0 || wait <= 0) return Promise.resolve();
    return this.sleep(wait);
  }
}

function sameBadges(a: Record<string, GitBadge>, b: Record<string, GitBadge>): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => a[k] === b[k]);
}
