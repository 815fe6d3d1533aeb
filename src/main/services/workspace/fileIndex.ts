// The workspace's file list, from `rg --files` so .gitignore, .ignore and global git
// excludes are honoured exactly as the search tools will honour them.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { TreeEntry } from '../../../shared/contract';
import { GitRunner } from '../git/gitRunner';
import { searchablePaths, type SearchablePaths } from './fuzzyFiles';
import { diskKind, planPatch, readRegions, type IndexView, type PatchPlan } from './indexPatch';
import { parentOf } from './pathGuard';
import { listFilesWithRg, streamFilesWithRg } from './rgFiles';

type Children = Map<string, 'file' | 'dir'>;

/**
 * Most paths one batch may name and still be patched rather than walked: a checkout or an
 * install gives thousands, and one walk of the tree costs less than listing their folders.
 * Measured in bench/index-patch.bench.mjs (see docs/architecture.md, "Big folders").
 */
export const MAX_PATCH_PATHS = 1000;

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

export function buildChildren(files: string[], dirs = new Map<string, Children>([['', new Map()]])): Map<string, Children> {
  const childrenOf = (dir: string): Children => {
    let c = dirs.get(dir);
    if (!c) dirs.set(dir, (c = new Map()));
    return c;
  };
  for (const file of files) {
    let parent = '';
    const segments = file.split('/');
    for (let i = 0; i < segments.length; i++) {
      const name = segments[i];
      const isFile = i === segments.length - 1;
      const children = childrenOf(parent);
      if (isFile) children.set(name, 'file');
      else if (children.get(name) !== 'dir') children.set(name, 'dir');
      parent = parent ? `${parent}/${name}` : name;
    }
  }
  return dirs;
}

function signature(children: Children | undefined): string {
  if (!children) return '';
  return [...children].map(([n, k]) => `${k[0]}${n}`).sort().join('\0');
}

export function sortEntries(entries: TreeEntry[]): TreeEntry[] {
  return entries.sort((a, b) => (a.kind === b.kind ? collator.compare(a.name, b.name) : a.kind === 'dir' ? -1 : 1));
}

/** Subfolder names (relative paths) git would ignore; none when git is missing or this is no repo. */
async function gitIgnored(root: string, rels: string[], signal?: AbortSignal): Promise<Set<string>> {
  const ignored = new Set<string>();
  // Through the one git runner (hardened config, no drivers); exit 1 means "none ignored".
  const git = new GitRunner(root);
  for (let i = 0; i < rels.length; i += 500) {
    try {
      const out = await git.exec(['check-ignore', '--', ...rels.slice(i, i + 500).map((r) => `${r}/`)], { signal });
      for (const p of out.stdout.toString('utf8').split('\n')) if (p) ignored.add(p.replace(/\/$/, ''));
    } catch {
      // Not a repository, or git is missing: nothing is hidden beyond rg's own rules.
    }
  }
  return ignored;
}

/**
 * One folder without the whole index: its files from `rg --files --max-depth 1` (the same
 * ignore rules as the index), its subfolders from readdir minus what git ignores. Unlike the
 * index it shows a subfolder whose files are all ignored, and it does not apply `.ignore`
 * files to subfolders; the index replaces it as soon as it is complete.
 */
export async function listDirect(root: string, dir: string, signal?: AbortSignal): Promise<TreeEntry[]> {
  const prefix = dir ? `${dir}/` : '';
  const entries: TreeEntry[] = [];
  const dirents = await readdir(path.join(root, dir), { withFileTypes: true }).catch(() => []);
  const files = streamFilesWithRg(
    root,
    (batch) => {
      for (const f of batch) entries.push({ path: f, name: f.slice(prefix.length), kind: 'file' });
    },
    signal,
    ['--max-depth', '1', ...(dir ? ['--', dir] : [])],
  );
  const subdirs = dirents
    .filter((d) => d.isDirectory() && d.name !== '.git' && d.name !== '.loupe')
    .map((d) => prefix + d.name);
  const [ignored] = await Promise.all([gitIgnored(root, subdirs, signal), files]);
  for (const p of subdirs) if (!ignored.has(p)) entries.push({ path: p, name: p.slice(prefix.length), kind: 'dir' });
  return sortEntries(entries);
}

export type IndexProgress = { files: number; done: boolean };

export class FileIndex {
  private dirs = new Map<string, Children>();
  private ready = false;
  private building: Promise<void> | null = null;
  private readonly abort = new AbortController();
  /** Sorted listings already handed out; any refresh may change them, so it clears them all. */
  private listings = new Map<string, Promise<TreeEntry[]>>();
  /** Every file path with its lower-case form, until the index changes (searchable()). */
  private searchableFiles: SearchablePaths | null = null;
  private readonly progressListeners = new Set<(p: IndexProgress) => void>();
  /** The count last reported as done: a change that leaves it (an edit) says nothing. */
  private reported = -1;
  /** Folders answered before the index was complete: their listings may differ slightly. */
  private readonly servedDirect = new Set<string>();
  /** Folders refreshDirs dropped: what is below them is not in the index until the next full listing. */
  private readonly unknown = new Set<string>();

  constructor(private readonly root: string) {}

  get isReady(): boolean {
    return this.ready;
  }

  onProgress(listener: (p: IndexProgress) => void): () => void {
    this.progressListeners.add(listener);
    return () => this.progressListeners.delete(listener);
  }

  /** Builds the index in the background (idempotent); `list` answers directly until it is complete. */
  start(): Promise<void> {
    this.building ??= this.build();
    return this.building;
  }

  /** Folders listed directly while the index was building; cleared by reading. */
  takeServedDirect(): string[] {
    const dirs = [...this.servedDirect];
    this.servedDirect.clear();
    return dirs;
  }

  private async build(): Promise<void> {
    const next = new Map<string, Children>([['', new Map()]]);
    let files = 0;
    let lastReport = 0;
    await streamFilesWithRg(
      this.root,
      (batch) => {
        buildChildren(batch, next);
        files += batch.length;
        if (files - lastReport >= 2000) {
          lastReport = files;
          this.emitProgress({ files, done: false });
        }
      },
      this.abort.signal,
    );
    if (this.ready) return; // a refresh finished first and is newer
    this.dirs = next;
    this.changed();
    this.ready = true;
    this.emitProgress({ files, done: true });
  }

  private emitProgress(p: IndexProgress): void {
    if (p.done) this.reported = p.files;
    for (const l of this.progressListeners) l(p);
  }

  /** Stops a build under way; the index stays as it was. */
  dispose(): void {
    this.abort.abort();
  }

  /**
   * Brings the index up to date with these changed paths without walking the whole tree
   * (indexPatch.ts): a file still where it was costs an lstat; a file made or gone, a listing of
   * its folder; a folder made or moved in, a walk of that folder. null when only the whole walk
   * will do (more than MAX_PATCH_PATHS paths, an ignore rule of the whole tree changed).
   * Returns the folders whose listing may have changed. The workspace runs one at a time,
   * never beside refresh.
   */
  async patch(paths: string[], signal?: AbortSignal): Promise<string[] | null> {
    if (paths.length > MAX_PATCH_PATHS) return null;
    if (!this.ready) {
      // The walk under way may have read these folders before they changed: patch after it.
      // One not started yet will read them as they are now.
      if (this.building) await this.building.catch(() => undefined);
      if (!this.ready) return [...new Set(paths.map(parentOf))];
    }
    const view: IndexView = {
      isFile: (p) => this.dirs.get(parentOf(p))?.get(path.posix.basename(p)) === 'file',
      isDir: (d) => d === '' || this.dirs.has(d),
    };
    const kindOf = (rel: string) => diskKind(this.root, rel);
    const plan = planPatch(paths, view, kindOf);
    if ('full' in plan) return null;
    const files = await readRegions(this.root, plan, view, kindOf, signal ?? this.abort.signal);
    return files && this.apply(plan, files);
  }

  /** Replaces what the plan's folders held with what they hold now; returns the folders whose listing changed. */
  private apply(plan: PatchPlan, files: string[]): string[] {
    const before = new Map<string, string>();
    const note = (d: string) => void (before.has(d) || before.set(d, signature(this.dirs.get(d))));
    const emptied = new Set<string>();
    for (const s of plan.subtrees) {
      this.dropTree(s, note);
      const parent = parentOf(s);
      const kids = this.dirs.get(parent);
      if (kids?.get(path.posix.basename(s)) === 'dir') {
        note(parent);
        kids.delete(path.posix.basename(s));
        emptied.add(parent);
      }
    }
    for (const l of plan.levels) {
      const kids = this.dirs.get(l);
      if (!kids) continue;
      for (const [name, kind] of kids) {
        if (kind !== 'file') continue;
        note(l);
        kids.delete(name);
      }
      emptied.add(l);
    }
    for (const d of emptied) this.prune(d, note);
    for (const f of files) this.addFile(f, note);
    const changed = [...before].filter(([d, sig]) => signature(this.dirs.get(d)) !== sig).map(([d]) => d);
    // A file made or gone changes the paths quick open and the @ picker rank.
    if (changed.length) {
      this.searchableFiles = null;
      this.reportCount();
    }
    const stale = new Set([...changed, ...plan.touched, ...plan.levels, ...plan.subtrees]);
    for (const key of this.listings.keys()) {
      if (stale.has(key) || plan.subtrees.some((s) => key.startsWith(`${s}/`))) this.listings.delete(key);
    }
    return [...new Set([...changed, ...plan.touched])];
  }

  /** Drops a folder and everything below it. */
  private dropTree(dir: string, note: (d: string) => void): void {
    const kids = this.dirs.get(dir);
    if (!kids) return;
    note(dir);
    this.dirs.delete(dir);
    for (const [name, kind] of kids) if (kind === 'dir') this.dropTree(dir ? `${dir}/${name}` : name, note);
  }

  /** A folder left without files leaves its parent too, as a walk would never have listed it. */
  private prune(dir: string, note: (d: string) => void): void {
    for (let d = dir; d !== ''; d = parentOf(d)) {
      if (this.dirs.get(d)?.size !== 0) return;
      note(d);
      this.dirs.delete(d);
      note(parentOf(d));
      this.dirs.get(parentOf(d))?.delete(path.posix.basename(d));
    }
  }

  private addFile(file: string, note: (d: string) => void): void {
    let parent = '';
    const segments = file.split('/');
    for (let i = 0; i < segments.length; i++) {
      const name = segments[i];
      const kind = i === segments.length - 1 ? 'file' : 'dir';
      let kids = this.dirs.get(parent);
      if (!kids) {
        note(parent);
        this.dirs.set(parent, (kids = new Map()));
      }
      if (kids.get(name) !== kind) {
        note(parent);
        kids.set(name, kind);
      }
      parent = parent ? `${parent}/${name}` : name;
    }
  }

  /** Re-lists the workspace; returns the directories whose listing changed. */
  async refresh(signal?: AbortSignal): Promise<string[]> {
    const next = buildChildren(await listFilesWithRg(this.root, signal ?? this.abort.signal));
    const changed: string[] = [];
    for (const dir of new Set([...this.dirs.keys(), ...next.keys()])) {
      if (signature(this.dirs.get(dir)) !== signature(next.get(dir))) changed.push(dir);
    }
    this.dirs = next;
    this.changed();
    this.unknown.clear();
    this.ready = true;
    return changed;
  }

  /**
   * Re-reads these folders one level deep (a direct listing each) and patches the index where
   * they changed; for when the watcher cannot see the tree and only the open folders are
   * rescanned. A subfolder that is new or gone loses what the index knew below it: it is
   * listed directly when it is opened. Returns the folders whose listing changed.
   */
  async refreshDirs(dirs: string[], signal?: AbortSignal): Promise<string[]> {
    if (!this.ready) return [];
    const changed: string[] = [];
    for (const dir of dirs) {
      const entries = await listDirect(this.root, dir, signal ?? this.abort.signal);
      const next: Children = new Map(entries.map((e) => [e.name, e.kind]));
      const before = this.dirs.get(dir);
      if (signature(before) === signature(next)) continue;
      const prefix = dir ? `${dir}/` : '';
      for (const [name, kind] of before ?? []) {
        if (kind === 'dir' && next.get(name) !== 'dir') this.forget(prefix + name);
      }
      for (const [name, kind] of next) if (kind === 'dir' && before?.get(name) !== 'dir') this.forget(prefix + name);
      this.dirs.set(dir, next);
      changed.push(dir);
    }
    if (changed.length) this.changed();
    return changed;
  }

  /** What was made of the index's contents no longer holds; once built, a new file count is reported. */
  private changed(): void {
    this.listings.clear();
    this.searchableFiles = null;
    this.reportCount();
  }

  /** Once built, a file count other than the last one reported is reported (the status bar's). */
  private reportCount(): void {
    if (!this.ready || !this.progressListeners.size) return;
    const files = this.fileCount;
    if (files !== this.reported) this.emitProgress({ files, done: true });
  }

  /** Drops a folder and everything below it from the index; they are read directly until the next full listing. */
  private forget(dir: string): void {
    this.unknown.add(dir);
    for (const key of [...this.dirs.keys()]) if (key === dir || key.startsWith(`${dir}/`)) this.dirs.delete(key);
  }

  private forgotten(dir: string): boolean {
    for (let d = dir; d; d = d.includes('/') ? d.slice(0, d.lastIndexOf('/')) : '') if (this.unknown.has(d)) return true;
    return false;
  }

  /** Every folder the index holds (`at:folder`) and every entry (`kind:path`), sorted: what equivalence checks compare. */
  snapshot(): string[] {
    const out: string[] = [];
    for (const [dir, kids] of this.dirs) {
      out.push(`at:${dir}`);
      for (const [name, kind] of kids) out.push(`${kind}:${dir ? `${dir}/${name}` : name}`);
    }
    return out.sort();
  }

  /** Every indexed file path (workspace-relative), as far as the index has got. */
  *files(): Generator<string> {
    for (const [dir, children] of this.dirs) {
      for (const [name, kind] of children) if (kind === 'file') yield dir ? `${dir}/${name}` : name;
    }
  }

  /**
   * The files as quick open and the `@` picker rank them on every key: made once per change of
   * the index, so a key costs the scoring alone (bench/mentions.bench.mjs, 100,000 files).
   */
  searchable(): SearchablePaths {
    this.searchableFiles ??= searchablePaths(this.files());
    return this.searchableFiles;
  }

  /** Every indexed folder that holds something (workspace-relative, the root left out). */
  *dirPaths(): Generator<string> {
    for (const dir of this.dirs.keys()) if (dir) yield dir;
  }

  get fileCount(): number {
    let n = 0;
    for (const children of this.dirs.values()) for (const kind of children.values()) if (kind === 'file') n++;
    return n;
  }

  async list(dir: string): Promise<TreeEntry[]> {
    // Not built yet (or still building): answered directly. Starting the build is the owner's
    // call (the workspace starts it once the first screen is served).
    if (!this.ready) {
      this.servedDirect.add(dir);
      return listDirect(this.root, dir, this.abort.signal);
    }
    let listing = this.listings.get(dir);
    if (!listing) {
      listing = this.compute(dir);
      this.listings.set(dir, listing);
    }
    return listing;
  }
  private async compute(dir: string): Promise<TreeEntry[]> {
    // A folder refreshDirs found new (or forgot): nothing known below it yet, so read it.
    if (dir && this.forgotten(dir)) return listDirect(this.root, dir, this.abort.signal);
    const prefix = dir ? `${dir}/` : '';
    const entries: TreeEntry[] = [...(this.dirs.get(dir) ?? [])].map(([name, kind]) => ({
      path: prefix + name,
      name,
      kind,
    }));
    // rg lists files only; an empty folder the user just made should still show.
    const known = new Set(entries.map((e) => e.name));
    try {
      for (const d of await readdir(path.join(this.root, dir), { withFileTypes: true })) {
        if (!d.isDirectory() || known.has(d.name) || d.name === '.git' || d.name === '.loupe') continue;
        if ((await readdir(path.join(this.root, dir, d.name))).length === 0) {
          entries.push({ path: prefix + d.name, name: d.name, kind: 'dir' });
        }
      }
    } catch {
      // The folder vanished between listing and reading: the rg view stands.
    }
    return sortEntries(entries);
  }
}
