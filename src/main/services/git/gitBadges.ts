// The tree's git badges for one folder, kept fresh without letting git take over the machine.
// A few changed paths ask git about those paths only (`git status -- <paths>`: git reads the
// index but stats and lists only them); a burst, a change in .git (a checkout, a commit, a
// stage from outside) and, while small changes go on, one run every few seconds ask for the
// whole status. Each kind runs one at a time, spaced after a slow one so a burst costs a few
// runs rather than one per batch, and a run by paths goes beside a whole status under way, so
// a save's badge never waits for one. Bounded by a timeout after which the folder is "slow"
// (the last good badges stay) until a run finishes in time again. Nothing else waits for them:
// tools never ask for badges. While another git command holds the index lock (a checkout, a
// commit, a rebase) a run waits: midway, a checkout of 50,000 files showed tens of thousands of
// half-done changes, and sending them (up to 2 MB) froze the page for 250-440 ms each time, for
// badges that were stale a moment later.
import path from 'node:path';
import type { GitBadge } from '../../../shared/contract';
import { lstatInside } from '../files/safeOpen';
import { GitTimeoutError } from './errors';
import { repoPrefix, statusEntries, toBadges, type StatusEntry } from './gitStatus';

export const STATUS_TIMEOUT_MS = 5_000;
/**
 * Most paths one run asks git about by name: git matches each index entry against every path
 * given. At 100,000 files one path cost 0.15 s of CPU, 50 paths 0.24 s, 200 paths 0.5 s, and
 * the whole status 0.9 s (without the untracked cache; on this 2-core machine under load).
 */
export const MAX_STATUS_PATHS = 100;
/**
 * While small changes go on, the whole status runs at most this often (or 20 times as long as
 * it took), to catch what named paths missed.
 */
const FULL_EVERY_MS = 5_000;
/** A status slower than this lets the next one store what it learnt in the index. */
const WRITE_AFTER_MS = 150;
/** How often at most git may take the index lock for that. */
const WRITE_EVERY_MS = 60_000;
/** Between two runs of a kind (twice the last whole status, once the last run by paths), within these bounds. */
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
  /** While small changes go on, how often the whole status runs (default FULL_EVERY_MS). */
  fullEveryMs?: number;
}

/** One kind of run (the whole status, or named paths): one at a time, spaced by its own cost. */
interface Lane {
  job: Promise<void> | null;
  lastEnded: number;
  lastMs: number;
  lastOk: boolean;
}

const lane = (): Lane => ({ job: null, lastEnded: 0, lastMs: 0, lastOk: false });

export class GitBadges {
  status: Record<string, GitBadge> = {};
  slow = false;
  /** Whole-tree git status runs started so far (how well bursts coalesce). */
  runs = 0;
  /** Runs that asked about named paths only. */
  pathRuns = 0;
  private entries = new Map<string, StatusEntry>();
  private pendingFull = false;
  private readonly pendingPaths = new Set<string>();
  private readonly full = lane();
  private readonly byPaths = lane();
  /**
   * Answers by paths that came while a whole status ran: it may have read their paths before
   * they changed, so they are laid over its answer again, in order.
   */
  private duringFull: { want: Set<string>; found: Map<string, StatusEntry> }[] | null = null;
  private lastWrite = Number.NEGATIVE_INFINITY;
  private lastFull = Number.NEGATIVE_INFINITY;
  private fullTimer: NodeJS.Timeout | null = null;
  private prefix: string | null = null;
  /** A whole status of ours may hold the index lock (writeIndex): no reason for a run by paths to wait. */
  private ownLock = false;
  private readonly stop = new AbortController();

  constructor(
    readonly root: string,
    private readonly opts: GitBadgesOptions = {},
  ) {}

  /** The whole status. Resolves when a run that started after this call has ended (or the badges are disposed). */
  refresh(): Promise<void> {
    this.pendingFull = true;
    this.full.job ??= this.drain(this.full, 2, () => this.pendingFull, async () => {
      this.pendingFull = false;
      await this.runFull();
    });
    return this.full.job;
  }

  /**
   * Only these paths changed (workspace-relative). Too many, or ones git pairs as renames, ask
   * for the whole status; a .gitignore or .gitattributes, or a repository's .git, for the
   * folder that holds it (its rules decide the status of everything below). Runs beside a
   * whole status that is under way, so a save's badge never waits for one.
   */
  refreshPaths(paths: readonly string[]): Promise<void> {
    for (const p of paths) {
      const scope = scopeOf(p);
      if (scope === '') return this.refresh();
      this.pendingPaths.add(scope);
    }
    if (this.pendingPaths.size > MAX_STATUS_PATHS) {
      this.pendingPaths.clear();
      return this.refresh();
    }
    this.byPaths.job ??= this.drain(this.byPaths, 1, () => this.pendingPaths.size > 0, async () => {
      const want = new Set(this.pendingPaths);
      this.pendingPaths.clear();
      await this.runPaths(want);
    });
    return this.byPaths.job;
  }

  dispose(): void {
    this.stop.abort();
    if (this.fullTimer) clearTimeout(this.fullTimer);
  }

  /**
   * Runs `run` while `more()` says there is work: each run waits `spacing` times the lane's
   * last run and for another git's index lock first. Resolves when no work is left.
   */
  private drain(l: Lane, spacing: number, more: () => boolean, run: () => Promise<void>): Promise<void> {
    return (async () => {
      while (more() && !this.stop.signal.aborted) {
        const gap = Math.min(MAX_GAP_MS, Math.max(MIN_GAP_MS, spacing * l.lastMs));
        const wait = l.lastEnded + gap - performance.now();
        if (l.lastEnded && wait > 0) await this.sleep(wait);
        await this.afterOtherGit();
        if (this.stop.signal.aborted) return;
        const started = performance.now();
        const timeoutMs = this.opts.timeoutMs ?? STATUS_TIMEOUT_MS;
        try {
          this.prefix ??= await repoPrefix(this.root, { signal: this.stop.signal, timeoutMs });
          await run();
          l.lastOk = true;
          this.setSlow(false);
          const status = toBadges(this.entries);
          if (!sameBadges(status, this.status)) {
            this.status = status;
            if (!this.stop.signal.aborted) this.opts.onStatus?.(status);
          }
        } catch (err) {
          l.lastOk = false;
          // Any other failure (a repo mid-rebase, a locked index) keeps the last good badges.
          if (err instanceof GitTimeoutError) this.setSlow(true);
        }
        l.lastEnded = performance.now();
        l.lastMs = l.lastEnded - started;
      }
    })().finally(() => (l.job = null));
  }

  private async runFull(): Promise<void> {
    this.runs++;
    const started = performance.now();
    const timeoutMs = this.opts.timeoutMs ?? STATUS_TIMEOUT_MS;
    this.lastFull = started;
    if (this.fullTimer) clearTimeout(this.fullTimer);
    this.fullTimer = null;
    // Only after a run that finished, well within the bound: a git that hangs holding the
    // index lock blocks the person's own git until it is stopped.
    const last = this.full.lastMs;
    const writeIndex = this.full.lastOk && last > WRITE_AFTER_MS && last < timeoutMs / 4 && started - this.lastWrite > WRITE_EVERY_MS;
    if (writeIndex) this.lastWrite = started;
    this.duringFull = [];
    this.ownLock = writeIndex;
    try {
      const entries = await statusEntries(this.root, { signal: this.stop.signal, timeoutMs, writeIndex, prefix: this.prefix! });
      this.entries = entries;
      for (const { want, found } of this.duringFull) this.replace(want, found);
    } finally {
      this.duringFull = null;
      this.ownLock = false;
    }
  }

  /**
   * Asks git about these paths and replaces what was known of them. When git's answer for them
   * depends on paths outside them (a rename or copy it pairs, see paired), the whole status is
   * asked for instead.
   */
  private async runPaths(want: Set<string>): Promise<void> {
    this.pathRuns++;
    if (this.paired(want)) return this.refresh();
    const timeoutMs = this.opts.timeoutMs ?? STATUS_TIMEOUT_MS;
    const found = await statusEntries(this.root, { signal: this.stop.signal, timeoutMs, paths: [...want], prefix: this.prefix! });
    // git pairs renames and copies only among the paths it is shown, and pairs an intent-to-add
    // file with any deleted one (seen: a file added with -N, written, and a deletion elsewhere).
    for (const e of found.values()) if (/[RC]/.test(e.xy) || intentToAdd(e)) return this.refresh();
    this.replace(want, found);
    this.duringFull?.push({ want, found });
    // The safety net never takes more than a twentieth of a core, however slow git is here.
    const every = Math.max(this.opts.fullEveryMs ?? FULL_EVERY_MS, 20 * this.full.lastMs);
    if (!this.fullTimer && Number.isFinite(every)) {
      this.fullTimer = setTimeout(() => ((this.fullTimer = null), void this.refresh()), Math.max(0, this.lastFull + every - performance.now()));
      this.fullTimer.unref();
    }
  }

  private replace(want: Set<string>, found: Map<string, StatusEntry>): void {
    for (const file of [...this.entries.keys()]) if (covers(want, file)) this.entries.delete(file);
    for (const [file, e] of found) this.entries.set(file, e);
  }

  /**
   * Whether git's answer for these paths depends on paths outside them: a rename or copy known
   * from the last status (its two sides are paired across the tree), or a file added with
   * intent-to-add, paired or not: git pairs it with a deleted file anywhere in the work tree,
   * and a deletion elsewhere can take it from its pair (one of the same name is preferred).
   */
  private paired(want: Set<string>): boolean {
    for (const [file, e] of this.entries) {
      if (intentToAdd(e)) return true;
      if (/[RC]/.test(e.xy) && (covers(want, file) || (e.from !== undefined && covers(want, e.from)))) return true;
    }
    return false;
  }

  private setSlow(slow: boolean): void {
    if (slow === this.slow || this.stop.signal.aborted) return;
    this.slow = slow;
    this.opts.onSlow?.(slow);
  }

  /** True while another git command holds the index lock. */
  private otherGitRunning(): boolean {
    if (this.ownLock) return false;
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
}

/**
 * A file added with intent-to-add (`git add -N`): the only entries whose work-tree side is an
 * addition, a rename or a copy (`.A`, or `.R`/`.C` once git has paired it with a deleted file).
 */
function intentToAdd(e: StatusEntry): boolean {
  return e.xy[1] === 'A' || e.xy[1] === 'R' || e.xy[1] === 'C';
}

/** Files whose change alters the status of everything beside and below them. */
const RULE_FILES = new Set(['.gitignore', '.gitattributes']);

/** The path git must be asked about when `rel` changed: its folder when it holds rules or a repository. */
function scopeOf(rel: string): string {
  const parts = rel.split('/');
  const git = parts.indexOf('.git');
  if (git >= 0) return parts.slice(0, git).join('/');
  return RULE_FILES.has(parts[parts.length - 1]) ? parts.slice(0, -1).join('/') : rel;
}

/** Whether a path is one of these or below one of them. */
function covers(paths: Set<string>, file: string): boolean {
  for (let p = file; p; p = p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '') if (paths.has(p)) return true;
  return false;
}

function sameBadges(a: Record<string, GitBadge>, b: Record<string, GitBadge>): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => a[k] === b[k]);
}
