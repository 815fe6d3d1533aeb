// The spare checkout on real repositories: made after a worktree, taken over by the next one
// (whatever HEAD did meanwhile), never taken when something was written into it, cleaned up after
// an interrupted refill, and gone with the last worktree.
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { committedRepo, git, tempDir } from '../../../../test/support/tmp';
import { SPARE } from './spare';
import { Worktrees } from './worktrees';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(spare = true) {
  const t = await tempDir('loupe-spare-');
  cleanups.push(t.cleanup);
  const root = await committedRepo(path.join(t.dir, 'repo'), { 'a.txt': 'one\n', 'src/b.ts': 'export const b = 1;\n' });
  const reports: unknown[] = [];
  const wts = new Worktrees(root, { spare: () => spare, report: (e) => reports.push(e) });
  cleanups.push(() => wts.dispose());
  const folder = path.join(t.dir, 'repo.loupe-worktrees');
  const listed = () => git(root, 'worktree', 'list', '--porcelain');
  return { root, wts, folder, spare: path.join(folder, SPARE), listed, reports };
}

/** A file written in the main folder and committed there. */
async function commitFile(root: string, rel: string, content: string, message: string): Promise<void> {
  await writeFile(path.join(root, rel), content);
  git(root, 'add', rel);
  git(root, 'commit', '-qm', message);
}

describe('the spare checkout', () => {
  it('is made after a worktree and taken over by the next one, on its own branch at HEAD', async () => {
    const { root, wts, spare, listed, reports } = await setup();
    await wts.create('first');
    await wts.spareSettled();
    expect(existsSync(path.join(spare, 'a.txt'))).toBe(true);
    expect(listed()).toContain(`worktree ${spare}\n`);
    // Not a session's worktree: the list leaves it out, and names it apart with its size.
    expect((await wts.list()).map((w) => w.name)).toEqual(['first']);
    expect(await wts.spareInfo()).toEqual({ path: spare, size_bytes: expect.any(Number) });
    expect((await wts.spareInfo())!.size_bytes).toBeGreaterThan('one\n'.length + 'export const b = 1;\n'.length);

    const made = await wts.create('second');
    expect(made.created).toBe(true);
    // It is the spare, moved: its git admin folder still bears the spare's name.
    expect(await readFile(path.join(made.path, '.git'), 'utf8')).toMatch(/\/\.git\/worktrees\/[-.]spare-\d+-[0-9a-f]+\n$/);
    expect(git(made.path, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('loupe/second');
    expect(git(made.path, 'rev-parse', 'HEAD')).toBe(git(root, 'rev-parse', 'HEAD'));
    expect(git(made.path, 'status', '--porcelain')).toBe('');
    expect(await readFile(path.join(made.path, 'src/b.ts'), 'utf8')).toBe('export const b = 1;\n');
    // The next spare is under way again, and the main folder never changed.
    await wts.spareSettled();
    expect(existsSync(path.join(spare, 'a.txt'))).toBe(true);
    expect(git(root, 'status', '--porcelain')).toBe('');
    expect(reports).toEqual([]);
  });

  it('follows HEAD when the main folder moved on since the spare was made', async () => {
    const { root, wts } = await setup();
    await wts.create('first');
    await wts.spareSettled();
    await writeFile(path.join(root, 'a.txt'), 'two\n');
    await writeFile(path.join(root, 'c.txt'), 'new\n');
    git(root, 'add', '-A');
    git(root, 'commit', '-qm', 'later');
    const made = await wts.create('later');
    expect(git(made.path, 'rev-parse', 'HEAD')).toBe(git(root, 'rev-parse', 'HEAD'));
    expect(await readFile(path.join(made.path, 'a.txt'), 'utf8')).toBe('two\n');
    expect(await readFile(path.join(made.path, 'c.txt'), 'utf8')).toBe('new\n');
    expect(git(made.path, 'status', '--porcelain')).toBe('');
  });

  it('resumes an existing branch from the spare, its commits kept', async () => {
    const { wts } = await setup();
    const { path: p } = await wts.create('kept');
    git(p, 'commit', '-q', '--allow-empty', '-m', 'work on the branch');
    await wts.spareSettled();
    await rm(p, { recursive: true, force: true });
    const again = await wts.create('kept');
    expect(again).toMatchObject({ path: p, created: true });
    expect(git(p, 'log', '-1', '--format=%s').trim()).toBe('work on the branch');
    expect(git(p, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('loupe/kept');
  });

  it.each([
    ['a tracked file changed', 'a.txt'],
    ['a file added', 'planted.txt'],
    ['an ignored file added', 'node_modules/x.js'],
  ])('is never taken with %s in it: removed, and the worktree made afresh', async (_what, rel) => {
    const { root, wts, spare } = await setup();
    await commitFile(root, '.gitignore', 'node_modules/\n', 'ignore');
    await wts.create('first');
    await wts.spareSettled();
    await mkdir(path.dirname(path.join(spare, rel)), { recursive: true });
    await writeFile(path.join(spare, rel), 'planted\n');
    const made = await wts.create('clean');
    expect(git(made.path, 'status', '--porcelain', '--ignored')).toBe('');
    expect(await readFile(path.join(made.path, 'a.txt'), 'utf8')).toBe('one\n');
    expect(existsSync(path.join(made.path, rel)) && rel !== 'a.txt').toBe(false);
  });

  it('removes what an interrupted refill left, whoever made it, unless its maker still runs', async () => {
    const { root, wts, folder, listed } = await setup();
    await mkdir(folder, { recursive: true });
    // A killed Loupe: its half-made checkout registered and locked, and a folder git forgot.
    const dead = path.join(folder, '.spare-999999999-dead');
    git(root, 'worktree', 'add', '-q', '--detach', '--lock', '--', dead, 'HEAD');
    await mkdir(path.join(folder, '.spare-999999998-gone', 'src'), { recursive: true });
    // Another Loupe making its own right now (this test's parent process stands in for it).
    const busy = path.join(folder, `.spare-${process.ppid}-busy`);
    await mkdir(busy);
    await wts.create('w');
    await wts.spareSettled();
    expect((await readdir(folder)).sort()).toEqual([SPARE, `.spare-${process.ppid}-busy`, 'w'].sort());
    expect(listed()).not.toContain('.spare-999999999-dead');
  });

  it('stops a refill on dispose, and the next one finishes the job', async () => {
    const { root, wts, folder } = await setup();
    await wts.create('w');
    await wts.dispose();
    const after = new Worktrees(root, { spare: () => true });
    cleanups.push(() => after.dispose());
    await after.create('v');
    await after.spareSettled();
    expect((await readdir(folder)).sort()).toEqual([SPARE, 'v', 'w']);
  });

  it('goes with the last worktree discarded', async () => {
    const { wts, folder, listed } = await setup();
    await wts.create('a');
    await wts.create('b');
    await wts.spareSettled();
    await wts.discard('a', (await wts.report('a')).digest);
    expect(await readdir(folder)).toContain(SPARE);
    await wts.discard('b', (await wts.report('b')).digest);
    expect(await readdir(folder)).toEqual([]);
    expect(listed().match(/^worktree /gm)).toHaveLength(1);
  });

  it('is not made when the setting is off', async () => {
    const { wts, folder } = await setup(false);
    await wts.create('a');
    await wts.spareSettled();
    expect(await readdir(folder)).toEqual(['a']);
  });
});

describe('two worktrees made at once', () => {
  it('one takes the spare, the other is made afresh; both are right', async () => {
    const { root, wts } = await setup();
    await wts.create('first');
    await wts.spareSettled();
    const [a, b] = await Promise.all([wts.create('left'), wts.create('right')]);
    for (const [made, name] of [[a, 'left'], [b, 'right']] as const) {
      expect(git(made.path, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe(`loupe/${name}`);
      expect(git(made.path, 'rev-parse', 'HEAD')).toBe(git(root, 'rev-parse', 'HEAD'));
      expect(git(made.path, 'status', '--porcelain')).toBe('');
    }
  });
});

describe('a repository with submodules', () => {
  it('gets no spare: git could not move it into place', async () => {
    const { root, wts, folder } = await setup();
    await commitFile(root, '.gitmodules', '', 'modules');
    await wts.create('a');
    await wts.spareSettled();
    expect(await readdir(folder)).toEqual(['a']);
  });
});
