// Linux's watcher: one inotify watch per folder through fs.watch, kept in a map by folder.
// @parcel/watcher also keeps an entry for every file it finds (1,000,000 files: +363 MB and 4.3 s
// to subscribe); this map of folders cost +172 MB and 2.2 s there.
import { lstatSync, readdirSync, watch, type Dirent, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { parentOf } from './pathGuard';

/** fs.watch, as the tests may replace it (to run out of watches on purpose). */
export type WatchFn = (abs: string, listener: (event: string, name: string | Buffer | null) => void) => FSWatcher;

const nodeWatch: WatchFn = (abs, listener) => watch(abs, { persistent: false }, listener);

/** Folders never watched: any `node_modules`, and these below the root. */
const IGNORED = new Set(['.git/objects', '.git/logs', '.loupe/objects', '.loupe/outputs']);
/** The command snapshots' private folders: each snapshot writes there (their cookies sit beside them, watched). */
const SNAPSHOT_DIR = /^\.loupe\/snapshots\/[^/]+$/;
const ignored = (rel: string): boolean => path.posix.basename(rel) === 'node_modules' || IGNORED.has(rel) || SNAPSHOT_DIR.test(rel);

/** Longest stretch the walk keeps the event loop. */
const SLICE_MS = 8;

export class DirWatches {
  /** Workspace-relative folder ('' is the root) → its watch. */
  private readonly watches = new Map<string, FSWatcher>();
  /** Watched folder → its watched subfolders, so a folder that goes takes exactly its own. */
  private readonly kids = new Map<string, Set<string>>();
  /** Watched folder → the inode its watch follows: a folder of that name made again is another. */
  private readonly inodes = new Map<string, number>();
  private closed = false;
  private failed = false;
  /** Folders whose entries came or went since the last sweep. */
  private readonly dirty = new Set<string>();
  private sweeping: NodeJS.Immediate | null = null;
  /** Callers of `idle` waiting for the sweep to end. */
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly root: string,
    /** Workspace-relative paths that changed (a folder's own path when the OS names no entry). */
    private readonly onPaths: (paths: string[]) => void,
    /** Once: a folder could not be watched (the inotify limit, most often); the rest still is. */
    private readonly onError: (err: unknown) => void,
    private readonly watchFn: WatchFn = nodeWatch,
    /** A folder left unwatched on purpose (`node_modules`): nothing in it will be an event. */
    private readonly onBlind: (rel: string) => void = () => undefined,
    /** A watch failed after it was made: its folder's events may be missing from now on. */
    private readonly onLost: () => void = () => undefined,
  ) {}

  /** Watches the root (throws when it cannot), then every folder below it. */
  async start(): Promise<void> {
    this.add('', true);
    await this.walk(['']);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.sweeping) clearImmediate(this.sweeping);
    for (const w of this.watches.values()) w.close();
    this.watches.clear();
    this.kids.clear();
    this.wakeIdle();
  }

  /** Resolves once every folder known to have appeared is watched (no sweep under way). */
  idle(): Promise<void> {
    if (!this.sweeping || this.closed) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private wakeIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
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
          if (!e.isDirectory() || this.watches.has(rel)) continue;
          if (ignored(rel)) this.onBlind(rel);
          else if (this.add(rel)) queue.push(rel);
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
    w.on('error', () => {
      this.dropTree(rel);
      this.onLost();
    });
    this.watches.set(rel, w);
    const ino = this.inodeOf(rel);
    if (ino !== null) this.inodes.set(rel, ino);
    if (!root) {
      const parent = parentOf(rel);
      let set = this.kids.get(parent);
      if (!set) this.kids.set(parent, (set = new Set()));
      set.add(rel);
    }
    return true;
  }

  private onEvent(dir: string, event: string, name: string | Buffer | null): void {
    if (this.closed) return;
    if (name === null) return this.onPaths([dir]);
    const entry = name.toString();
    // A watched folder deleted or moved away names itself (inotify's DELETE_SELF and MOVE_SELF,
    // told with the folder's own name). Its watch follows the old inode: a folder made again
    // under that name before the parent's sweep would keep it and never be heard. So the watch
    // goes now and the parent is read again. A child of the same name coming or going says the
    // same, and neither a check for that child nor the inode tells them apart (a folder made
    // again may reuse the old inode and hold such a child): both are told, at the cost of a re-walk.
    if (dir && event === 'rename' && entry === path.posix.basename(dir)) {
      this.dropTree(dir);
      this.onPaths([dir, `${dir}/${entry}`]);
      this.dirty.add(parentOf(dir));
      this.sweeping ??= setImmediate(() => void this.sweep());
      return;
    }
    this.onPaths([dir ? `${dir}/${entry}` : entry]);
    // An entry came or went: the folder is re-read for folders made, moved in or gone, once per
    // burst (a checkout renames tens of thousands of files in a few thousand folders).
    if (event !== 'rename') return;
    this.dirty.add(dir);
    this.sweeping ??= setImmediate(() => void this.sweep());
  }

  /**
   * Each folder whose entries came or went: a new subfolder is watched and walked, and what it
   * already holds is told as changed; a subfolder that went takes its watches with it.
   */
  private async sweep(): Promise<void> {
    const found: string[] = [];
    while (this.dirty.size && !this.closed) {
      const until = performance.now() + SLICE_MS;
      const fresh: string[] = [];
      for (const dir of this.dirty) {
        if (performance.now() >= until) break;
        this.dirty.delete(dir);
        if (!this.watches.has(dir)) continue;
        let entries: Dirent[];
        try {
          entries = readdirSync(path.join(this.root, dir), { withFileTypes: true });
        } catch {
          this.dropTree(dir);
          continue;
        }
        const subdirs = new Set<string>();
        for (const e of entries) {
          if (!e.isDirectory()) continue;
          const rel = dir ? `${dir}/${e.name}` : e.name;
          subdirs.add(rel);
          // A folder moved or made again under a watched name: the old watch follows the old inode.
          if (this.watches.has(rel) && this.replaced(rel)) this.dropTree(rel);
          if (this.watches.has(rel)) continue;
          if (ignored(rel)) this.onBlind(rel);
          else if (this.add(rel)) fresh.push(rel);
        }
        for (const kid of [...(this.kids.get(dir) ?? [])]) if (!subdirs.has(kid)) this.dropTree(kid);
      }
      if (fresh.length) await this.walk(fresh, found);
      if (this.dirty.size) await new Promise((r) => setImmediate(r));
    }
    this.sweeping = null;
    if (found.length && !this.closed) this.onPaths(found);
    this.wakeIdle();
  }

  private inodeOf(rel: string): number | null {
    try {
      const st = lstatSync(path.join(this.root, rel));
      return st.isDirectory() ? st.ino : null;
    } catch {
      return null;
    }
  }

  /** The folder at `rel` is gone or is not the one its watch follows. */
  private replaced(rel: string): boolean {
    const ino = this.inodeOf(rel);
    return ino === null || ino !== this.inodes.get(rel);
  }

  private dropTree(rel: string): void {
    const w = this.watches.get(rel);
    if (!w) return;
    w.close();
    this.watches.delete(rel);
    this.inodes.delete(rel);
    this.kids.get(parentOf(rel))?.delete(rel);
    const below = this.kids.get(rel);
    this.kids.delete(rel);
    for (const kid of below ?? []) this.dropTree(kid);
  }
}
