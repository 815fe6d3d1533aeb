// The page `loupe serve` sends carries the open folder and its root listing: sent only with the
// token, never cached, and no name of a file or a folder can end the data block it sits in.
import { mkdir, writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { BOOT_ELEMENT_ID, type BootData } from '../../../shared/contract';
import { tempDir, writeTree } from '../../../../test/support/tmp';
import { Host } from '../../host/host';
import { BOOT_WAIT_MS, scriptJson } from './bootPage';
import { startServer, type RunningServer } from './server';

const PAGE = '<!doctype html><html><head><script type="module" src="./assets/app.js"></script></head><body><div id="root"></div></body></html>';
// Every folder name below the temp folder is a piece of markup; the root's path spells `</script>`.
const NAMES = ['<!--a.txt', '<script>b.txt', 'c\u2028d.txt', '--><img src=x onerror=alert(1)>.txt', '<title>e.txt'];

let dir: string;
let cleanup: () => Promise<void>;
let host: Host;
let ui: string;
let root: string;
const servers: RunningServer[] = [];

beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
  root = path.join(dir, '<', 'script>', 'proj');
  await writeTree(root, Object.fromEntries(NAMES.map((n) => [n, 'x\n'])));
  ui = path.join(dir, 'ui');
  await mkdir(path.join(ui, 'assets'), { recursive: true });
  await writeFile(path.join(ui, 'index.html'), PAGE);
  await writeFile(path.join(ui, 'assets', 'app.js'), 'console.log(1)');
  host = new Host({ transport: 'websocket', configDir: path.join(dir, 'config') });
  await host.open(root);
});
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  await host.dispose();
  await cleanup();
});

async function serve(boot: () => Promise<BootData | null>): Promise<RunningServer> {
  const s = await startServer({ host, staticDir: ui, port: 0, boot });
  servers.push(s);
  return s;
}

/** The response's status, headers, its first chunk and (once `release` is called, if given) the whole body. */
function get(s: RunningServer, target: string, method = 'GET'): Promise<{ status: number; headers: http.IncomingHttpHeaders; first: string; body: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: s.port, path: target, method, headers: { Host: `127.0.0.1:${s.port}` } }, (res) => {
      let body = '';
      let ended: (b: string) => void = () => undefined;
      const whole = new Promise<string>((r) => (ended = r));
      res.setEncoding('utf8');
      res.on('end', () => ended(body));
      let firstSeen = false;
      res.on('data', (d: string) => {
        body += d;
        if (!firstSeen) {
          firstSeen = true;
          resolve({ status: res.statusCode ?? 0, headers: res.headers, first: d, body: whole });
        }
      });
      res.on('end', () => {
        if (!firstSeen) resolve({ status: res.statusCode ?? 0, headers: res.headers, first: '', body: whole });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

const bootBlock = (html: string): string | null => {
  const m = new RegExp(`<script type="application/json" id="${BOOT_ELEMENT_ID}">([^<]*)</script>`).exec(html);
  return m ? m[1] : null;
};

it('writes the open folder and its root listing into the page, and nothing a name holds ends the block', async () => {
  const s = await serve(() => host.bootData());
  const res = await get(s, `/?token=${s.token}`);
  expect(res.status).toBe(200);
  expect(res.headers['cache-control']).toBe('no-store');
  const html = await res.body;
  const block = bootBlock(html);
  expect(block).not.toBeNull();
  const data = JSON.parse(block!) as BootData;
  expect(data.workspace.root).toBe(host.current!.root);
  expect(data.workspace.root).toContain('</script>');
  expect(data.listing.entries.map((e) => e.name).sort()).toEqual([...NAMES].sort());
  // The page's own markup is untouched: one script element more, and it is the data block.
  expect(html.split('<script').length).toBe(PAGE.split('<script').length + 1);
  expect(html.replace(/<script type="application\/json"[^>]*>[^<]*<\/script>\n?/, '')).toBe(PAGE);
});

it('sends the head before the listing is known, so the browser fetches the bundle meanwhile', async () => {
  let release: (d: BootData | null) => void = () => undefined;
  const s = await serve(() => new Promise((r) => (release = r)));
  const res = await get(s, `/?token=${s.token}`);
  expect(res.first).toContain('<script type="module" src="./assets/app.js">');
  expect(res.first).not.toContain('</body>');
  release(await host.bootData());
  expect(bootBlock(await res.body)).not.toBeNull();
});

it('ends the page without the data when the listing is slower than the bound', async () => {
  const s = await serve(() => new Promise(() => undefined));
  const started = performance.now();
  const html = await (await get(s, `/?token=${s.token}`)).body;
  expect(performance.now() - started).toBeGreaterThanOrEqual(BOOT_WAIT_MS - 5);
  expect(bootBlock(html)).toBeNull();
  expect(html).toBe(PAGE);
});

it('gives nothing of the folder without the token, nor to a HEAD request', async () => {
  const s = await serve(() => host.bootData());
  for (const target of ['/', '/?token=wrong', '/index.html']) {
    const res = await get(s, target);
    expect(res.status).toBe(401);
    const body = await res.body;
    expect(body).not.toContain('proj');
    expect(body).not.toContain(BOOT_ELEMENT_ID);
  }
  const head = await get(s, `/?token=${s.token}`, 'HEAD');
  expect(head.status).toBe(200);
  expect(await head.body).toBe('');
});

it('keeps any value data inside a script block: no "<" at all, and it parses back to the value', () => {
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 3 }), fc.string({ unit: 'binary' }), (value, name) => {
      for (const v of [value, { name, value }]) {
        const text = scriptJson(v);
        expect(text).not.toMatch(/[<\u2028\u2029]/);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(v)));
      }
    }),
    { numRuns: 2000 },
  );
});
