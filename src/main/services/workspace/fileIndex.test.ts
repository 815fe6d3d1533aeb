import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git, tempDir, writeTree } from '../../../../test/support/tmp';
import { buildChildren, FileIndex, listDirect } from './fileIndex';
import { listFilesWithRg } from './rgFiles';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir()));
afterEach(() => cleanup());

describe('FileIndex', () => {
  it('lists lazily, dirs first, natural order, and honours .gitignore in a git repo', async () => {
    git(dir, 'init', '-q');
    await writeTree(dir, {
      '.gitignore': 'node_modules/\n*.log\n',
      'src/b.ts': '',
      'src/a10.ts': '',
      'src/a2.ts': '',
      'README.md': '',
      'debug.log': '',
      'node_modules/x/index.js': '',
      '.github/ci.yml': '',
    });
    const index = new FileIndex(dir);
    const root = await index.list('');
    expect(root.map((e) => `${e.kind}:${e.path}`)).toEqual(['dir:.github', 'dir:src', 'file:.gitignore', 'file:README.md']);
    const src = await index.list('src');
    expect(src.map((e) => e.name)).toEqual(['a2.ts', 'a10.ts', 'b.ts']);
  });

  it('never lists .git or .loupe, and shows empty folders', async () => {
    git(dir, 'init', '-q');
    await writeTree(dir, { 'a.txt': '', '.loupe/modifications.jsonl': '' });
    await mkdir(path.join(dir, 'empty'));
    const names = (await new FileIndex(dir).list('')).map((e) => e.name);
    expect(names).toEqual(['empty', 'a.txt']);
  });

  it('reports exactly the directories whose listing changed on refresh', async () => {
    await writeTree(dir, { 'a/x.txt': '', 'b/y.txt': '' });
    const index = new FileIndex(dir);
    await index.refresh();
    await writeTree(dir, { 'b/z.txt': '' });
    expect(await index.refresh()).toEqual(['b']);
    await writeTree(dir, { 'c/d/e.txt': '' });
    expect((await index.refresh()).sort()).toEqual(['', 'c', 'c/d']);
  });

  it('reports its file count again whenever a change makes or removes a file, not for an edit', async () => {
    await writeTree(dir, { 'a/x.ts': '', 'b/y.ts': '' });
    const index = new FileIndex(dir);
    const seen: { files: number; done: boolean }[] = [];
    index.onProgress((p) => seen.push(p));
    await index.start();
    expect(seen.at(-1)).toEqual({ files: 2, done: true });
    await writeTree(dir, { 'a/new.ts': '' });
    await index.patch(['a/new.ts']);
    expect(seen.at(-1)).toEqual({ files: 3, done: true });
    const count = seen.length;
    await writeTree(dir, { 'a/new.ts': 'edited' });
    await index.patch(['a/new.ts']);
    expect(seen.length).toBe(count);
    await rm(path.join(dir, 'b'), { recursive: true });
    await index.refresh();
    expect(seen.at(-1)).toEqual({ files: 2, done: true });
  });

  it('hands quick open and the picker the files as they are now, after every kind of change', async () => {
    await writeTree(dir, { 'a/x.ts': '', 'b/y.ts': '' });
    const index = new FileIndex(dir);
    const files = () => [...index.searchable().paths].sort();
    expect(files()).toEqual([]); // nothing indexed yet
    await index.start();
    expect(files()).toEqual(['a/x.ts', 'b/y.ts']);
    expect(index.searchable()).toBe(index.searchable()); // made once while nothing changes
    await writeTree(dir, { 'a/New.ts': '' });
    await index.refreshDirs(['a']);
    expect(files()).toEqual(['a/New.ts', 'a/x.ts', 'b/y.ts']);
    expect(index.searchable().lower[index.searchable().paths.indexOf('a/New.ts')]).toBe('a/new.ts');
    await rm(path.join(dir, 'b'), { recursive: true });
    await index.refresh();
    expect(files()).toEqual(['a/New.ts', 'a/x.ts']);
  });

  it('lists 10,000 files', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 10_000; i++) files[`big/f${i}.txt`] = '';
    await writeTree(dir, files);
    const all = await listFilesWithRg(dir);
    expect(all).toHaveLength(10_000);
    const index = new FileIndex(dir);
    expect(await index.list('big')).toHaveLength(10_000); // direct, or from the index
    await index.start();
    expect(await index.list('big')).toHaveLength(10_000);
    expect(index.fileCount).toBe(10_000);
  });

  it('builds parent links for deep paths', () => {
    const dirs = buildChildren(['a/b/c.txt']);
    expect([...dirs.get('')!]).toEqual([['a', 'dir']]);
    expect([...dirs.get('a/b')!]).toEqual([['c.txt', 'file']]);
  });
});

describe('FileIndex before it is complete', () => {
  it('answers the root from a direct listing while the index is still building', async () => {
    git(dir, 'init', '-q');
    const files: Record<string, string> = { '.gitignore': 'out/\n*.log\n', 'a.ts': '', 'x.log': '', 'out/o.js': '', '.github/ci.yml': '' };
    for (let i = 0; i < 20_000; i++) files[`deep/p${i % 200}/f${i}.ts`] = '';
    await writeTree(dir, files);
    const index = new FileIndex(dir);
    const started = index.start();
    // Which answer is faster is a benchmark's business (bench/scale-tree); here only that a
    // list asked before the index is complete is served directly, and matches the index.
    expect(index.isReady).toBe(false);
    const root = await index.list('');
    expect(root.map((e) => `${e.kind}:${e.path}`)).toEqual(['dir:.github', 'dir:deep', 'file:.gitignore', 'file:a.ts']);
    await started;
    expect(index.takeServedDirect()).toEqual(['']);
    expect(await index.list('')).toEqual(root);
  });

  it('lists a folder directly with the same ignore rules as the index', async () => {
    git(dir, 'init', '-q');
    await writeTree(dir, {
      '.gitignore': 'node_modules/\n*.log\nbuild\n',
      'src/.gitignore': 'gen/\n',
      'src/a.ts': '',
      'src/b.log': '',
      'src/gen/g.ts': '',
      'src/lib/l.ts': '',
      'src/.hidden/h.ts': '',
      'src/.env': '',
      'build/x.js': '',
      'node_modules/m/i.js': '',
      '.loupe/c.json': '',
    });
    const index = new FileIndex(dir);
    for (const d of ['', 'src']) {
      const direct = await listDirect(dir, d);
      await index.refresh();
      expect(direct).toEqual(await index.list(d));
    }
  });

  it('reports progress in increasing counts and ends with done', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 9_000; i++) files[`p${i % 30}/f${i}.txt`] = '';
    await writeTree(dir, files);
    const index = new FileIndex(dir);
    const seen: { files: number; done: boolean }[] = [];
    index.onProgress((p) => seen.push(p));
    await index.start();
    expect(seen.at(-1)).toEqual({ files: 9_000, done: true });
    expect(seen.slice(0, -1).every((p) => !p.done)).toBe(true);
    for (let i = 1; i < seen.length; i++) expect(seen[i].files).toBeGreaterThanOrEqual(seen[i - 1].files);
    expect(seen.length).toBeGreaterThan(1);
  });

  it('stops the build when disposed', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 5_000; i++) files[`p${i % 30}/f${i}.txt`] = '';
    await writeTree(dir, files);
    const index = new FileIndex(dir);
    const build = index.start();
    index.dispose();
    await expect(build).rejects.toMatchObject({ code: 'ABORTED' });
    expect(index.isReady).toBe(false);
  });
});

describe('FileIndex.refreshDirs (open folders, when nothing watches the tree)', () => {
  it('patches only the folders asked for; new and removed subfolders are read directly', async () => {
    git(dir, 'init', '-q');
    await writeTree(dir, { '.gitignore': 'out/\n', 'a/x.ts': '', 'a/gone/g.ts': '', 'b/y.ts': '' });
    const index = new FileIndex(dir);
    await index.start();
    await writeTree(dir, { 'a/new.ts': '', 'a/fresh/deep/d.ts': '', 'a/out/o.js': '', 'b/z.ts': '' });
    await rm(path.join(dir, 'a/gone'), { recursive: true });
    expect(await index.refreshDirs(['a'])).toEqual(['a']);
    expect((await index.list('a')).map((e) => e.path)).toEqual(['a/fresh', 'a/new.ts', 'a/x.ts']);
    expect((await index.list('a/fresh')).map((e) => e.path)).toEqual(['a/fresh/deep']);
    expect(await index.list('a/gone')).toEqual([]);
    // b was not asked for: the index still shows it as it was.
    expect((await index.list('b')).map((e) => e.path)).toEqual(['b/y.ts']);
    expect(await index.refreshDirs(['a'])).toEqual([]);
    // The next full listing is the truth again.
    await index.refresh();
    expect((await index.list('b')).map((e) => e.path)).toEqual(['b/y.ts', 'b/z.ts']);
  });
});

describe('FileIndex.patch', () => {
  it('hands quick open and the picker a file a patch added, and not one it removed', async () => {
    await writeTree(dir, { 'a/x.ts': '', 'a/y.ts': '' });
    const index = new FileIndex(dir);
    await index.refresh();
    expect([...index.searchable().paths].sort()).toEqual(['a/x.ts', 'a/y.ts']);
    await writeTree(dir, { 'a/new.ts': '' });
    await rm(path.join(dir, 'a/y.ts'));
    expect(await index.patch(['a/new.ts', 'a/y.ts'])).not.toBeNull();
    expect([...index.searchable().paths].sort()).toEqual(['a/new.ts', 'a/x.ts']);
    expect(index.searchable().lower).toHaveLength(2);
  });

  it('a file saved in a folder an anchored rule of the root hides stays hidden, every time', async () => {
    // The folder is unknown to the index, so its ancestors are looked up with rg; listed in one
    // run with the folder itself, rg missed the rule now and then (save 23 here, 4 runs in 10
    // from a shell): 80 saves make a pass without the fix unlikely, not impossible.
    git(dir, 'init', '-q');
    await writeTree(dir, { '.ignore': '/x/y/z\n', 'a.txt': '', 'x/y/z/f.ts': '', 'x/y/z/.gitignore': '*.tmp\n' });
    const index = new FileIndex(dir);
    await index.refresh();
    const fresh = index.snapshot();
    expect(fresh).not.toContain('file:x/y/z/f.ts');
    for (let i = 0; i < 80; i++) {
      await writeTree(dir, { 'x/y/z/f.ts': `${i}\n` });
      await index.patch(['x/y/z/f.ts']);
      expect(index.snapshot(), `save ${i}`).toEqual(fresh);
    }
  });
});
