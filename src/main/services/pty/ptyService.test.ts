import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir, until } from '../../../../test/support/tmp';
import { HIGH_WATERMARK_CHARS, PtyService } from './ptyService';

const services: PtyService[] = [];
// Shells get a HOME of their own: the machine's rc files (pyenv init, say) must neither slow these
// tests nor be killed half-way by them (a killed `pyenv rehash` leaves a lock that stalls every
// later interactive shell on the machine for 60 s).
const SHELL_ENV = { HOME: mkdtempSync(path.join(os.tmpdir(), 'loupe-pty-home-')) };
afterEach(() => services.splice(0).forEach((s) => s.dispose()));

function harness(stallResumeMs?: number) {
  const out = new Map<string, string>();
  const exits = new Map<string, number>();
  const svc = new PtyService({
    data: (id, d) => out.set(id, (out.get(id) ?? '') + d),
    exit: (id, code) => exits.set(id, code),
  }, stallResumeMs);
  services.push(svc);
  return { svc, out, exits };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('PtyService', () => {
  it('runs the shell in the workspace and streams output', async () => {
    const { dir, cleanup } = await tempDir();
    const { svc, out } = harness();
    const t = svc.create({ cols: 80, rows: 24, cwd: dir, env: SHELL_ENV });
    svc.input(t.id, 'echo "hello-$((40+2))"; pwd\r');
    await until(() => out.get(t.id)?.includes('hello-42') && out.get(t.id)?.includes(dir));
    await cleanup();
  });

  it('pauses the PTY while output is unacknowledged, and resumes on ack', async () => {
    const { svc, out } = harness();
    const t = svc.create({ cols: 80, rows: 24, cwd: process.cwd(), env: SHELL_ENV });
    svc.input(t.id, 'yes loupe-flood | head -c 20000000; echo DONE-FLOOD\r');
    await until(() => svc.backlog(t.id) > HIGH_WATERMARK_CHARS);
    // Paused: the backlog stops near the watermark instead of growing to 20 MB.
    await new Promise((r) => setTimeout(r, 300));
    const stalled = svc.backlog(t.id);
    await new Promise((r) => setTimeout(r, 300));
    expect(svc.backlog(t.id)).toBe(stalled);
    expect(stalled).toBeLessThan(HIGH_WATERMARK_CHARS + 256 * 1024);
    // Acknowledge everything as it arrives: the command completes.
    const timer = setInterval(() => svc.ack(t.id, svc.backlog(t.id)), 5);
    try {
      await until(() => out.get(t.id)?.includes('DONE-FLOOD\r\n'), 15_000);
    } finally {
      clearInterval(timer);
    }
  });

  it('resumes a paused PTY whose acknowledgements never come, instead of wedging the shell', async () => {
    const { svc, out } = harness(150);
    const t = svc.create({ cols: 80, rows: 24, cwd: process.cwd(), env: SHELL_ENV });
    // No acks at all: only the stall watchdog can get 600 kB through a 100 kB window.
    svc.input(t.id, 'yes | head -c 600000; echo DONE-$((2*3))\r');
    await until(() => out.get(t.id)?.includes('DONE-6'), 15_000);
  });

  it('kills the whole process group when the terminal is closed', async () => {
    const { svc, out, exits } = harness();
    const t = svc.create({ cols: 80, rows: 24, cwd: process.cwd(), env: SHELL_ENV });
    const n = 1000 + Math.floor(Math.random() * 8000);
    svc.input(t.id, `sleep ${n} & echo "BG=$!"; trap "" HUP TERM; sleep ${n + 1}\r`);
    const text = await until(() => out.get(t.id)?.match(/BG=(\d+)/));
    const bg = Number(text[1]);
    expect(alive(bg)).toBe(true);
    svc.kill(t.id);
    await until(() => exits.has(t.id));
    await until(() => !alive(bg), 3000);
    const left = execFileSync('ps', ['-eo', 'pid,pgid,args'], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l.includes(`sleep ${n}`) || l.includes(`sleep ${n + 1}`));
    expect(left.filter((l) => !l.includes('ps -eo'))).toEqual([]);
  });

  it('refuses input to an unknown terminal with a clear error', () => {
    const { svc } = harness();
    expect(() => svc.input('nope', 'x')).toThrow(/No terminal with id nope/);
  });
});
