// A malformed WebSocket frame costs its own connection, never the server: every edge of the
// frame format, each on a fresh raw connection, while a healthy client keeps being answered.
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { closedWithin, rawConnect, upgradeRequest } from '../support/rawWs';
import { frameCorpus, randomFrameStreams } from '../support/wsFrameCorpus';
import { healthyClient, request } from '../support/serveFixture';
import { serverUnderAttack } from '../support/serverUnderAttack';

const attack = serverUnderAttack();

async function sendOnOwnConnection(bytes: Buffer[]): Promise<void> {
  const socket = await rawConnect(attack.fx().srv.port, `/ws?token=${attack.fx().srv.token}`);
  socket.on('error', () => undefined);
  for (const b of bytes) socket.write(b);
  // A truncated frame leaves the server waiting for the rest: end our side after a moment.
  if (!(await closedWithin(socket, 150))) socket.destroy();
}

describe('loupe serve survives malformed WebSocket frames', () => {
  it('every edge of the frame format, each on its own connection', async () => {
    const cases = frameCorpus();
    expect(cases.length).toBeGreaterThan(200);
    await attack.inBatches(cases, 24, (c) => sendOnOwnConnection(c.bytes));
    // The server still accepts new clients, not only the one it already had.
    const fresh = await healthyClient(attack.fx().srv);
    expect(await request(fresh, 'app.info', null)).toMatchObject({ ok: true });
    fresh.close();
  }, 60_000);

  it('random frames and random bytes (property)', async () => {
    const streams = randomFrameStreams(150);
    await attack.inBatches(streams, 25, sendOnOwnConnection);
  }, 60_000);

  it('a handshake reset mid-way, accepted or refused, costs nothing', async () => {
    const paths = [`/ws?token=${attack.fx().srv.token}`, '/ws?token=wrong', '/ws', '/elsewhere'];
    await attack.inBatches(paths.flatMap((p) => [p, p, p]), 12, (p) =>
      new Promise<void>((resolve) => {
        const s = net.connect(attack.fx().srv.port, '127.0.0.1', () => {
          s.write(upgradeRequest(attack.fx().srv.port, p));
          setImmediate(() => {
            s.resetAndDestroy();
            resolve();
          });
        });
        s.on('error', () => resolve());
      }),
    );
    await new Promise((r) => setTimeout(r, 200));
    await attack.expectHealthy();
  });
});
