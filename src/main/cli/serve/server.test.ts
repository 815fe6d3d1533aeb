import { mkdir, writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { WsServerMessage } from '../../../shared/contract';
import { tempDir, until, writeTree } from '../../../../test/support/tmp';
import { Host } from '../../host/host';
import { startServer, type RunningServer } from './server';

let dir: string;
let cleanup: () => Promise<void>;
let host: Host;
let srv: RunningServer;

beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
  const ws = path.join(dir, 'project');
  const ui = path.join(dir, 'ui');
  await writeTree(ws, { 'src/main.ts': 'export const x = 1;\n' });
  await mkdir(path.join(ui, 'assets'), { recursive: true });
  await writeFile(path.join(ui, 'index.html'), '<!doctype html><title>Loupe</title>');
  await writeFile(path.join(ui, 'assets', 'app.js'), 'console.log(1)');
  host = new Host({ transport: 'websocket', configDir: path.join(dir, 'config') });
  await host.open(ws);
  srv = await startServer({ host, staticDir: ui, port: 0 });
});
afterEach(async () => {
  await srv.close();
  await host.dispose();
  await cleanup();
});

const base = () => `http://127.0.0.1:${srv.port}`;

function connect(query: string, headers: Record<string, string> = {}): Promise<{ ws?: WebSocket; status?: number }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${srv.port}/ws${query}`, { headers });
    ws.on('open', () => resolve({ ws }));
    ws.on('unexpected-response', (_req, res) => resolve({ status: res.statusCode }));
    ws.on('error', () => resolve({}));
  });
}

function request(ws: WebSocket, id: number, ch: string, p: unknown): Promise<WsServerMessage> {
  return new Promise((resolve) => {
    const onMsg = (raw: WebSocket.RawData) => {
      const msg = JSON.parse(raw.toString()) as WsServerMessage;
      if (msg.t === 'res' && msg.id === id) {
        ws.off('message', onMsg);
        resolve(msg);
      }
    };
    ws.on('message', onMsg);
    ws.send(JSON.stringify({ t: 'req', id, ch, p }));
  });
}

describe('loupe serve transport', () => {
  it('prints a loopback URL with a long random token', () => {
    expect(srv.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/);
    expect(srv.server.address()).toMatchObject({ address: '127.0.0.1' });
  });

  it('refuses the page without the token (401) and with a foreign Origin or Host (403)', async () => {
    expect((await fetch(`${base()}/`)).status).toBe(401);
    expect((await fetch(`${base()}/?token=wrong`)).status).toBe(401);
    expect((await fetch(`${base()}/index.html`)).status).toBe(401);
    expect((await fetch(srv.url, { headers: { Origin: 'http://evil.example' } })).status).toBe(403);
    // fetch() may not set Host; a raw request can, as a DNS-rebinding page would.
    const status = await new Promise<number>((resolve, reject) => {
      http.get(srv.url, { headers: { Host: `evil.example:${srv.port}` } }, (res) => resolve(res.statusCode!)).on('error', reject);
    });
    expect(status).toBe(403);
  });

  it('answers a reload without the token (a navigation) with the page that restores it, not a 401', async () => {
    // fetch() sets Sec-Fetch-Mode itself; a raw request says what a browser's reload says.
    const get = (url: string, headers: Record<string, string>) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        http
          .get(url, { headers }, (res) => {
            let body = '';
            res.on('data', (d) => (body += d));
            res.on('end', () => resolve({ status: res.statusCode!, body }));
          })
          .on('error', reject);
      });
    const nav = { 'Sec-Fetch-Mode': 'navigate' };
    const reload = await get(`${base()}/`, nav);
    expect(reload.status).toBe(200);
    expect(reload.body).toContain('_loupe-reauth.js');
    expect(reload.body).not.toContain(srv.token);
    expect((await get(`${base()}/?token=wrong`, nav)).status).toBe(401);
    expect((await get(`${base()}/`, { ...nav, Origin: 'http://evil.example' })).status).toBe(403);
    expect((await get(`${base()}/`, {})).status).toBe(401);
  });

  it('serves the page with the token, public assets without it, and never a cookie', async () => {
    const first = await fetch(srv.url);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(first.headers.get('referrer-policy')).toBe('no-referrer');
    expect(first.headers.get('set-cookie')).toBeNull();
    const asset = await fetch(`${base()}/assets/app.js`);
    expect(asset.status).toBe(200);
    expect(await asset.text()).toBe('console.log(1)');
    expect((await fetch(`${base()}/assets/app.js`, { headers: { Origin: 'http://evil.example' } })).status).toBe(403);
    expect((await fetch(`${base()}/index.html`)).status).toBe(401);
    const escape = await fetch(`${base()}/..%2f..%2fproject/src/main.ts`);
    expect(escape.status).toBe(404);
  });

  it('refuses WebSocket upgrades without the token or from a foreign Origin', async () => {
    expect((await connect('')).status).toBe(401);
    expect((await connect('?token=nope')).status).toBe(401);
    expect((await connect(`?token=${srv.token}`, { Origin: 'http://evil.example' })).status).toBe(403);
  });

  it('answers requests and pushes events over an authenticated WebSocket', async () => {
    const { ws } = await connect(`?token=${srv.token}`, { Origin: base() });
    expect(ws).toBeDefined();
    const res = await request(ws!, 1, 'tree.list', { dir: '' });
    expect(res).toMatchObject({ t: 'res', ok: true, r: { dir: '', entries: [{ path: 'src', kind: 'dir' }] } });
    const bad = await request(ws!, 2, 'file.read', { path: '../../etc/passwd' });
    expect(bad).toMatchObject({ ok: false, e: { code: 'PATH_OUTSIDE_WORKSPACE' } });
    const unknown = await request(ws!, 3, 'nope.nothing', {});
    expect(unknown).toMatchObject({ ok: false, e: { code: 'INVALID_ARGUMENT' } });
    const events: WsServerMessage[] = [];
    ws!.on('message', (raw) => events.push(JSON.parse(raw.toString())));
    await writeFile(path.join(host.current!.root, 'new-file.ts'), '');
    await until(() => events.some((e) => e.t === 'evt' && e.ch === 'tree.changed'));
    ws!.close();
  });
});
