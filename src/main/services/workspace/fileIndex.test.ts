import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git, tempDir, writeTree } from '../../../../test/support/tmp';
import { buildChildren, FileIndex, listFilesWithRg } from './fileIndex';

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

  it('lists 10,000 files', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 10_000; i++) files[`big/f${i}.txt`] = '';
    await writeTree(dir, files);
    const all = await listFilesWithRg(dir);
    expect(all).toHaveLength(10_000);
    const index = new FileIndex(dir);
    expect(await index.list('big')).toHaveLength(10_000);
    expect(index.fileCount).toBe(10_000);
  });

  it('builds parent links for deep paths', () => {
    const dirs = buildChildren(['a/b/c.txt']);
    expect([...dirs.get('')!]).toEqual([['a', 'dir']]);
    expect([...dirs.get('a/b')!]).toEqual([['c.txt', 'file']]);
  });
});
