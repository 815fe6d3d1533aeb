// A session in a worktree runs its commands in the OS sandbox with that worktree writable, plus
// the git data a commit there needs, and nothing of the main folder: a command that tries to
// write the main folder is blocked, the same command aimed at the worktree works.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createToolContext } from '../../src/main/agent/tools/context';
import { createToolRegistry } from '../../src/main/agent/tools/registry';
import { probeSandbox } from '../../src/main/services/sandbox/probe';
import { committedRepo, git, tempDir } from '../support/tmp';
import { testServices } from '../support/services';

const availability = await probeSandbox();
if (!availability.available) console.warn(`worktree sandbox test skipped: ${availability.reason}`);
const d = availability.available ? describe : describe.skip;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

d('a worktree session in the sandbox', () => {
  it('cannot write the main folder, and can write and commit in its worktree', async () => {
    const t = await tempDir('loupe-wt-sbx-');
    cleanups.push(t.cleanup);
    const main = await committedRepo(path.join(t.dir, 'repo'), { 'a.txt': 'main\n', 'src/x.ts': 'x\n' });
    const configDir = path.join(t.dir, 'home');
    const mainServices = testServices(main, { configDir });
    cleanups.push(() => mainServices.dispose());
    const wt = await mainServices.worktrees.create('s1');
    // The worktree's own services, composed as for any folder: default settings, sandbox on.
    const services = testServices(wt.path, { configDir });
    cleanups.push(() => services.dispose());
    const ctx = createToolContext(services, { corrector: null });
    const registry = createToolRegistry();
    const bash = (command: string) => registry.call('bash', { command, description: 'try' }, ctx);

    const attempts = [
      `printf pwned > ${main}/a.txt`,
      `printf pwned > ${main}/new.txt`,
      `rm -f ${main}/src/x.ts`,
      `cd ${main} && printf pwned >> a.txt`,
      `mv ${main}/a.txt ${main}/b.txt`,
      `mkdir ${main}/dir`,
      `printf pwned > ../../repo/a.txt`,
    ];
    for (const command of attempts) {
      const r = await bash(command);
      expect(r.ok, `${command}: ${r.output}`).toBe(false);
      expect(r.error?.code, command).toBe('SANDBOX_BLOCKED');
    }
    expect(git(main, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    expect(await readFile(path.join(main, 'a.txt'), 'utf8')).toBe('main\n');

    // The control: the same kind of write in the worktree works, and so does a commit there.
    const ok = await bash('printf mine > a.txt && git add a.txt && git -c user.name=t -c user.email=t@example.com commit -qm mine');
    expect(ok.ok, ok.output).toBe(true);
    expect(git(wt.path, 'log', '-1', '--format=%s').trim()).toBe('mine');
    expect(await readFile(path.join(wt.path, 'a.txt'), 'utf8')).toBe('mine');
    expect(await readFile(path.join(main, 'a.txt'), 'utf8')).toBe('main\n');
  });
});
