import watcher from '@parcel/watcher';
import path from 'node:path';
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

/**
 * Watches the workspace recursively (inotify/FSEvents via @parcel/watcher, as VS Code does)
 * and delivers changes in debounced batches so a `git checkout` is one refresh, not thousands.
 * A folder the OS will not watch (too deep, too many folders for the inotify limit, gone)
 * is not fatal: the failure goes to `onError` and the workspace works without live updates.
 */
export class WorkspaceWatcher {
  private sub: watcher.AsyncSubscription | null = null;
  private pending = new Set<string>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly root: string,
    private readonly onBatch: (batch: ChangeBatch) => void,
    private readonly onError: (message: string) => void = () => undefined,
    private readonly debounceMs = 100,
  ) {}

  /** Never throws: a watcher that cannot start reports why through `onError`. */
  async start(): Promise<void> {
    try {
      this.sub = await this.subscribe();
    } catch (err) {
      this.onError(describeWatchError(err));
    }
  }

  private subscribe(): Promise<watcher.AsyncSubscription> {
    return watcher.subscribe(
      this.root,
      (err, events) => {
        if (err) {
          this.onError(describeWatchError(err));
          return;
        }
        for (const e of events) this.pending.add(toPosix(path.relative(this.root, e.path)));
        this.timer ??= setTimeout(() => this.deliver(), this.debounceMs);
      },
      { ignore: ['node_modules', '.git/objects', '.git/logs', '.loupe/objects'] },
    );
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
    const sub = this.sub;
    this.sub = null;
    // The folder may be gone already (deleted, unmounted); there is nothing left to unwatch.
    await sub?.unsubscribe().catch(() => undefined);
  }
}
