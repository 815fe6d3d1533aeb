// A client that asks for a lot and reads nothing must not grow the server without bound:
// the bytes in flight are bounded per connection, the server keeps answering other clients,
// and the client that never drains is closed in the end.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { rawConnect, textFrame } from '../support/rawWs';
import { healthyClient, request, serveFixture, type ServeFixture } from '../support/serveFixture';
import { until } from '../support/tmp';

const MB = 1024 * 1024;
const FILE_BYTES = 8 * MB;
const REQUESTS = 60;

let fx: ServeFixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const bigFile = async (project: string) => {
  const line = 'x'.repeat(127) + '\n';
  await writeFile(path.join(project, 'big.txt'), line.repeat(FILE_BYTES / line.length));
};

/** Opens a raw client, sends `n` requests for the big file at once, and never reads a byte. */
async function greedyClient(port: number, token: string, n: number) {
  const socket = await rawConnect(port, `/ws?token=${token}`);
  socket.pause();
  socket.on('error', () => undefined);
  const frames = Array.from({ length: n }, (_, i) => textFrame(JSON.stringify({ t: 'req', id: i + 1, ch: 'file.read', p: { path: 'big.txt' } })));
  socket.write(Buffer.concat(frames));
  return socket;
}

describe('loupe serve bounds the bytes in flight per connection', () => {
  it('60 concurrent 8 MB reads from a client that never reads', async () => {
    fx = await serveFixture({ 'a.ts': 'x\n' }, { limits: { stallMs: 3000 } }, bigFile);
    const baseline = process.memoryUsage().rss;
    let peakRss = baseline;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
    try {
      const greedy = await greedyClient(fx.srv.port, fx.srv.token, REQUESTS);
      // Let the server do all it is willing to do for that client.
      await new Promise((r) => setTimeout(r, 2000));
      expect((peakRss - baseline) / MB).toBeLessThan(200);
      const [stats] = fx.srv.connections();
      expect(stats.peakBufferedBytes).toBeGreaterThan(FILE_BYTES); // it did get answers queued…
      expect(stats.peakBufferedBytes).toBeLessThan(64 * MB); // …but nowhere near 60 of them
      expect(stats.queued + stats.running).toBeGreaterThan(0); // the rest wait unread

      // Another client is answered meanwhile, a big read included.
      const other = await healthyClient(fx.srv);
      expect(await request(other, 'tree.list', { dir: '' }, 5000)).toMatchObject({ ok: true });
      expect(await request(other, 'file.read', { path: 'big.txt' }, 5000)).toMatchObject({ ok: true, r: { size: FILE_BYTES } });

      // The greedy client never drains: it is closed, and its backlog freed.
      await until(() => fx!.srv.connections().length === 1, 8000);
      greedy.destroy();
      other.close();
    } finally {
      clearInterval(sampler);
    }
    expect((peakRss - baseline) / MB).toBeLessThan(200);
  }, 30_000);

  it('a client that reads slowly gets every answer, in the end', async () => {
    fx = await serveFixture({ 'a.ts': 'x\n' }, {}, bigFile);
    const socket = await greedyClient(fx.srv.port, fx.srv.token, 12);
    await new Promise((r) => setTimeout(r, 500));
    const received = new Promise<number>((resolve) => {
      let bytes = 0;
      const timer = setTimeout(() => resolve(bytes), 10_000);
      socket.on('data', (d: Buffer) => {
        bytes += d.length;
        if (bytes < 12 * FILE_BYTES) return;
        clearTimeout(timer);
        resolve(bytes);
      });
      socket.on('close', () => resolve(bytes));
    });
    socket.resume();
    expect(await received).toBeGreaterThanOrEqual(12 * FILE_BYTES);
    socket.destroy();
  }, 30_000);

  it('a slow reader that keeps draining is not taken for a stalled one', async () => {
    fx = await serveFixture({ 'a.ts': 'x\n' }, { limits: { budgetBytes: MB, stallMs: 2500 } }, bigFile);
    const socket = await greedyClient(fx.srv.port, fx.srv.token, 6);
    const started = Date.now();
    let bytes = 0;
    let closed = false;
    socket.on('close', () => (closed = true));
    // ~10 MB/s: the backlog stays over budget far longer than stallMs, yet keeps shrinking.
    let sincePause = 0;
    socket.on('data', (d: Buffer) => {
      bytes += d.length;
      sincePause += d.length;
      if (sincePause < MB) return;
      sincePause = 0;
      socket.pause();
      setTimeout(() => socket.resume(), 100);
    });
    socket.resume();
    await until(() => bytes >= 6 * FILE_BYTES || closed, 20_000);
    expect(closed).toBe(false);
    expect(Date.now() - started).toBeGreaterThan(3000);
    socket.destroy();
  }, 30_000);
});
