import type { AsyncSubscription } from '@parcel/watcher';
import path from 'node:path';
import type { JournalSource } from './changeJournal';
import { DirWatches } from './dirWatches';
import { toPosix } from './pathGuard';

export interface ChangeBatch {
  /** Workspace-relative paths (forward slashes) that changed. */
  paths: string[];
}

/** Longest watcher error we pass on: inotify names the path, which may be thousands of levels deep. */
const MAX_ERROR_CHARS = 240;

/** The watcher's error in one readable line, long paths cut in the middle. */
export function describeWatchError(err: unknown): string {
  const text = (err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ').trim();
  if (text.length <= MAX_ERROR_CHARS) return text;
  const keep = (MAX_ERROR_CHARS - 1) / 2;
  return `${text.slice(0, Math.ceil(keep))}…${text.slice(-Math.floor(keep))}`;
}

/** The command that raises Linux's per-user inotify limit, shown to the user as the fix. */
export const INOTIFY_FIX = 'echo fs.inotify.max_user_watches=524288 | sudo tee -a /etc/sysctl.conf && sudo sysctl -p';

/** True when the watcher failed because the OS ran out of inotify watches, not for another reason. */
export function isWatchLimitError(detail: string): boolean {
  return /ENOSPC|inotify|watch(es)? limit|no space left on device/i.test(detail);
}

/** The one notice the user sees when watching fails; the limit case names the fix. */
export function watchNotice(detail: string): string {
  if (isWatchLimitError(detail)) {
    return `Live updates are incomplete: this folder needs more file watches than the system allows (${detail}). Meanwhile the folders you open are rechecked every few seconds. Raise the limit with: ${INOTIFY_FIX}`;
  }
  return `Live updates are off or incomplete: this folder could not be watched (${detail}). Meanwhile the folders you open are rechecked every few seconds.`;
}

/**
 * How the tree is watched. `dirs` (Linux): one inotify watch per folder, the folders in a map
 * (dirWatches.ts). `parcel`: @parcel/watcher, as VS Code does (FSEvents on macOS,
 * ReadDirectoryChangesW on Windows); on Linux it also keeps every file's path in memory.
 */
export type WatchBackend = 'dirs' | 'parcel';

const defaultBackend = (): WatchBackend => (process.platform === 'linux' ? 'dirs' : 'parcel');

// .loupe/outputs: command and process logs, written continuously by a busy background process.
const PARCEL_IGNORE = ['node_modules', '.git/objects', '.git/logs', '.loupe/objects', '.loupe/outputs'];

/** A batch goes once the events have paused this long: a save is a few events within a millisecond. */
const QUIET_MS = 20;

/**
 * Watches the workspace recursively and delivers changes in debounced batches so a
 * `git checkout` is a few batches, not thousands: a batch goes once events pause for QUIET_MS,
 * or `debounceMs` after its first event while they keep coming. A folder the OS will not watch
 * (too deep, too many folders for the inotify limit, gone) is not fatal: the failure goes to
 * `onError` and the workspace works without live updates (or with those it has).
 */
export class WorkspaceWatcher {
  private stopWatching: (() => Promise<void>) | null = null;
  private pending = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private firstAt = 0;
  private lastAt = 0;

  constructor(
    private readonly root: string,
    private readonly onBatch: (batch: ChangeBatch) => void,
    private readonly onError: (message: string) => void = () => undefined,
    private readonly debounceMs = 100,
    private readonly backend: WatchBackend = defaultBackend(),
    /**
     * Told every path as it arrives, for the snapshots of commands (changeJournal.ts). Only the
     * Linux backend feeds it: @parcel/watcher cannot say when it has delivered everything.
     */
    private readonly journal?: JournalSource,
  ) {}

  /** Never throws: a watcher that cannot start reports why through `onError`. */
  async start(): Promise<void> {
    try {
      if (this.backend === 'parcel') {
        const sub = await this.subscribe();
        this.stopWatching = () => sub.unsubscribe();
      } else {
        const journal = this.journal;
        const dirs = new DirWatches(
          this.root,
          (paths) => {
            journal?.paths(paths);
            this.add(paths);
          },
          (err) => {
            journal?.lost();
            this.onError(describeWatchError(err));
          },
          undefined,
          (rel) => journal?.blind(rel),
          () => journal?.lost(),
        );
        // Set before the walk, so a stop during it ends it.
        this.stopWatching = () => {
          journal?.detach();
          return dirs.close();
        };
        await dirs.start();
        journal?.ready(() => dirs.idle());
      }
    } catch (err) {
      this.journal?.lost();
      this.onError(describeWatchError(err));
    }
  }

  private async subscribe(): Promise<AsyncSubscription> {
    // Only macOS and Windows use it: Linux never loads the native module.
    const { default: watcher } = await import('@parcel/watcher');
    return watcher.subscribe(
      this.root,
      (err, events) => {
        if (err) {
          this.onError(describeWatchError(err));
          return;
        }
        this.add(events.map((e) => toPosix(path.relative(this.root, e.path))));
      },
      { ignore: PARCEL_IGNORE },
    );
  }

  private add(paths: string[]): void {
    for (const p of paths) this.pending.add(p);
    this.lastAt = performance.now();
    if (this.timer) return;
    this.firstAt = this.lastAt;
    this.timer = setTimeout(() => this.tick(), Math.min(QUIET_MS, this.debounceMs));
  }

  /** One timer per batch, not one per event (a checkout makes a hundred thousand). */
  private tick(): void {
    const now = performance.now();
    const quiet = QUIET_MS - (now - this.lastAt);
    const left = this.debounceMs - (now - this.firstAt);
    if (quiet <= 0 || left <= 0) return this.deliver();
    this.timer = setTimeout(() => this.tick(), Math.min(quiet, left));
  }

  private deliver(): void {
    this.timer = null;
    const paths = [...this.pending];
    this.pending.clear();
    if (paths.length) this.onBatch({ paths });
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const stop = this.stopWatching;
    this.stopWatching = null;
    // The folder may be gone already (deleted, unmounted); there is nothing left to unwatch.
    await stop?.().catch(() => undefined);
  }
}
