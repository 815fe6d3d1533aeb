import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { testServices } from '../../../../test/support/services';
import { committedRepo, git, tempDir } from '../../../../test/support/tmp';
import type { WorkspaceServices } from '../../workspace/compose';
import { applyPlan, planApply, planDiff, selectFiles } from './applyToMain';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
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
    expect((await planApply(main, wt, 'w')).files).toEqual([]);
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
