// A rename a command made goes back whole or not at all (the model-based undo test found this):
// a session renames a file away, another session's command puts its own work at the old path,
// the first renames that away again; undoing the first session's request skips the old path
// (the other session's file stands in the way of bringing the original back) and must then
// leave the new path too, or the other session's work leaves the tree.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { planUndo, undoRequests } from '../src/main/services/modlog/groupRollback';
import type { WorkspaceServices } from '../src/main/workspace/compose';
import { readTree } from './support/undoWorld';
import { testServices } from './support/services';
import { git, tempDir, writeTree } from './support/tmp';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function world(repo: boolean): Promise<{ root: string; services: WorkspaceServices }> {
  const { dir, cleanup } = await tempDir('loupe-undo-renames-');
  const root = path.join(dir, 'ws');
  await writeTree(root, { 'a.txt': 'seed a\n', 'src/d.bin': 'seed\0d\n' });
  if (repo) {
    git(root, 'init', '-q');
    git(root, 'add', '-A');
    git(root, 'commit', '-qm', 'seed');
  }
  const services = testServices(root, { configDir: path.join(dir, 'user') });
  cleanups.push(async () => {
    await services.dispose();
    await cleanup();
  });
  return { root, services };
}

const command = (services: WorkspaceServices, sessionId: string, correlationId: string, run: () => Promise<void>) =>
  services.captures.around({ tool: 'bash', command: 'mv', sessionId, correlationId }, run);

for (const repo of [false, true]) {
  it(`undo keeps both sides of a rename when one side conflicts (${repo ? 'git repository' : 'plain folder'})`, async () => {
    const { root, services } = await world(repo);
    const at = (rel: string) => path.join(root, rel);
    await command(services, 's1', 'req-s1', () => rename(at('src/d.bin'), at('g.bin')));
    await command(services, 's2', 'req-s2', async () => {
      await writeFile(at('a.txt'), 'seed a\ns2 work\n');
      await rename(at('a.txt'), at('src/d.bin'));
      await writeFile(at('a.txt'), 's2 again\n');
    });
    await command(services, 's1', 'req-s1', async () => {
      await mkdir(at('src/deep'), { recursive: true });
      await rename(at('src/d.bin'), at('src/deep/e.txt'));
    });
    const before = await readTree(root);

    const plan = await planUndo(services.modlog, { sessionId: 's1', correlations: ['req-s1'] });
    const held = Object.fromEntries(plan.files.map((f) => [f.file, f.conflict?.why ?? null]));
    expect(held['src/d.bin']).toBeTruthy();
    expect(held['src/deep/e.txt']).toMatch(/renamed or moved together with src\/d\.bin/);
    expect(held['g.bin']).toMatch(/renamed or moved together with src\/d\.bin/);

    // Skip: nothing of the held renames changes, so nothing is lost.
    await expect(undoRequests(services.modlog, { sessionId: 's1', correlations: ['req-s1'] }, { onConflict: 'skip', tool: 'undo' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(await readTree(root)).toEqual(before);
    expect(await readFile(at('src/deep/e.txt'), 'utf8')).toBe('seed a\ns2 work\n');
  });
}
