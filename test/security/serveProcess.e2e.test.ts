// The real `loupe serve` process, as a person starts it, against a hostile local client and a
// hostile folder: it never exits, never balloons, and starts on a folder it cannot watch.
// Needs `npm run build` first, like the other tests that spawn bin/loupe.mjs.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { until } from '../support/tmp';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { closedWithin, rawConnect, textFrame } from '../support/rawWs';
import { request } from '../support/serveFixture';
import { tempDir } from '../support/tmp';
import { frameCorpus, randomFrameStreams } from '../support/wsFrameCorpus';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'bin/loupe.mjs');
const MB = 1024 * 1024;

interface Served {
  port: number;
  token: string;
  proc: ChildProcess;
  stderr: () => string;
}

let sandbox: { dir: string; cleanup: () => Promise<void> } | undefined;
let served: Served | undefined;

beforeAll(() => {
  if (!existsSync(path.join(ROOT, 'out/main/cli.js'))) throw new Error('loupe is not built: run `npm run build` before this test.');
});
afterEach(async () => {
  if (served?.proc.exitCode === null) {
    const exited = new Promise((r) => served!.proc.once('exit', r));
    served.proc.kill('SIGTERM');
    await exited;
  }
  served = undefined;
  if (sandbox) execFileSync('rm', ['-rf', sandbox.dir]);
  sandbox = undefined;
});

async function project(files: Record<string, string | Buffer> = { 'a.ts': 'x\n' }): Promise<string> {
  sandbox = await tempDir('loupe-serve-proc-');
  const dir = path.join(sandbox.dir, 'project');
  await mkdir(path.join(sandbox.dir, 'home'));
  await mkdir(dir);
  for (const [rel, content] of Object.entries(files)) await writeFile(path.join(dir, rel), content);
  return dir;
}

async function serve(folder: string): Promise<Served> {
  const home = path.join(sandbox!.dir, 'home');
  const proc = spawn(process.execPath, [BIN, 'serve', folder, '--port', '0'], {
    env: { ...process.env, LOUPE_HOME: home, HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  proc.stderr!.on('data', (d) => (err += d));
  const url = await new Promise<URL>((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (d) => {
      out += d;
      const m = /^(http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)$/m.exec(out);
      if (m) resolve(new URL(m[1]));
    });
    proc.once('exit', (code) => reject(new Error(`loupe serve exited with ${code}: ${err.slice(0, 500)}`)));
  });
  served = { port: Number(url.port), token: url.searchParams.get('token')!, proc, stderr: () => err };
  return served;
}

function client(s: Served): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${s.port}/ws?token=${s.token}`);
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

const rssOf = (pid: number): number => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

describe('loupe serve, the process', () => {
  it('survives every malformed frame of the corpus and of the generator', async () => {
    const s = await serve(await project());
    const healthy = await client(s);
    const streams = [...frameCorpus().map((c) => c.bytes), ...randomFrameStreams(100, 7)];
    for (let i = 0; i < streams.length; i += 24) {
      await Promise.all(
        streams.slice(i, i + 24).map(async (bytes) => {
          const socket = await rawConnect(s.port, `/ws?token=${s.token}`);
          socket.on('error', () => undefined);
          for (const b of bytes) socket.write(b);
          await closedWithin(socket, 150);
        }),
      );
      expect(s.proc.exitCode).toBeNull();
      expect(await request(healthy, 'app.info', null)).toMatchObject({ ok: true });
    }
    healthy.close();
  }, 60_000);

  it('starts on a folder 10,000 levels deep, says live updates are off, and answers', async () => {
    const dir = await project({ 'README.md': '# deep\n' });
    execFileSync(process.execPath, ['-e', `const fs=require('fs');process.chdir(${JSON.stringify(dir)});for(let i=0;i<10000;i++){fs.mkdirSync('d');process.chdir('d')}`]);
    const s = await serve(dir);
    const ws = await client(s);
    expect(await request(ws, 'file.read', { path: 'README.md' })).toMatchObject({ ok: true, r: { content: '# deep\n' } });
    // The folder opens before the watcher has subscribed, so its failure may come a moment later.
    const current = await until(async () => {
      const r = (await request(ws, 'workspace.current', null)) as { r?: { notices?: string[] } };
      return r.r?.notices?.length ? r : null;
    }, 15_000);
    expect(current).toMatchObject({ ok: true, r: { notices: [expect.stringMatching(/live updates/i)] } });
    expect(s.stderr()).toMatch(/live updates/i);
    expect(s.stderr().length).toBeLessThan(4000);
    ws.close();
  }, 60_000);

  it('60 concurrent 8 MB reads from a client that never reads: bounded memory, others answered', async () => {
    const line = 'x'.repeat(127) + '\n';
    const s = await serve(await project({ 'big.txt': line.repeat((8 * MB) / line.length) }));
    const other = await client(s);
    expect(await request(other, 'file.read', { path: 'big.txt' })).toMatchObject({ ok: true });
    const baseline = rssOf(s.proc.pid!);
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, rssOf(s.proc.pid!))), 20);
    try {
      const greedy = await rawConnect(s.port, `/ws?token=${s.token}`);
      greedy.pause();
      greedy.on('error', () => undefined);
      greedy.write(Buffer.concat(Array.from({ length: 60 }, (_, i) => textFrame(JSON.stringify({ t: 'req', id: i + 1, ch: 'file.read', p: { path: 'big.txt' } })))));
      await new Promise((r) => setTimeout(r, 3000));
      expect(await request(other, 'tree.list', { dir: '' }, 5000)).toMatchObject({ ok: true });
      expect(s.proc.exitCode).toBeNull();
      greedy.destroy();
    } finally {
      clearInterval(sampler);
    }
    console.log(`loupe serve RSS growth: ${Math.round((peak - baseline) / MB)} MB`);
    expect((peak - baseline) / MB).toBeLessThan(200);
    other.close();
  }, 60_000);
});
