// Linux's watcher: one inotify watch per folder through fs.watch, kept in a map by folder.
// @parcel/watcher also keeps an entry for every file it finds (1,000,000 files: +363 MB and 4.3 s
// to subscribe); one watch per folder costs +121 MB and well under a second there.
import { readdirSync, watch, type Dirent, type FSWatcher } from 'node:fs';
import { lstat } from 'node:fs/promises';
import path from 'node:path';

/** fs.watch, as the tests may replace it (to run out of watches on purpose). */
export type WatchFn = (abs: string, listener: (event: string, name: string | Buffer | null) => void) => FSWatcher;

const nodeWatch: WatchFn = (abs, listener) => watch(abs, { persistent: false }, listener);

/** Folders never watched: any `node_modules`, and these below the root. */
const IGNORED = new Set(['.git/objects', '.git/logs', '.loupe/objects']);
const ignored = (rel: string): boolean => path.posix.basename(rel) === 'node_modules' || IGNORED.has(rel);

/** Longest stretch the walk keeps the event loop. */
const SLICE_MS = 8;

export class DirWatches {
  /** Workspace-relative folder ('' is the root) → its watch. */
  private readonly watches = new Map<string, FSWatcher>();
  /** Watched folder → its watched subfolders, so a folder that goes takes exactly its own. */
  private readonly kids = new Map<string, Set<string>>();
  private closed = false;
  private failed = false;

  constructor(
    private readonly root: string,
    /** Workspace-relative paths that changed (a folder's own path when the OS names no entry). */
    private readonly onPaths: (paths: string[]) => void,
    /** Once: a folder could not be watched (the inotify limit, most often); the rest still is. */
    private readonly onError: (err: unknown) => void,
    private readonly watchFn: WatchFn = nodeWatch,
  ) {}

  /** Watches the root (throws when it cannot), then every folder below it. */
  async start(): Promise<void> {
    this.add('', true);
    await this.walk(['']);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const w of this.watches.values()) w.close();
    this.watches.clear();
    this.kids.clear();
  }

  get size(): number {
    return this.watches.size;
  }

  /**
   * Watch first, then read: an entry made in between is an event, not a gap. Read synchronously
   * in slices of a few ms between which the host answers (at 1,000,000 files: promise-based
   * reads took 5.3 s, synchronous ones 0.9 s).
   */
  private async walk(start: string[], found?: string[]): Promise<void> {
    const queue = [...start];
    while (queue.length && !this.closed) {
      const until = performance.now() + SLICE_MS;
      while (queue.length && !this.closed && performance.now() < until) {
        const dir = queue.pop()!;
        let entries: Dirent[];
        try {
          entries = readdirSync(path.join(this.root, dir), { withFileTypes: true });
        } catch {
          continue; // gone since: its parent's event says so
        }
        for (const e of entries) {
          const rel = dir ? `${dir}/${e.name}` : e.name;
          found?.push(rel);
          if (e.isDirectory() && !ignored(rel) && !this.watches.has(rel) && this.add(rel)) queue.push(rel);
        }
      }
      if (queue.length) await new Promise((r) => setImmediate(r));
    }
  }

  /** False when the folder could not be watched (then it is not walked either). */
  private add(rel: string, root = false): boolean {
    if (this.closed || this.failed) return false;
    let w: FSWatcher;
    try {
      w = this.watchFn(path.join(this.root, rel), (event, name) => this.onEvent(rel, event, name));
    } catch (err) {
      if (root) throw err;
      // Gone already, or out of watches: the first is nothing, the second is said once and
      // the folders watched so far stay watched.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return false;
      this.failed = true;
      this.onError(err);
      return false;
    }
    w.on('error', () => this.dropTree(rel));
    this.watches.set(rel, w);
    if (!root) {
      const parent = path.posix.dirname(rel) === '.' ? '' : path.posix.dirname(rel);
      let set = this.kids.get(parent);
      if (!set) this.kids.set(parent, (set = new Set()));
      set.add(rel);
    }
    return true;
  }

  private onEvent(dir: string, event: string, name: string | Buffer | null): void {
    if (this.closed) return;
    if (name === null) return this.onPaths([dir]);
    const rel = dir ? `${dir}/${name.toString()}` : name.toString();
    this.onPaths([rel]);
    // An entry came or went: a folder that went takes its watches with it; a new folder (made,
    // moved or copied in) is watched and walked, and what it already holds is told as changed.
    if (event !== 'rename' || rel === dir) return;
    void lstat(path.join(this.root, rel)).then(
      (s) => {
        if (!s.isDirectory()) return this.dropTree(rel);
        if (this.watches.has(rel) || ignored(rel) || !this.add(rel)) return;
        const found: string[] = [];
        void this.walk([rel], found).then(() => found.length && !this.closed && this.onPaths(found));
      },
      () => this.dropTree(rel),
    );
  }

  private dropTree(rel: string): void {
    const w = this.watches.get(rel);
    if (!w) return;
    w.close();
    this.watches.delete(rel);
    const parent = path.posix.dirname(rel) === '.' ? '' : path.posix.dirname(rel);
    this.kids.get(parent)?.delete(rel);
    const below = this.kids.get(rel);
    this.kids.delete(rel);
    for (const kid of below ?? []) this.dropTree(kid);
  }
}
