import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { committedRepo, git, tempDir } from '../../../../test/support/tmp';
import { planApply } from './applyToMain';
import { Worktrees } from './worktrees';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function repo(): Promise<{ base: string; root: string }> {
  const t = await tempDir('loupe-wt-');
  cleanups.push(t.cleanup);
  const root = await committedRepo(path.join(t.dir, 'repo'), { 'a.txt': 'one\n', 'src/b.ts': 'export const b = 1;\n' });
  return { base: t.dir, root };
}

describe('Worktrees', () => {
  it('makes a worktree of HEAD on loupe/<name> beside the repository, finds it again, lists it with size and age', async () => {
    const { base, root } = await repo();
    const wts = new Worktrees(root);
    const made = await wts.create('fix-a');
    expect(made).toMatchObject({ path: path.join(base, 'repo.loupe-worktrees', 'fix-a'), branch: 'loupe/fix-a', created: true });
    expect(await readFile(path.join(made.path, 'a.txt'), 'utf8')).toBe('one\n');
    expect(git(made.path, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('loupe/fix-a');
    expect(git(made.path, 'rev-parse', 'HEAD')).toBe(git(root, 'rev-parse', 'HEAD'));
    expect(await wts.create('fix-a')).toMatchObject({ path: made.path, created: false });
    const [info] = await wts.list();
    expect(info).toMatchObject({ name: 'fix-a', branch: 'loupe/fix-a', missing: false });
    expect(info!.size_bytes).toBeGreaterThan(20);
    expect(Date.now() - info!.created_ms!).toBeLessThan(10 * 60_000);
    // The main folder did not change: same branch, nothing to commit.
    expect(git(root, 'status', '--porcelain')).toBe('');
  });

  it('refuses a worktrees folder inside the workspace and a name that is not one', async () => {
    const { root } = await repo();
    await expect(new Worktrees(root, { folder: () => path.join(root, 'wts') }).create('x')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/inside the workspace/) });
    await expect(new Worktrees(root).create('--force')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(new Worktrees(path.join(root, 'src')).create('x')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/top folder/) });
    expect(git(root, 'worktree', 'list').trim().split('\n')).toHaveLength(1);
  });

  it('uses the configured folder, one subfolder per repository', async () => {
    const { base, root } = await repo();
    const made = await new Worktrees(root, { folder: () => path.join(base, 'mine') }).create('exp');
    expect(made.path).toBe(path.join(base, 'mine', 'repo', 'exp'));
  });

  it('notices a worktree deleted by hand, prunes it, and discards its branch', async () => {
    const { root } = await repo();
    const wts = new Worktrees(root);
    const { path: p } = await wts.create('gone');
    git(p, 'commit', '-q', '--allow-empty', '-m', 'work kept on the branch');
    await rm(p, { recursive: true, force: true });
    expect(await wts.list()).toMatchObject([{ name: 'gone', missing: true, size_bytes: null }]);
    // Asked for again (a session resuming), it is checked out anew from its branch, commits kept.
    expect(await wts.create('gone')).toMatchObject({ path: p, created: true });
    expect(git(p, 'log', '-1', '--format=%s').trim()).toBe('work kept on the branch');
    await rm(p, { recursive: true, force: true });
    expect(await wts.prune()).toEqual(['gone']);
    expect(git(root, 'worktree', 'list').trim().split('\n')).toHaveLength(1);
    // The branch is still there, still Loupe's, and goes through the same safe removal.
    const r = await wts.report('gone');
    expect(r).toMatchObject({ missing: true, uncommitted: [] });
    expect(r.commits).toEqual([expect.stringMatching(/ work kept on the branch$/)]);
    await wts.discard('gone', r.digest);
    expect(git(root, 'branch', '--list', 'loupe/*').trim()).toBe('');
    expect(await wts.list()).toEqual([]);
  });

  it('discard first reports uncommitted changes and commits the main folder lacks; a stale or missing confirmation removes nothing', async () => {
    const { root } = await repo();
    const wts = new Worktrees(root);
    const { path: p } = await wts.create('work');
    await writeFile(path.join(p, 'a.txt'), 'changed\n');
    await writeFile(path.join(p, 'new.txt'), 'new\n');
    const r = await wts.report('work');
    expect(r.uncommitted.sort()).toEqual([' M a.txt', '?? new.txt']);
    expect(r.commits).toEqual([]);
    // Declined: the report alone changes nothing.
    expect(existsSync(path.join(p, 'new.txt'))).toBe(true);
    // A commit after the report: the confirmation no longer holds.
    git(p, 'add', 'new.txt');
    git(p, 'commit', '-qm', 'keep new');
    await expect(wts.discard('work', r.digest)).rejects.toMatchObject({ code: 'WORKTREE_CHANGED' });
    expect(existsSync(path.join(p, 'a.txt'))).toBe(true);
    const again = await wts.report('work');
    expect(again.uncommitted).toEqual([' M a.txt']);
    expect(again.commits).toHaveLength(1);
    expect(again.commits[0]).toMatch(/^[0-9a-f]{40} keep new$/);
    await wts.discard('work', again.digest);
    expect(existsSync(p)).toBe(false);
    expect(git(root, 'branch', '--list', 'loupe/*').trim()).toBe('');
    await expect(wts.report('work')).rejects.toMatchObject({ code: 'WORKTREE_NOT_FOUND' });
  });
});

describe('Worktrees setup from the settings', () => {
  it('copies listed untracked files and links listed folders; skips links, escapes and what the checkout has', async () => {
    const { base, root } = await repo();
    await writeFile(path.join(root, '.env'), 'SECRET=1\n');
    await mkdir(path.join(root, 'node_modules', 'dep'), { recursive: true });
    await writeFile(path.join(root, 'node_modules', 'dep', 'index.js'), 'x\n');
    await writeFile(path.join(base, 'outside.txt'), 'not yours\n');
    await symlink(path.join(base, 'outside.txt'), path.join(root, 'bait.env'));
    // The repository ships a link out; setup must not write through it.
    await mkdir(path.join(base, 'out'));
    await symlink(path.join(base, 'out'), path.join(root, 'vendor'));
    git(root, 'add', 'vendor');
    git(root, 'commit', '-q', '-m', 'vendor link');
    await mkdir(path.join(root, 'vendor-real'));
    const setup = { copy: ['.env', 'bait.env', 'a.txt', 'missing.env', 'vendor/.env'], link: ['node_modules', '../outside', 'vendor/node_modules'] };
    const wts = new Worktrees(root, { setup: () => setup });
    const made = await wts.create('s');
    expect(made.prepared).toEqual({
      copied: ['.env'],
      linked: ['node_modules'],
      skipped: [
        { path: 'bait.env', why: 'a link or special file in the main folder' },
        { path: 'a.txt', why: 'the checkout has it already' },
        { path: 'missing.env', why: 'not in the main folder' },
        { path: 'vendor/.env', why: 'a link of the checkout is on the way' },
        { path: '../outside', why: 'not a path inside the folder' },
        { path: 'vendor/node_modules', why: 'a link of the checkout is on the way' },
      ],
    });
    expect(await readdir(path.join(base, 'out'))).toEqual([]);
    expect(await readFile(path.join(made.path, '.env'), 'utf8')).toBe('SECRET=1\n');
    expect(await readFile(path.join(made.path, 'node_modules', 'dep', 'index.js'), 'utf8')).toBe('x\n');
    expect(existsSync(path.join(made.path, 'bait.env'))).toBe(false);
    // The link is setup, not work: the discard report leaves it out (the copied .env is the worktree's own).
    expect((await wts.report('s')).uncommitted.sort()).toEqual(['?? .env']);
    // Nor is it carried back to the main folder (the copied .env is the same bytes there: nothing to do).
    expect(await planApply(root, made.path, 's', { linked: wts.linked() })).toMatchObject({ files: [], conflicts: [] });
    expect((await planApply(root, made.path, 's')).conflicts).toEqual([{ file: 'node_modules', why: 'a link or special file on one side; bring it over by hand' }]);
  });
});
