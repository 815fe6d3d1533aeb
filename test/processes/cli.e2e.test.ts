// Background processes through the built CLI: `loupe run` lists what it started and stops it at
// exit unless --keep-processes (then it stays until Ctrl-C); `loupe mcp` stops them when its
// client goes away. A process counts as left behind while its command line is in the table.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { call } from '../agent/agentHarness';
import { BIN, runLoupe, useCliFixture } from '../support/cli';
import { git, until } from '../support/tmp';

const fx = useCliFixture('loupe-proc-cli-');
let n = 0;

async function repo(): Promise<string> {
  const dir = path.join(fx.sandbox, `repo${++n}`);
  await mkdir(dir, { recursive: true });
  git(dir, 'init', '-q');
  return dir;
}

const env = () => ({ LOUPE_HOME: path.join(fx.sandbox, 'home'), LOUPE_KEYCHAIN: 'off', OPENAI_BASE_URL: fx.llm.baseURL, OPENAI_API_KEY: 'k', LOUPE_MODEL: 'scripted' });

/** Live pids whose command line contains `tag`. */
function alive(tag: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (/\) Z /.test(readFileSync(`/proc/${name}/stat`, 'utf8'))) continue;
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(tag)) out.push(Number(name));
    } catch {}
  }
  return out;
}

const startInBackground = (tag: string) => {
  fx.llm.enqueue({ toolCalls: [call('c1', 'bash', { command: `sleep 300 # ${tag}`, description: 'A long job', run_in_background: true })] }, { content: 'Started it.' });
};

describe('loupe run and loupe mcp stop the processes they started', () => {
  it('loupe run lists them and stops them at exit', async () => {
    const cwd = await repo();
    const tag = `loupe-run-bg-${process.pid}-${n}`;
    startInBackground(tag);
    const r = await runLoupe(['run', '--cwd', cwd, 'start a job'], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`Background processes:\\n  proc-1 \\[running\\] sleep 300 # ${tag}`));
    expect(r.stderr).toContain('Stopping proc-1');
    expect(alive(tag)).toEqual([]);
  });

  it('with --keep-processes it stays until Ctrl-C, then stops them', async () => {
    const cwd = await repo();
    const tag = `loupe-run-keep-${process.pid}-${n}`;
    startInBackground(tag);
    const child = spawn(process.execPath, [BIN, 'run', '--cwd', cwd, '--keep-processes', 'start a job'], { env: { ...process.env, ...env() }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((r) => child.once('exit', r));
    await until(() => stderr.includes('Keeping them running'), 30_000);
    expect(alive(tag).length).toBeGreaterThan(0);
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(alive(tag)).toEqual([]);
  });

  it('loupe mcp stops them when the client closes its end', async () => {
    const cwd = await repo();
    const tag = `loupe-mcp-bg-${process.pid}-${n}`;
    const child: ChildProcess = spawn(process.execPath, [BIN, 'mcp', '--cwd', cwd], { env: { ...process.env, ...env() }, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((r) => child.once('exit', r));
    const send = (m: unknown) => child.stdin!.write(`${JSON.stringify(m)}\n`);
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    await until(() => out.includes('"id":1'), 30_000);
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'bash', arguments: { command: `sleep 300 # ${tag}`, description: 'A long job', run_in_background: true } } });
    await until(() => out.includes('"id":2'), 30_000);
    expect(out).toContain('proc-1');
    expect(alive(tag).length).toBeGreaterThan(0);
    child.stdin!.end();
    await exited;
    expect(alive(tag)).toEqual([]);
  });
});
