// Odd HTTP request targets and headers, plain and as WebSocket upgrades: each gets an answer
// or a closed connection, never a dead server.
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { upgradeRequest } from '../support/rawWs';
import { serverUnderAttack } from '../support/serverUnderAttack';

const TARGETS = ['//[', 'http://[', '/ws?token=%', 'http://a:99999/', 'http://x:1/ws', '//ws', '*', '/%E0%A4%A', '/..%2f..%2f', '/ws?token=a&token=b', 'http://127.0.0.1:1/?token=x', '/\u00ff', `/${'a'.repeat(8000)}`, '/?token=' + 'x'.repeat(5000)];
const HEADERS: Record<string, string>[] = [{}, { Origin: 'null' }, { Origin: 'http://[' }, { Authorization: 'Bearer' }, { Authorization: `Bearer ${'x'.repeat(4000)}` }, { Cookie: '=;;=' }, { Host: '[' }];

const attack = serverUnderAttack();

function exchange(raw: string): Promise<string> {
  return new Promise((resolve) => {
    const s = net.connect(attack.fx().srv.port, '127.0.0.1', () => s.write(raw));
    let got = '';
    s.on('data', (d) => (got += d.toString('latin1')));
    s.on('error', () => resolve(got));
    s.on('close', () => resolve(got));
    setTimeout(() => s.destroy(), 300);
  });
}

describe('loupe serve survives odd HTTP requests', () => {
  it('every target × header, as a GET and as an upgrade', async () => {
    const { port, token } = attack.fx().srv;
    const raws: string[] = [];
    for (const target of TARGETS) {
      for (const headers of HEADERS) {
        const h = { Host: `127.0.0.1:${port}`, ...headers };
        raws.push(`GET ${target} HTTP/1.1\r\n${Object.entries(h).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`);
        raws.push(upgradeRequest(port, target.replace('token=x', `token=${token}`), headers).replace(/^GET [^ ]+/, `GET ${target}`));
      }
    }
    expect(raws.length).toBe(TARGETS.length * HEADERS.length * 2);
    await attack.inBatches(raws, 20, async (raw) => void (await exchange(raw)));
  }, 60_000);
});
