// A malformed WebSocket frame costs its own connection, never the server: every edge of the
// frame format, each on a fresh raw connection, while a healthy client keeps being answered.
import net from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type WebSocket from 'ws';
import { closedWithin, rawConnect, upgradeRequest } from '../support/rawWs';
import { frameCorpus, randomFrameStreams } from '../support/wsFrameCorpus';
import { healthyClient, request, serveFixture, type ServeFixture } from '../support/serveFixture';

let fx: ServeFixture;
let healthy: WebSocket;
const uncaught: unknown[] = [];
const onUncaught = (err: unknown) => uncaught.push(err);

beforeAll(() => {
  process.on('uncaughtException', onUncaught);
});
afterAll(() => {
  process.off('uncaughtException', onUncaught);
});
beforeEach(async () => {
  uncaught.length = 0;
  fx = await serveFixture();
  healthy = await healthyClient(fx.srv);
});
afterEach(async () => {
  healthy.terminate();
  await fx.close();
});

async function sendOnOwnConnection(bytes: Buffer[]): Promise<void> {
  const socket = await rawConnect(fx.srv.port, `/ws?token=${fx.srv.token}`);
  socket.on('error', () => undefined);
  for (const b of bytes) socket.write(b);
  // A truncated frame leaves the server waiting for the rest: end our side after a moment.
  if (!(await closedWithin(socket, 150))) socket.destroy();
}

async function expectHealthy(): Promise<void> {
  expect(uncaught).toEqual([]);
  expect(fx.srv.server.listening).toBe(true);
  const res = await request(healthy, 'tree.list', { dir: '' });
  expect(res).toMatchObject({ t: 'res', ok: true });
}

async function inBatches<T>(items: T[], size: number, run: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) {
    await Promise.all(items.slice(i, i + size).map(run));
    await expectHealthy();
  }
}

describe('loupe serve survives malformed WebSocket frames', () => {
  it('every edge of the frame format, each on its own connection', async () => {
    const cases = frameCorpus();
    expect(cases.length).toBeGreaterThan(200);
    await inBatches(cases, 24, (c) => sendOnOwnConnection(c.bytes));
    // The server still accepts new clients, not only the one it already had.
    const fresh = await healthyClient(fx.srv);
    expect(await request(fresh, 'app.info', null)).toMatchObject({ ok: true });
    fresh.close();
  }, 60_000);

  it('random frames and random bytes (property)', async () => {
    const streams = randomFrameStreams(150);
    await inBatches(streams, 25, sendOnOwnConnection);
  }, 60_000);

  it('a handshake reset mid-way, accepted or refused, costs nothing', async () => {
    const paths = [`/ws?token=${fx.srv.token}`, '/ws?token=wrong', '/ws', '/elsewhere'];
    await inBatches(paths.flatMap((p) => [p, p, p]), 12, (p) =>
      new Promise<void>((resolve) => {
        const s = net.connect(fx.srv.port, '127.0.0.1', () => {
          s.write(upgradeRequest(fx.srv.port, p));
          setImmediate(() => {
            s.resetAndDestroy();
            resolve();
          });
        });
        s.on('error', () => resolve());
      }),
    );
    await new Promise((r) => setTimeout(r, 200));
    await expectHealthy();
  });
});
