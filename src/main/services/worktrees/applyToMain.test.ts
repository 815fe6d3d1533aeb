// Bringing a worktree's work back to the main folder (a patch, or a merge) and the trust a
// worktree inherits: one file, so the suite pays for loading the composition root once.
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { testServices } from '../../../../test/support/services';
import { committedRepo, git, tempDir } from '../../../../test/support/tmp';
import type { WorkspaceServices } from '../../workspace/compose';
import { readTrustState, trustCurrentConfig } from '../permissions/trust';
import { openUserSettings, openWorktrees } from '../../workspace/compose';
import { applyPlan, planApply, planDiff, selectFiles } from './applyToMain';
import { mergeBranch } from './mergeBranch';
import { carryTrust } from './trust';

const cleanups: (() => Promise<void>)[] = [];
// Last in, first out: services (and the spare checkout they may be making) stop before their folder goes.
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const LINES = 'one\ntwo\nthree\nfour\nfive\n';

async function world(): Promise<{ main: string; wt: string; services: WorkspaceServices }> {
  const t = await tempDir('loupe-apply-');
  cleanups.push(t.cleanup);
  const main = await committedRepo(path.join(t.dir, 'repo'), { 'a.txt': LINES, 'src/b.ts': 'b\n', 'keep.txt': 'k\n' });
  const services = testServices(main, { configDir: path.join(t.dir, 'home') });
  cleanups.push(() => services.dispose());
  const { path: wt } = await services.worktrees.create('w');
  return { main, wt, services };
}

const logLines = async (root: string) => ((await readFile(path.join(root, '.loupe/modifications.jsonl'), 'utf8').catch(() => '')) || '').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

describe('applying a worktree to the main folder', () => {
  it("lands the worktree's edits, new files, deletions and commits as one group of the main folder's log", async () => {
    const { main, wt, services } = await world();
    await writeFile(path.join(wt, 'a.txt'), LINES.replace('three', 'THREE'));
    await writeFile(path.join(wt, 'new.txt'), 'new\n');
    await rm(path.join(wt, 'src/b.ts'));
    await writeFile(path.join(wt, 'keep.txt'), 'committed\n');
    git(wt, 'commit', '-qam', 'in the worktree');
    // The main folder changed another part of a.txt meanwhile: merged, not overwritten.
    await writeFile(path.join(main, 'a.txt'), LINES.replace('one', 'ONE'));
    const plan = await planApply(main, wt, 'w');
    expect(plan.conflicts).toEqual([]);
    expect(plan.files.map((f) => [f.file, f.operation, f.merged])).toEqual([
      ['a.txt', 'overwrite', true],
      ['keep.txt', 'overwrite', false],
      ['new.txt', 'create', false],
      ['src/b.ts', 'delete_file', false],
    ]);
    const out = await applyPlan(services.modlog, plan, { sessionId: 'review-t' });
    expect(await readFile(path.join(main, 'a.txt'), 'utf8')).toBe('ONE\ntwo\nTHREE\nfour\nfive\n');
    expect(await readFile(path.join(main, 'new.txt'), 'utf8')).toBe('new\n');
    expect(await readFile(path.join(main, 'keep.txt'), 'utf8')).toBe('committed\n');
    expect(existsSync(path.join(main, 'src/b.ts'))).toBe(false);
    const lines = await logLines(main);
    expect(lines).toHaveLength(4);
    for (const l of lines) expect(l).toMatchObject({ tool: 'apply_worktree', group_id: out.group_id, group_kind: 'worktree', git_staged: true });
    expect(git(main, 'diff', '--cached', '--name-only').trim().split('\n').sort()).toEqual(['a.txt', 'keep.txt', 'new.txt', 'src/b.ts']);
    // Nothing is left to apply, and the worktree kept its own state.
    const after = await planApply(main, wt, 'w');
    expect(after.files).toEqual([]);
    // What the worktree changed is still named, as already in the main folder, with its lines against the base.
    expect(after.applied.map((a) => a.file)).toEqual(['a.txt', 'keep.txt', 'new.txt', 'src/b.ts']);
    expect(after.applied.find((a) => a.file === 'new.txt')).toEqual({ file: 'new.txt', added: 1, removed: 0 });
    expect(await readFile(path.join(wt, 'a.txt'), 'utf8')).toBe(LINES.replace('three', 'THREE'));
  });

  it('refuses over conflicting edits, names each conflict, and changes nothing', async () => {
    const { main, wt, services } = await world();
    await writeFile(path.join(wt, 'a.txt'), LINES.replace('two', 'worktree'));
    await rm(path.join(wt, 'keep.txt'));
    await writeFile(path.join(wt, 'both.txt'), 'theirs\n');
    await writeFile(path.join(wt, 'fine.txt'), 'fine\n');
    await writeFile(path.join(main, 'a.txt'), LINES.replace('two', 'main'));
    await writeFile(path.join(main, 'keep.txt'), 'edited here\n');
    await writeFile(path.join(main, 'both.txt'), 'ours\n');
    const plan = await planApply(main, wt, 'w');
    expect(plan.conflicts).toEqual([
      { file: 'a.txt', why: 'changed in both: 1 conflicting region' },
      { file: 'both.txt', why: 'created in both with different contents' },
      { file: 'keep.txt', why: 'deleted in the worktree, changed in the main folder' },
    ]);
    const err = await applyPlan(services.modlog, plan, { sessionId: 'review-t' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'APPLY_CONFLICT', details: { conflicts: plan.conflicts } });
    expect(existsSync(path.join(main, 'fine.txt'))).toBe(false);
    expect(await readFile(path.join(main, 'a.txt'), 'utf8')).toBe(LINES.replace('two', 'main'));
    expect(await logLines(main)).toEqual([]);
    // Reviewed file by file: the one that does not conflict can be brought back alone.
    const chosen = selectFiles(plan, ['fine.txt']);
    expect(planDiff(chosen)).toBe('diff --git a/fine.txt b/fine.txt\n--- /dev/null\n+++ b/fine.txt\n@@ -0,0 +1,1 @@\n+fine\n');
    await applyPlan(services.modlog, chosen, { sessionId: 'review-t' });
    expect(await readFile(path.join(main, 'fine.txt'), 'utf8')).toBe('fine\n');
    expect(await readFile(path.join(main, 'a.txt'), 'utf8')).toBe(LINES.replace('two', 'main'));
    expect(() => selectFiles(plan, ['nope.txt'])).toThrow(/no change to nope\.txt/);
  });

  it('refuses when the main folder changes between the plan and the write', async () => {
    const { main, wt, services } = await world();
    await writeFile(path.join(wt, 'a.txt'), 'worktree\n');
    const plan = await planApply(main, wt, 'w');
    await writeFile(path.join(main, 'a.txt'), 'typed meanwhile\n');
    await expect(applyPlan(services.modlog, plan, { sessionId: 'review-t' })).rejects.toMatchObject({ code: 'FILE_CHANGED_SINCE_READ' });
    expect(await readFile(path.join(main, 'a.txt'), 'utf8')).toBe('typed meanwhile\n');
  });
});

// Commits need an identity; the machine's git config may have none (git passes these through).
const IDENTITY = { GIT_AUTHOR_NAME: 'Test', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 'Test', GIT_COMMITTER_EMAIL: 't@example.com' };
const saved = Object.fromEntries(Object.keys(IDENTITY).map((k) => [k, process.env[k]]));
beforeAll(() => void Object.assign(process.env, IDENTITY));
afterAll(() => {
  for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k];
  else process.env[k] = v;
});

async function mergeWorld() {
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
    const { main, wt, merge } = await mergeWorld();
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
    const { main, wt, merge } = await mergeWorld();
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

const CONFIG = JSON.stringify({ permissions: [{ kind: 'bash', pattern: 'npm test', action: 'allow' }] });

describe('trust in a worktree', () => {
  it("carries the main folder's trust to a worktree with the same config bytes, and only then", async () => {
    const t = await tempDir('loupe-wt-trust-');
    cleanups.push(t.cleanup);
    const main = await committedRepo(path.join(t.dir, 'repo'), { '.loupe/config.json': CONFIG, 'a.txt': 'a\n' });
    const user = openUserSettings(path.join(t.dir, 'home'));
    const wts = openWorktrees(main, user);
    cleanups.push(() => wts.dispose());
    const a = await wts.create('a');
    // Untrusted main: nothing to carry.
    expect(await carryTrust(main, a.path, user)).toBe(false);
    await trustCurrentConfig(main, user);
    expect(await carryTrust(main, a.path, user)).toBe(true);
    expect((await readTrustState(a.path, user)).trusted).toBe(true);
    // A worktree whose config differs (another commit) gets none of it.
    const b = await wts.create('b');
    await writeFile(path.join(b.path, '.loupe/config.json'), JSON.stringify({ permissions: [{ kind: 'bash', pattern: '*', action: 'allow' }] }));
    git(b.path, 'commit', '-qam', 'allow everything');
    expect(await carryTrust(main, b.path, user)).toBe(false);
    expect((await readTrustState(b.path, user)).trusted).toBe(false);
  });
});
