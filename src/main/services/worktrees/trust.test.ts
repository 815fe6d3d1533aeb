import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { committedRepo, git, tempDir } from '../../../../test/support/tmp';
import { readTrustState, trustCurrentConfig } from '../permissions/trust';
import { openUserSettings, openWorktrees } from '../../workspace/compose';
import { carryTrust } from './trust';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

const CONFIG = JSON.stringify({ permissions: [{ kind: 'bash', pattern: 'npm test', action: 'allow' }] });

it("carries the main folder's trust to a worktree with the same config bytes, and only then", async () => {
  const t = await tempDir('loupe-wt-trust-');
  cleanups.push(t.cleanup);
  const main = await committedRepo(path.join(t.dir, 'repo'), { '.loupe/config.json': CONFIG, 'a.txt': 'a\n' });
  const user = openUserSettings(path.join(t.dir, 'home'));
  const wts = openWorktrees(main, user);
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
