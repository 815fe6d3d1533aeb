// The last snapshot's tree, held in memory folder by folder, so a snapshot of a few changed
// paths makes only the trees along those paths (docs/architecture.md, "What the watcher saw").
// Built once from `git ls-tree -r -t` of a tree git wrote; each update hashes the folders it
// touched and gives back the new objects and, path by path, what changed.
import { gitObject, type GitObject } from './gitObjects';

export interface TreeEntry {
  /** git's mode: 100644, 100755, 120000 (a link), 160000 (a nested repository), 40000 (a folder). */
  mode: string;
  oid: string;
}

/** One path's entry before and after (null: absent). */
export type EntryChange = [TreeEntry | null, TreeEntry | null];

export const FOLDER = '40000';
export const GITLINK = '160000';
const EMPTY_TREE = gitObject('tree', Buffer.alloc(0));

const parentOf = (p: string) => {
  const i = p.lastIndexOf('/');
  return i === -1 ? '' : p.slice(0, i);
};
const nameOf = (p: string) => p.slice(p.lastIndexOf('/') + 1);

export class TreeModel {
  private constructor(
    /** Folder ('' for the top) → its entries by name. */
    private readonly dirs: Map<string, Map<string, TreeEntry>>,
    public tree: string,
  ) {}

  /**
   * From `git ls-tree -r -t -z --full-tree <tree>`. Null when a name is not UTF-8: the watcher
   * names paths as text, so such a tree is left to git.
   */
  static parse(out: Buffer, tree: string): TreeModel | null {
    const dirs = new Map<string, Map<string, TreeEntry>>([['', new Map()]]);
    const text = out.toString('utf8');
    if (text.includes('\uFFFD')) return null;
    for (const rec of text.split('\0')) {
      if (!rec) continue;
      const tab = rec.indexOf('\t');
      const [mode, type, oid] = rec.slice(0, tab).split(' ');
      const p = rec.slice(tab + 1);
      const parent = dirs.get(parentOf(p));
      if (!parent) return null;
      if (type === 'tree') {
        parent.set(nameOf(p), { mode: FOLDER, oid });
        dirs.set(p, new Map());
      } else parent.set(nameOf(p), { mode, oid });
    }
    return new TreeModel(dirs, tree);
  }

  entry(p: string): TreeEntry | undefined {
    return this.dirs.get(parentOf(p))?.get(nameOf(p));
  }

  children(dir: string): ReadonlyMap<string, TreeEntry> | undefined {
    return this.dirs.get(dir);
  }

  /** A folder above `p` is a nested repository's entry (git does not look inside it). */
  underGitlink(p: string): boolean {
    for (let i = p.indexOf('/'); i !== -1; i = p.indexOf('/', i + 1)) if (this.entry(p.slice(0, i))?.mode === GITLINK) return true;
    return false;
  }

  /** Every file entry at or below `p`. */
  leaves(p: string): [string, TreeEntry][] {
    const e = this.entry(p);
    if (!e) return [];
    if (e.mode !== FOLDER) return [[p, e]];
    const out: [string, TreeEntry][] = [];
    for (const name of this.dirs.get(p)?.keys() ?? []) out.push(...this.leaves(`${p}/${name}`));
    return out;
  }

  /**
   * Sets each path to its entry (a file, a link) or removes it (null: a file, or a folder with
   * everything below). Folders are made and removed as their files need; the trees along the
   * changed paths are hashed again. Returns the new top tree, the objects to store and what
   * changed, file by file.
   */
  update(changes: ReadonlyMap<string, TreeEntry | null>): { tree: string; objects: GitObject[]; delta: Map<string, EntryChange> } {
    const delta = new Map<string, EntryChange>();
    const note = (p: string, before: TreeEntry | null, after: TreeEntry | null) => {
      const had = delta.get(p);
      delta.set(p, [had ? had[0] : before, after]);
    };
    const dirty = new Set<string>();
    const touch = (dir: string) => {
      for (let d = dir; ; d = parentOf(d)) {
        if (dirty.has(d)) break;
        dirty.add(d);
        if (d === '') break;
      }
    };
    const remove = (p: string) => {
      const e = this.entry(p);
      if (!e) return;
      for (const [leaf, le] of this.leaves(p)) note(leaf, le, null);
      this.dirs.get(parentOf(p))!.delete(nameOf(p));
      if (e.mode === FOLDER) for (const d of [...this.dirs.keys()]) if (d === p || d.startsWith(`${p}/`)) this.dirs.delete(d);
      touch(parentOf(p));
    };
    const folder = (dir: string): Map<string, TreeEntry> => {
      let m = this.dirs.get(dir);
      if (m) return m;
      const up = folder(parentOf(dir));
      if (up.has(nameOf(dir))) remove(dir);
      m = new Map();
      this.dirs.set(dir, m);
      up.set(nameOf(dir), { mode: FOLDER, oid: '' });
      return m;
    };
    // Removals first: a file that went may be a folder's name now, and the reverse.
    for (const [p, e] of changes) if (!e) remove(p);
    for (const [p, e] of changes) {
      if (!e) continue;
      const before = this.entry(p);
      if (before?.mode === FOLDER) remove(p);
      folder(parentOf(p)).set(nameOf(p), e);
      note(p, before && before.mode !== FOLDER ? before : null, e);
      touch(parentOf(p));
    }
    const objects: GitObject[] = [];
    const depth = (d: string) => (d === '' ? -1 : d.split('/').length);
    for (const d of [...dirty].sort((a, b) => depth(b) - depth(a))) {
      const m = this.dirs.get(d);
      if (!m) continue;
      if (d !== '' && m.size === 0) {
        this.dirs.delete(d);
        this.dirs.get(parentOf(d))?.delete(nameOf(d));
        continue;
      }
      const obj = m.size ? gitObject('tree', serialize(m)) : EMPTY_TREE;
      objects.push(obj);
      if (d === '') this.tree = obj.oid;
      else this.dirs.get(parentOf(d))!.set(nameOf(d), { mode: FOLDER, oid: obj.oid });
    }
    for (const [p, [a, b]] of delta) if (a ? b && a.mode === b.mode && a.oid === b.oid : !b) delta.delete(p);
    return { tree: this.tree, objects, delta };
  }
}

/** A tree object's bytes: entries in git's order (a folder's name sorts as if it ended in `/`). */
function serialize(m: Map<string, TreeEntry>): Buffer {
  const rows = [...m].map(([name, e]) => ({ key: Buffer.from(e.mode === FOLDER ? `${name}/` : name), head: Buffer.from(`${e.mode} ${name}\0`), oid: Buffer.from(e.oid, 'hex') }));
  rows.sort((a, b) => Buffer.compare(a.key, b.key));
  return Buffer.concat(rows.flatMap((r) => [r.head, r.oid]));
}
