// What the runner adds for speed reaches git, overrides the repository, and names no program.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { git, tempDir } from '../../../../test/support/tmp';
import { NEUTRAL_CONFIG, PERFORMANCE_CONFIG } from './gitEnv';
import { fsmonitorCommand, GitRunner } from './gitRunner';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir('loupe-gitcfg-')));
afterEach(() => cleanup());

/** Keys through which git starts a program or a hook (git-config(1)); none may be switched on for speed. */
const RUNS_PROGRAMS = /fsmonitor|hook|pager|editor|askpass|sshcommand|helper|program|command|external|textconv|driver|filter|gpg|proxy|alias|credential|signing|process|smudge|clean/i;

it('speed settings name no program and never touch a neutralised one', () => {
  const neutral = new Set(NEUTRAL_CONFIG.map(([k]) => k.toLowerCase()));
  for (const [key] of PERFORMANCE_CONFIG) {
    expect(key, key).not.toMatch(RUNS_PROGRAMS);
    expect(neutral.has(key.toLowerCase()), key).toBe(false);
  }
  expect(PERFORMANCE_CONFIG).toContainEqual(['core.untrackedCache', 'true']);
});

it('the untracked cache is on in every call, over the repository, while fsmonitor stays off', async () => {
  git(dir, 'init', '-q');
  git(dir, 'config', 'core.untrackedCache', 'false');
  git(dir, 'config', 'status.showUntrackedFiles', 'no');
  git(dir, 'config', 'core.fsmonitor', path.join(dir, 'monitor.sh'));
  const runner = new GitRunner(dir);
  const get = async (key: string) => (await runner.run(['config', '--get', key])).trim();
  expect(await get('core.untrackedCache')).toBe('true');
  expect(await get('status.showUntrackedFiles')).toBe('all');
  expect(await get('core.fsmonitor')).toBe('false');
  expect(await get('core.hooksPath')).toBe('/dev/null');
  // Plain git sees the repository's own values: the runner's are its alone.
  expect(git(dir, 'config', '--get', 'core.untrackedCache').trim()).toBe('false');
});

it("a call given Loupe's fsmonitor answer runs `cat` of that file only, however its path is spelled", async () => {
  git(dir, 'init', '-q');
  git(dir, 'config', 'core.fsmonitor', path.join(dir, 'monitor.sh'));
  const runner = new GitRunner(dir);
  for (const name of ["it's here", 'a b $(touch pwned) `x` "q"', 'plain']) {
    const file = path.join(dir, name, 'answer');
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, 'token\0a.txt\0');
    expect((await runner.run(['config', '--get', 'core.fsmonitor'], { fsmonitor: file })).trim()).toBe(fsmonitorCommand(file));
    // git runs the hook through the shell, as here: it prints the file, whatever the arguments.
    const out = execFileSync('sh', ['-c', `${fsmonitorCommand(file)} "$@"`, 'hook', '2', 'last-token'], { cwd: dir });
    expect(out.toString()).toBe('token\0a.txt\0');
  }
  expect(existsSync(path.join(dir, 'pwned'))).toBe(false);
  // Without it, every call keeps fsmonitor off.
  expect((await runner.run(['config', '--get', 'core.fsmonitor'])).trim()).toBe('false');
});
