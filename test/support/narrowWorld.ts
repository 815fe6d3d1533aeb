// A watched repository for the narrowing snapshots' tests: a watcher feeding a journal, a
// snapshot that narrows and one that always walks, over the same folder.
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'vitest';
import { git, tempDir } from './tmp';
import { ChangeJournal } from '../../src/main/services/workspace/changeJournal';
import { WorkspaceWatcher } from '../../src/main/services/workspace/watcher';
import { WorkTreeSnapshots } from '../../src/main/services/snapshots/workTreeSnapshots';

/** A repository with a watcher feeding a journal, a narrowing snapshot and a walking one. */
export async function narrowWorld(open: (() => Promise<void>)[], opts: { limit?: number; repo?: boolean; trackedModules?: boolean } = {}) {
  const t = await tempDir('loupe-narrow-');
  open.push(t.cleanup);
  const root = path.join(t.dir, 'ws');
  await mkdir(path.join(root, 'src', 'deep'), { recursive: true });
  await writeFile(path.join(root, '.gitignore'), 'build/\n*.log\n/node_modules/\n');
  await writeFile(path.join(root, 'src', 'a.ts'), 'a\n');
  await writeFile(path.join(root, 'src', 'deep', 'b.ts'), 'b\n');
  if (opts.trackedModules) {
    await mkdir(path.join(root, 'pkg', 'node_modules', 'dep'), { recursive: true });
    await writeFile(path.join(root, 'pkg', 'node_modules', 'dep', 'index.js'), 'tracked dependency\n');
  }
  await mkdir(path.join(root, 'node_modules', 'x'), { recursive: true });
  await writeFile(path.join(root, 'node_modules', 'x', 'i.js'), 'ignored\n');
  if (opts.repo !== false) {
    git(root, 'init', '-q');
    git(root, 'add', '-A');
    git(root, 'commit', '-qm', 'base');
  }
  const journal = new ChangeJournal(opts.limit);
  const watcher = new WorkspaceWatcher(root, () => undefined, () => undefined, 100, 'dirs', journal.attach());
  await watcher.start();
  const narrow = new WorkTreeSnapshots(root, async () => null, journal);
  const walk = new WorkTreeSnapshots(root, async () => null);
  open.push(async () => {
    await watcher.stop();
    await narrow.dispose();
    await walk.dispose();
  });
  /**
   * Both snapshots now; the narrowing one must give the walking one's tree. Its ignored entries
   * are git's listing for the changed paths, whose folders may group otherwise than a walk's:
   * they are compared where it matters, in the counts below.
   */
  let last: [string, string] | null = null;
  const both = async () => {
    const a = await narrow.take({ ignored: true });
    const b = await walk.take({ ignored: true });
    // What changed since the last pair, as each says it: the narrowing one from its own record
    // of the steps it made, the walking one from git's diff-tree.
    if (last) expect(await narrow.diff(last[0], a.tree)).toEqual(await walk.diff(last[1], b.tree));
    last = [a.tree, b.tree];
    if (a.tree !== b.tree) {
      const list = (snap: WorkTreeSnapshots, tree: string) => new Set(execFileSync('git', [`--git-dir=${(snap as unknown as { dir: string }).dir}`, 'ls-tree', '-r', tree], { encoding: 'utf8' }).split('\n'));
      const [la, lb] = [list(narrow, a.tree), list(walk, b.tree)];
      expect([...la].filter((l) => !lb.has(l)), `narrowed has, the walk has not; the walk has: ${[...lb].filter((l) => !la.has(l)).join(' | ')}`).toEqual([]);
    }
    expect(a.tree).toBe(b.tree);
    return narrow.lastMode;
  };
  return { root, journal, narrow, walk, both, watcher };
}
