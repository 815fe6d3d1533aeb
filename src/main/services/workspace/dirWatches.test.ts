import { execFileSync } from 'node:child_process';
import { watch } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir, until, writeTree } from '../../../../test/support/tmp';
import { DirWatches, type WatchFn } from './dirWatches';
import { WorkspaceWatcher, type WatchBackend } from './watcher';

let dir: string;
let cleanup: () => Promise<void>;
let seen: Set<string>;
let errors: unknown[];
let watches: DirWatches;

beforeEach(async () => {
  ({ dir, cleanup } = await tempDir('loupe-dirwatch-'));
  seen = new Set();
  errors = [];
});
afterEach(async () => {
  await watches?.close();
  await cleanup();
});

const start = async (watchFn?: WatchFn) => {
  watches = new DirWatches(dir, (paths) => paths.forEach((p) => seen.add(p)), (err) => errors.push(err), watchFn);
  await watches.start();
};
const sees = (...paths: string[]) => until(() => paths.every((p) => seen.has(p)), 5000);

describe('DirWatches (one watch per folder)', () => {
  it('watches every folder but node_modules and git objects, and tells changes at any depth', async () => {
    await writeTree(dir, { 'a.txt': '', 'src/deep/x/y.ts': '', 'node_modules/m/i.js': '', 'pkg/node_modules/n.js': '', '.git/objects/ab/cd': '', '.git/HEAD': '' });
    await start();
    // '', src, src/deep, src/deep/x, pkg, .git: not node_modules (anywhere) nor .git/objects.
    expect(watches.size).toBe(6);
    await writeFile(path.join(dir, 'src/deep/x/y.ts'), 'changed');
    await writeFile(path.join(dir, '.git/HEAD'), 'ref: refs/heads/other\n');
    await sees('src/deep/x/y.ts', '.git/HEAD');
    await writeFile(path.join(dir, 'node_modules/m/i.js'), 'x');
    await new Promise((r) => setTimeout(r, 200));
    expect([...seen].some((p) => p.startsWith('node_modules/m'))).toBe(false);
  });

  it('a folder deleted or moved away and made again under its name at once is heard, not left to the old watch', async () => {
    await writeTree(dir, { 'src/a.ts': '', 'other/b.ts': '' });
    await start();
    for (let round = 0; round < 20; round++) {
      // Gone and back within one tick: the parent's sweep finds the name present again.
      if (round % 2) execFileSync('sh', ['-c', 'rm -rf src && mkdir src && echo 1 > src/a.ts'], { cwd: dir });
      else execFileSync('sh', ['-c', 'mv src gone && mkdir src && echo 1 > src/a.ts && rm -rf gone'], { cwd: dir });
      seen.clear();
      // Once the sweeps are done, a write in the new folder is an event.
      await until(() => seen.has('src'), 5000);
      await watches.idle();
      await writeFile(path.join(dir, 'src', `w${round}.ts`), 'written after');
      await sees(`src/w${round}.ts`);
    }
  });

  it('a folder replaced by one holding a folder of its own name is heard (its self event looks like the child\'s)', async () => {
    await writeTree(dir, { 'deep/keep.ts': '', 'src/deep/b.ts': '' });
    await start();
    for (let round = 0; round < 6; round++) {
      // `deep` goes and `src` takes its name; the new `deep` holds `deep/deep`, so the old
      // watch's "deep went" reads like its child `deep/deep` changing.
      // Odd rounds: made again at once, which on ext4 reuses the old inode, holding `deep/deep`.
      if (round % 2) execFileSync('sh', ['-c', 'rm -rf deep && mkdir -p deep/deep && echo 1 > deep/deep/b.ts'], { cwd: dir });
      else execFileSync('sh', ['-c', 'rm -rf deep && mv src deep && mkdir -p src/deep && echo 1 > src/deep/b.ts'], { cwd: dir });
      seen.clear();
      await until(() => seen.has('deep'), 5000);
      await watches.idle();
      await mkdir(path.join(dir, 'deep', `er${round}`));
      await writeFile(path.join(dir, 'deep', `f${round}.ts`), 'written after');
      await sees(`deep/er${round}`, `deep/f${round}.ts`);
      execFileSync('sh', ['-c', 'rm -rf deep && mkdir deep'], { cwd: dir });
      await until(() => seen.has('deep'), 5000);
      await watches.idle();
    }
  });

  it('a folder copied in at once is watched, and what it held before its watch is told', async () => {
    await start();
    const aside = `${dir}-aside`;
    const files: Record<string, string> = {};
    for (let i = 0; i < 50; i++) files[`lib/d${i}/e/f.txt`] = `${i}`;
    await writeTree(aside, files);
    execFileSync('cp', ['-r', path.join(aside, 'lib'), dir]);
    await rm(aside, { recursive: true, force: true });
    await sees(...Object.keys(files));
    // Each new folder is watched: a change deep inside it is told.
    await until(() => watches.size === 1 + 1 + 50 * 2, 5000);
    await writeFile(path.join(dir, 'lib/d49/e/g.txt'), 'new');
    await sees('lib/d49/e/g.txt');
  });

  it('a folder removed or renamed takes its watches along; the new name is watched', async () => {
    await writeTree(dir, { 'a/b/c/f.txt': '', 'keep/k.txt': '' });
    await start();
    expect(watches.size).toBe(5);
    await rename(path.join(dir, 'a'), path.join(dir, 'z'));
    await until(() => watches.size === 5 && seen.has('z'), 5000);
    await writeFile(path.join(dir, 'z/b/c/g.txt'), 'x');
    await sees('z/b/c/g.txt');
    await rm(path.join(dir, 'z'), { recursive: true });
    await until(() => watches.size === 2, 5000);
    await mkdir(path.join(dir, 'keep/new'));
    await until(() => watches.size === 3, 5000);
  });

  it('out of watches: said once, and the folders watched so far keep telling', async () => {
    await writeTree(dir, { 'a/1.txt': '', 'b/2.txt': '', 'c/3.txt': '', 'd/4.txt': '' });
    let left = 3;
    const limited: WatchFn = (abs, listener) => {
      if (left-- <= 0) throw Object.assign(new Error(`ENOSPC: System limit for number of file watchers reached, watch '${abs}'`), { code: 'ENOSPC' });
      return watch(abs, { persistent: false }, listener);
    };
    await start(limited);
    expect(watches.size).toBe(3);
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toMatch(/ENOSPC/);
    await writeFile(path.join(dir, 'root.txt'), 'x');
    await sees('root.txt');
  });

  it('closing during the walk ends it with nothing left watched', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 2000; i++) files[`p${i}/q/f`] = '';
    await writeTree(dir, files);
    watches = new DirWatches(dir, () => undefined, (err) => errors.push(err));
    const walking = watches.start();
    await new Promise((r) => setImmediate(r));
    await watches.close();
    await walking;
    expect(watches.size).toBe(0);
  });
});

describe('WorkspaceWatcher backends', () => {
  async function watching(backend: WatchBackend, script: () => Promise<void>, expected: string[]): Promise<void> {
    const got = new Set<string>();
    const w = new WorkspaceWatcher(dir, (b) => b.paths.forEach((p) => got.add(p)), (e) => errors.push(e), 50, backend);
    await w.start();
    try {
      // A probe heard first proves the subscription live before the script runs: a clean run
      // under load missed both files of the parcel case within 5 s of a resolved subscribe.
      await until(async () => {
        await writeFile(path.join(dir, 'probe'), String(Date.now()));
        return got.has('probe');
      }, 30_000);
      await script();
      await until(() => expected.every((p) => got.has(p)), 5000);
      expect(errors).toEqual([]);
    } finally {
      await w.stop();
    }
  }

  it('dirs (Linux): files, a new nested folder and a removal arrive in batches', async () => {
    await writeTree(dir, { 'src/a.ts': '', 'old/o.txt': '' });
    const script = async () => {
      await writeFile(path.join(dir, 'src/a.ts'), 'x');
      await writeTree(dir, { 'src/new/deeper/n.ts': 'n' });
      await rm(path.join(dir, 'old'), { recursive: true });
    };
    await watching('dirs', script, ['src/a.ts', 'src/new/deeper/n.ts', 'old']);
  });

  // What macOS and Windows run, through the same batching. Not the nested folder: parcel's
  // inotify backend (Linux only, not used here) can miss a file made inside a folder it has
  // not yet added, under load.
  it('parcel: a changed and a new file arrive in batches', async () => {
    await writeTree(dir, { 'src/a.ts': '' });
    const script = async () => {
      await writeFile(path.join(dir, 'src/a.ts'), 'x');
      await writeFile(path.join(dir, 'src/b.ts'), 'y');
    };
    await watching('parcel', script, ['src/a.ts', 'src/b.ts']);
  });
});
