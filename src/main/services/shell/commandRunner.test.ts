// Real processes only: what must be gone is checked with `ps`, not with our own bookkeeping.
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, until } from '../../../../test/support/tmp';
import { runCommand } from './commandRunner';
import { formatCommandResult } from './formatResult';

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => ({ dir, cleanup } = await tempDir('loupe-cmd-')));
afterAll(() => cleanup());

/** Live (non-zombie) processes whose command line contains `token`. */
function alive(token: string): string[] {
  return execFileSync('ps', ['-eo', 'pid=,stat=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l.includes(token) && !l.includes('ps -eo'))
    .filter((l) => !/^\s*\d+\s+Z/.test(l));
}

/** A unique sleep duration doubles as a name we can find with ps. */
const token = () => `${1000 + Math.floor(Math.random() * 1e6)}.${Math.floor(Math.random() * 1e3) + 1}`;

describe('runCommand', () => {
  it('runs in the user shell, interleaves stderr and reports the exit code', async () => {
    const r = await runCommand({ command: 'echo out; echo err >&2; exit 3', cwd: dir });
    expect(r.text).toBe('out\nerr\n');
    expect(r).toMatchObject({ exitCode: 3, signal: null, timedOut: false, aborted: false, truncated: false, binary: false });
  });

  it('gives a clean, non-interactive environment and closed stdin', async () => {
    const r = await runCommand({
      command: 'echo "$PAGER $GIT_TERMINAL_PROMPT $GIT_EDITOR $CI [$BASH_ENV]"; cat; echo "stdin:$?"; pwd',
      cwd: dir,
      env: { ...process.env, BASH_ENV: '/tmp/evil-rc', PAGER: 'less' },
    });
    expect(r.text).toBe(`cat 0 true 1 []\nstdin:0\n${dir}\n`);
  });

  it('strips ANSI escapes and collapses carriage-return progress for the model', async () => {
    const r = await runCommand({ command: "printf '\\033[31mred\\033[0m \\033]0;title\\007ok\\n10%%\\r50%%\\r100%%\\n'", cwd: dir });
    expect(r.text).toBe('red ok\n100%\n');
  });

  it('streams output while the command runs', async () => {
    const seen: { text: string; at: number }[] = [];
    const t0 = Date.now();
    const r = await runCommand({ command: 'echo first; sleep 0.5; echo second', cwd: dir, onOutput: (text) => seen.push({ text, at: Date.now() - t0 }) });
    expect(seen.map((s) => s.text).join('')).toBe('first\nsecond\n');
    expect(seen[0].at).toBeLessThan(r.durationMs - 300);
  });

  it('a timed-out command whose grandchild traps SIGTERM: everything is gone within timeout + 3 s', async () => {
    const t = token();
    const t0 = Date.now();
    const r = await runCommand({
      command: `bash -c 'trap "echo ignoring TERM" TERM; sleep ${t} & while :; do wait; done' & bash -c 'trap "" TERM; exec sleep ${t}'`,
      cwd: dir,
      timeoutMs: 1000,
    });
    expect(Date.now() - t0).toBeLessThan(1000 + 3000);
    expect(r.timedOut).toBe(true);
    expect(r.exitCode).toBeNull();
    expect(alive(t)).toEqual([]);
  });

  it('a double fork into a new session that ignores SIGTERM and SIGHUP is gone too', async () => {
    const t = token();
    const t0 = Date.now();
    const r = await runCommand({
      command: `( setsid sh -c 'trap "" TERM HUP; exec sleep ${t}' & ) ; ( ( setsid sleep ${t} & ) & ) ; sleep ${t}`,
      cwd: dir,
      timeoutMs: 1000,
    });
    expect(Date.now() - t0).toBeLessThan(1000 + 3000);
    expect(r.timedOut).toBe(true);
    expect(alive(t)).toEqual([]);
  });

  it('a daemon left behind by a command that exits is killed, and does not hold the call open', async () => {
    const t = token();
    const t0 = Date.now();
    const r = await runCommand({
      command: `( setsid sh -c 'exec >/dev/null 2>&1; trap "" TERM; exec sleep ${t}' & ) ; (setsid sleep ${t} &) ; echo started`,
      cwd: dir,
      timeoutMs: 20_000,
    });
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(r).toMatchObject({ exitCode: 0, timedOut: false, text: 'started\n' });
    expect(alive(t)).toEqual([]);
  });

  it('abort stops the command at once', async () => {
    const t = token();
    const ac = new AbortController();
    const p = runCommand({ command: `sleep ${t}`, cwd: dir, signal: ac.signal });
    await until(() => alive(t).length > 0);
    const t0 = Date.now();
    ac.abort();
    const r = await p;
    expect(Date.now() - t0).toBeLessThan(1500);
    expect(r.aborted).toBe(true);
    expect(alive(t)).toEqual([]);
  });

  it('`yes | head -c 30000000` returns a bounded result quickly, the rest saved to a file', async () => {
    const outputs = path.join(dir, '.loupe', 'outputs');
    const t0 = Date.now();
    const r = await runCommand({ command: 'yes | head -c 30000000', cwd: dir, outputDir: outputs });
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(r.exitCode).toBe(0);
    expect(r.totalBytes).toBe(30_000_000);
    expect(r.truncated).toBe(true);
    expect(r.text.length).toBeLessThan(40_000);
    expect(r.text).toMatch(/^y\ny\n[\s\S]*… \d+ bytes omitted …\n\ny\n[\s\S]*y\n$/);
    expect(r.logFile).toBe(path.join(outputs, `${r.id}.log`));
    expect(statSync(r.logFile!).size).toBe(30_000_000);
    const text = formatCommandResult(r, dir, 120_000);
    expect(text).toContain(`the full output is in .loupe/outputs/${r.id}.log`);
    expect(text).toContain('Exit code: 0');
  });

  it('suppresses binary output and says so', async () => {
    const r = await runCommand({ command: 'head -c 5000 /dev/zero; echo', cwd: dir });
    expect(r.binary).toBe(true);
    expect(formatCommandResult(r, dir, 1000)).toBe('[binary output suppressed: 5001 bytes]\n\nExit code: 0');
  });

  it('reports a signal separately from an exit code', async () => {
    const r = await runCommand({ command: 'kill -KILL $$', cwd: dir });
    expect(r).toMatchObject({ exitCode: null, signal: 'SIGKILL', timedOut: false });
    expect(formatCommandResult(r, dir, 1000)).toContain('Killed by signal SIGKILL.');
  });

  it('refuses a workdir that does not exist', async () => {
    await expect(runCommand({ command: 'true', cwd: path.join(dir, 'nope') })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(existsSync(path.join(dir, 'nope'))).toBe(false);
  });
});
