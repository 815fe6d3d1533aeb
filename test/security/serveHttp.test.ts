// Odd HTTP request targets and headers, plain and as WebSocket upgrades: each gets an answer
// or a closed connection, never a dead server.
import net from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type WebSocket from 'ws';
import { upgradeRequest } from '../support/rawWs';
import { healthyClient, request, serveFixture, type ServeFixture } from '../support/serveFixture';

const TARGETS = ['//[', 'http://[', '/ws?token=%', 'http://a:99999/', 'http://x:1/ws', '//ws', '*', '/%E0%A4%A', '/..%2f..%2f', '/ws?token=a&token=b', 'http://127.0.0.1:1/?token=x', '/\u00ff', `/${'a'.repeat(8000)}`, '/?token=' + 'x'.repeat(5000)];
const HEADERS: Record<string, string>[] = [{}, { Origin: 'null' }, { Origin: 'http://[' }, { Authorization: 'Bearer' }, { Authorization: `Bearer ${'x'.repeat(4000)}` }, { Cookie: '=;;=' }, { Host: '[' }];

let fx: ServeFixture;
let healthy: WebSocket;
const uncaught: unknown[] = [];
const onUncaught = (err: unknown) => uncaught.push(err);
beforeAll(() => void process.on('uncaughtException', onUncaught));
afterAll(() => void process.off('uncaughtException', onUncaught));
beforeEach(async () => {
  uncaught.length = 0;
  fx = await serveFixture();
  healthy = await healthyClient(fx.srv);
});
afterEach(async () => {
  healthy.terminate();
  await fx.close();
});

function exchange(raw: string): Promise<string> {
  return new Promise((resolve) => {
    const s = net.connect(fx.srv.port, '127.0.0.1', () => s.write(raw));
    let got = '';
    s.on('data', (d) => (got += d.toString('latin1')));
    s.on('error', () => resolve(got));
    s.on('close', () => resolve(got));
    setTimeout(() => s.destroy(), 300);
  });
}

describe('loupe serve survives odd HTTP requests', () => {
  it('every target × header, as a GET and as an upgrade', async () => {
    const { port, token } = fx.srv;
    const raws: string[] = [];
    for (const target of TARGETS) {
      for (const headers of HEADERS) {
        const h = { Host: `127.0.0.1:${port}`, ...headers };
        raws.push(`GET ${target} HTTP/1.1\r\n${Object.entries(h).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`);
        raws.push(upgradeRequest(port, target.replace('token=x', `token=${token}`), headers).replace(/^GET [^ ]+/, `GET ${target}`));
      }
    }
    expect(raws.length).toBe(TARGETS.length * HEADERS.length * 2);
    for (let i = 0; i < raws.length; i += 20) {
      await Promise.all(raws.slice(i, i + 20).map(exchange));
      expect(uncaught).toEqual([]);
      expect(await request(healthy, 'app.info', null)).toMatchObject({ ok: true });
    }
  }, 60_000);
});
