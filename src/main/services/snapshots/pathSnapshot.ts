// What the paths the watcher saw change are now, as git's `add -A` would record them, decided
// in this process (docs/architecture.md, "What the watcher saw"): a file the last tree has is
// hashed again whatever the ignore rules say (git keeps a tracked file); a path it lacks is
// asked of git's own ignore rules, one `ls-files --others` for all of them. Anything git would
// treat otherwise — a nested repository, a FIFO, a huge file, a name that is not text — gives
// null, and the snapshot is left to git.
import path from 'node:path';
import { lstatInside, readInside, readlinkInside } from '../files/safeOpen';
import { readdirInside } from '../files/safeWrite';
import { gitObject, type GitObject } from './gitObjects';
import { FOLDER, GITLINK, type TreeEntry, type TreeModel } from './treeModel';

/** A file larger than this is hashed by git, streaming, rather than held here whole. */
const MAX_HASHED_BYTES = 32 * 1024 * 1024;

export interface PathChanges {
  /** Path → its entry now (null: not in the tree any more). */
  changes: Map<string, TreeEntry | null>;
  /** The blobs of the files hashed (stored before the trees that name them). */
  blobs: GitObject[];
}

export interface PathSnapshotInput {
  root: string;
  model: TreeModel;
  paths: readonly string[];
  /** At most this many files are hashed here; more and git does it. */
  max: number;
  /** git's answer for paths the tree lacks: the files below or at them it would add (ignored ones left out). */
  others(paths: string[]): Promise<string[]>;
}

/** A path git would not take as a plain file of this tree (a nested repository's folder, text that is not UTF-8). */
const UNUSUAL = /(^|\/)\.git(\/|$)|\uFFFD/;

/** The entries the changed paths have now, or null to leave the snapshot to git. */
export async function pathSnapshot(input: PathSnapshotInput): Promise<PathChanges | null> {
  const { root, model, max } = input;
  const seen = new Set(input.paths);
  const changes = new Map<string, TreeEntry | null>();
  const blobs: GitObject[] = [];
  const fresh: string[] = [];
  const abs = (rel: string) => path.join(root, rel);
  try {
    for (const p of seen) {
      if (UNUSUAL.test(p) || model.underGitlink(p)) return null;
      const known = model.entry(p);
      if (known?.mode === GITLINK) return null;
      const st = lstatInside(root, abs(p));
      if (!st) {
        if (known) changes.set(p, null);
      } else if (st.isFile() || st.isSymbolicLink()) {
        if (known && known.mode !== FOLDER) {
          if (!(await hash(p))) return null;
        } else {
          if (known) changes.set(p, null);
          fresh.push(p);
        }
      } else if (st.isDirectory()) {
        if (known?.mode === FOLDER) {
          // A folder's own event (made, moved, its entries changed): what it holds is read
          // again, so an entry no event named is not missed.
          const names = new Set(await readdirInside(root, abs(p)));
          if (names.has('.git')) return null;
          for (const name of names) if (!seen.has(`${p}/${name}`) && !model.entry(`${p}/${name}`)) fresh.push(`${p}/${name}`);
          for (const [name] of model.children(p) ?? []) if (!names.has(name) && !seen.has(`${p}/${name}`)) changes.set(`${p}/${name}`, null);
        } else {
          if (known) changes.set(p, null);
          fresh.push(p);
        }
      } else return null;
    }
    if (fresh.length) {
      const files = await input.others(fresh);
      if (files.length + blobs.length > max) return null;
      for (const f of files) {
        if (UNUSUAL.test(f) || model.underGitlink(f)) return null;
        if (!(await hash(f))) return null;
      }
    }
  } catch {
    // A folder that turned into a link on the way, a file that could not be read: git decides.
    return null;
  }
  return { changes, blobs };

  /** The file or link at `p` hashed into `changes`; false when git must do it; a path gone meanwhile is gone. */
  async function hash(p: string): Promise<boolean> {
    const st = lstatInside(root, abs(p));
    if (!st) {
      if (model.entry(p)) changes.set(p, null);
      return true;
    }
    if (st.isSymbolicLink()) {
      const target = readlinkInside(root, abs(p));
      if (!target) return false;
      const blob = gitObject('blob', target);
      blobs.push(blob);
      changes.set(p, { mode: '120000', oid: blob.oid });
      return true;
    }
    if (!st.isFile() || st.size > MAX_HASHED_BYTES) return false;
    const read = await readInside(root, abs(p), { maxBytes: MAX_HASHED_BYTES });
    if (!read) return false;
    const blob = gitObject('blob', read.buf);
    blobs.push(blob);
    // git records one bit of the mode: whether the owner may run the file.
    changes.set(p, { mode: read.st.mode & 0o100 ? '100755' : '100644', oid: blob.oid });
    return true;
  }
}
