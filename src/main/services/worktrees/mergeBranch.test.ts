import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { testServices } from '../../../../test/support/services';
import { committedRepo, git, tempDir } from '../../../../test/support/tmp';
import { mergeBranch } from './mergeBranch';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

// Commits need an identity; the machine's git config may have none (git passes these through).
const IDENTITY = { GIT_AUTHOR_NAME: 'Test', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 'Test', GIT_COMMITTER_EMAIL: 't@example.com' };
const saved = Object.fromEntries(Object.keys(IDENTITY).map((k) => [k, process.env[k]]));
beforeAll(() => void Object.assign(process.env, IDENTITY));
afterAll(() => {
  for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k];
  else process.env[k] = v;
});

async function world() {
  const t = await tempDir('loupe-merge-');
  cleanups.push(t.cleanup);
  const main = await committedRepo(path.join(t.dir, 'repo'), { 'a.txt': 'one\ntwo\nthree\n', 'b.txt': 'b\n' });
  const services = testServices(main, { configDir: path.join(t.dir, 'home') });
  cleanups.push(() => services.dispose());
  const { path: wt } = await services.worktrees.create('m');
  const merge = (message: string) => mergeBranch({ root: main, worktree: wt, name: 'm', message, sessionId: 'review-t', setupPaths: ['.env', 'node_modules'], captures: services.captures });
  return { main, wt, merge };
}

describe('merging a worktree branch', () => {
  it('commits the worktree, merges with a merge commit, and records what the merge wrote in main', async () => {
    const { main, wt, merge } = await world();
    await writeFile(path.join(wt, 'a.txt'), 'one\ntwo\nTHREE\n');
    await writeFile(path.join(wt, 'new.txt'), 'new\n');
    await writeFile(path.join(wt, '.env'), 'SECRET=1\n');
    const out = await merge('worktree work');
    // What setup copied (the .env) stays out of the commit.
    expect(git(wt, 'status', '--porcelain')).toBe('?? .env\n');
    expect(out.committed).toMatch(/^[0-9a-f]{40}$/);
    expect(git(main, 'log', '-1', '--format=%s %P').trim()).toMatch(/^Merge loupe\/m \(Loupe worktree m\) [0-9a-f]{40} [0-9a-f]{40}$/);
    expect(await readFile(path.join(main, 'a.txt'), 'utf8')).toBe('one\ntwo\nTHREE\n');
    expect(out.capture.files.map((f) => [f.file, f.change]).sort()).toEqual([
      ['a.txt', 'changed'],
      ['new.txt', 'created'],
    ]);
    const lines = (await readFile(path.join(main, '.loupe/modifications.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.tool)).toEqual(['merge_worktree', 'merge_worktree']);
    expect(git(main, 'status', '--porcelain')).toBe('');
  });

  it('refuses a merge that would conflict, naming the file, and leaves main as it was', async () => {
    const { main, wt, merge } = await world();
    await writeFile(path.join(wt, 'a.txt'), 'one\nworktree\nthree\n');
    await writeFile(path.join(main, 'a.txt'), 'one\nmain\nthree\n');
    git(main, 'commit', '-qam', 'main moved');
    const head = git(main, 'rev-parse', 'HEAD');
    await expect(merge('worktree work')).rejects.toMatchObject({ code: 'APPLY_CONFLICT', details: { conflicts: [{ file: 'a.txt' }] } });
    expect(git(main, 'rev-parse', 'HEAD')).toBe(head);
    expect(await readFile(path.join(main, 'a.txt'), 'utf8')).toBe('one\nmain\nthree\n');
    expect(git(main, 'status', '--porcelain')).toBe('');
  });
});
