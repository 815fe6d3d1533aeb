// The token of `loupe serve` reaches this server only. A cookie would not: cookies ignore
// ports, so the browser would hand it to every other server on 127.0.0.1. So no response ever
// sets one, and a cookie alone opens nothing.
import http from 'node:http';
import { runInNewContext } from 'node:vm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TOKEN_STORAGE_KEY } from '../../src/shared/contract';
import { REAUTH_PATH } from '../../src/main/cli/serve/reauth';
import { rawConnect } from '../support/rawWs';
import { serveFixture, type ServeFixture } from '../support/serveFixture';

let fx: ServeFixture;
beforeEach(async () => {
  fx = await serveFixture();
});
afterEach(async () => {
  await fx.close();
});

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function get(port: number, path: string, headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, headers: { Host: `127.0.0.1:${port}`, ...headers } }, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      })
      .on('error', reject);
  });
}

const upgradeStatus = (port: number, path: string, headers: Record<string, string> = {}) =>
  rawConnect(port, path, headers).then(
    (s) => {
      s.destroy();
      return 101;
    },
    (err: Error) => Number(/HTTP\/1\.1 (\d+)/.exec(err.message)?.[1] ?? 0),
  );

describe('the token of loupe serve never rides in a cookie', () => {
  it('no response sets a cookie, whatever is asked and however', async () => {
    const { port, token } = fx.srv;
    const paths = ['/', `/?token=${token}`, `/index.html?token=${token}`, '/index.html', '/assets/app.js', `/assets/app.js?token=${token}`, '/nope', `/nope?token=${token}`, REAUTH_PATH, '/?token=wrong'];
    const variants: Record<string, string>[] = [{}, { Authorization: `Bearer ${token}` }, { Cookie: `loupe_token_${port}=${token}` }, { Origin: `http://127.0.0.1:${port}` }];
    const replies: Reply[] = [];
    for (const p of paths) for (const h of variants) replies.push(await get(port, p, h));
    expect(replies.length).toBe(40);
    expect(replies.filter((r) => r.headers['set-cookie'] !== undefined)).toEqual([]);
    expect(replies.filter((r) => r.body.includes(token))).toEqual([]);
    // The printed URL still opens the page.
    expect((await get(port, `/?token=${token}`)).status).toBe(200);
  });

  it('a cookie alone, under any name, opens neither the page nor the WebSocket', async () => {
    const { port, token } = fx.srv;
    const names = [`loupe_token_${port}`, 'loupe_token', 'token', 'loupe.token', '__Host-loupe', `__Host-loupe_token_${port}`, 'session'];
    for (const name of names) {
      const cookie = { Cookie: `${name}=${token}` };
      expect((await get(port, '/', cookie)).status, name).toBe(401);
      expect((await get(port, '/index.html', cookie)).status, name).toBe(401);
      expect(await upgradeStatus(port, '/ws', cookie), name).toBe(401);
    }
    // The ways only this server receives it do work.
    expect(await upgradeStatus(port, `/ws?token=${token}`)).toBe(101);
    expect(await upgradeStatus(port, '/ws', { Authorization: `Bearer ${token}` })).toBe(101);
    expect(await upgradeStatus(port, '/ws', { Authorization: 'Bearer wrong' })).toBe(401);
  });

  it('the browser keeps nothing another port could read: nothing for a cookie jar', async () => {
    // Another server on 127.0.0.1 sees whatever cookies the browser holds for 127.0.0.1.
    const seen: (string | undefined)[] = [];
    const other = http.createServer((req, res) => {
      seen.push(req.headers.cookie);
      res.end();
    });
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    try {
      const jar: string[] = [];
      for (const p of [`/?token=${fx.srv.token}`, '/assets/app.js', '/', REAUTH_PATH]) {
        const r = await get(fx.srv.port, p, jar.length ? { Cookie: jar.join('; ') } : {});
        for (const c of r.headers['set-cookie'] ?? []) jar.push(c.split(';')[0]);
      }
      const otherPort = (other.address() as { port: number }).port;
      await get(otherPort, '/', jar.length ? { Cookie: jar.join('; ') } : {});
      expect(jar).toEqual([]);
      expect(seen).toEqual([undefined]);
    } finally {
      await new Promise((r) => other.close(r));
    }
  });

  it('a reload without the token gets a page that puts the tab’s token back, once', async () => {
    const page = await get(fx.srv.port, '/');
    expect(page.status).toBe(401);
    expect(page.body).toContain(`src="${REAUTH_PATH}"`);
    const script = await get(fx.srv.port, REAUTH_PATH);
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toMatch(/javascript/);

    const run = (href: string, stored: string | null) => {
      const store = new Map<string, string>(stored ? [[TOKEN_STORAGE_KEY, stored]] : []);
      const replaced: string[] = [];
      runInNewContext(script.body, {
        URL,
        location: { href, replace: (u: string) => replaced.push(u) },
        sessionStorage: { getItem: (k: string) => store.get(k) ?? null, removeItem: (k: string) => store.delete(k) },
      });
      return { replaced, stored: store.get(TOKEN_STORAGE_KEY) ?? null };
    };
    const base = `http://127.0.0.1:${fx.srv.port}`;
    expect(run(`${base}/`, 'tok')).toEqual({ replaced: ['/?token=tok'], stored: 'tok' });
    expect(run(`${base}/`, null)).toEqual({ replaced: [], stored: null });
    // The stored token was refused (a new run): forgotten, no redirect loop.
    expect(run(`${base}/?token=tok`, 'tok')).toEqual({ replaced: [], stored: null });
  });
});
