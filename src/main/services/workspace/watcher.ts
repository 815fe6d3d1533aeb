import watcher from '@parcel/watcher';
import path from 'node:path';
import { toPosix } from './pathGuard';

export interface ChangeBatch {
  /** Workspace-relative paths (forward slashes) that changed. */
  paths: string[];
}

/**
 * Watches the workspace recursively (inotify/FSEvents via @parcel/watcher, as VS Code does)
 * and delivers changes in debounced batches so a `git checkout` is one refresh, not thousands.
 */
export class WorkspaceWatcher {
  private sub: watcher.AsyncSubscription | null = null;
  private pending = new Set<string>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly root: string,
    private readonly onBatch: (batch: ChangeBatch) => void,
    private readonly debounceMs = 100,
  ) {}

  async start(): Promise<void> {
    this.sub = await watcher.subscribe(
      this.root,
      (err, events) => {
        if (err) return;
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
