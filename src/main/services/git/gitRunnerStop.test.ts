// A git stopped by its caller (an abort, its time bound) takes the processes it started along:
// `worktree add` checks out through a child git of its own, which had written on into the folder
// its caller was already removing (ENOTEMPTY).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { git, tempDir, until } from '../../../../test/support/tmp';
import { GitRunner } from './gitRunner';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir('loupe-git-stop-'));
  git(dir, 'init', '-q');
});
afterEach(() => cleanup());

/** Alive and not a zombie (a zombie is dead, waiting only to be reaped). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]$/.test(stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3));
  } catch {
    return false;
  }
}

/** A git whose alias runs a shell that writes its pid, then waits: a child of git, as `worktree add`'s checkout is. */
function holdingCall(pidFile: string): string[] {
  return ['-c', `alias.hold=!sh -c 'echo $$ > "${pidFile}"; exec sleep 30'`, 'hold'];
}

for (const how of ['aborted', 'timed out'] as const) {
  it.runIf(process.platform === 'linux')(`a git ${how} leaves none of its children running`, async () => {
    const pidFile = path.join(dir, `child-${how.replace(' ', '-')}.pid`);
    const runner = new GitRunner(dir);
    const ac = new AbortController();
    const call = runner.run(holdingCall(pidFile), how === 'aborted' ? { signal: ac.signal } : { timeoutMs: 1_000 });
    const pid = await until(() => (existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) || null : null));
    expect(alive(pid)).toBe(true);
    ac.abort();
    await expect(call).rejects.toMatchObject({ code: how === 'aborted' ? 'ABORTED' : expect.any(String) });
    // Gone by the time the call has answered: nothing of it writes on.
    expect(alive(pid)).toBe(false);
  });
}
