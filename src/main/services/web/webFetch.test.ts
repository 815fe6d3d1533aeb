// Against a real HTTP server on 127.0.0.1.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyAddress, knownPrivateAddress } from './addressClass';
import { formatWebFetch } from './formatFetch';
import { webFetch, type HopCheck } from './webFetch';

const HTML = `<!doctype html><html><head><title>Docs &amp; more</title><style>body{color:red}</style>
<script>window.secret = "SCRIPT_BODY";</script><link rel="stylesheet" href="x.css"><meta name="x" content="META"></head>
<body><h1>Getting started</h1><p>Install it:</p><pre><code>npm install loupe
loupe serve</code></pre><h2>Features</h2><ul><li>one</li><li>two</li></ul>
<script>alert("SCRIPT_TWO")</script></body></html>`;

let base: string;
let server: http.Server;
const seen: { path: string; headers: http.IncomingHttpHeaders }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push({ path: req.url ?? '', headers: req.headers });
    const u = new URL(req.url ?? '/', 'http://x');
    switch (u.pathname) {
      case '/page':
        return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(HTML);
      case '/plain':
        return res.writeHead(200, { 'content-type': 'text/plain' }).end('just text\n');
      case '/echo-accept':
        return res.writeHead(200, { 'content-type': 'text/plain' }).end(String(req.headers.accept));
      case '/big':
        return res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(6 * 1024 * 1024) }).end(Buffer.alloc(6 * 1024 * 1024, 'a'));
      case '/big-chunked': {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const chunk = Buffer.alloc(64 * 1024, 'b');
        let sent = 0;
        const pump = () => {
          while (sent < 6 * 1024 * 1024) {
            sent += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end();
        };
        return pump();
      }
      case '/bomb':
        // 6 MB of zeros, a few KB on the wire: only the decoded size tells.
        return res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' }).end(zlib.gzipSync(Buffer.alloc(6 * 1024 * 1024, 'z')));
      case '/slow': {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('start ');
        const t = setInterval(() => res.write('.'), 100);
        res.on('close', () => clearInterval(t));
        return;
      }
      case '/to-file':
        return res.writeHead(302, { location: 'file:///etc/passwd' }).end();
      case '/hop': {
        const n = Number(u.searchParams.get('n'));
        return n > 0 ? res.writeHead(302, { location: `/hop?n=${n - 1}` }).end() : res.writeHead(200, { 'content-type': 'text/plain' }).end('landed');
      }
      case '/cf':
        if (req.headers['user-agent'] === 'loupe') return res.writeHead(200, { 'content-type': 'text/plain' }).end('through');
        return res.writeHead(403, { 'cf-mitigated': 'challenge', 'content-type': 'text/html' }).end('<html>challenge</html>');
      case '/png':
        return res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0]));
      default:
        return res.writeHead(404, { 'content-type': 'text/plain' }).end('nope');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('webFetch', () => {
  it('turns HTML into Markdown: atx headings, fenced code, - bullets, no script/style/meta/link', async () => {
    const r = await webFetch({ url: `${base}/page` });
    expect(r.title).toBe('Docs & more');
    expect(r.content).toContain('# Getting started');
    expect(r.content).toContain('## Features');
    expect(r.content).toContain('```\nnpm install loupe\nloupe serve\n```');
    expect(r.content).toMatch(/^-\s+one$/m);
    expect(r.content).not.toMatch(/SCRIPT_BODY|SCRIPT_TWO|color:red|META|x\.css/);
  });

  it('text format strips markup, html format keeps it', async () => {
    const text = await webFetch({ url: `${base}/page`, format: 'text' });
    expect(text.content).toContain('Getting started\nInstall it:');
    expect(text.content).not.toMatch(/<|SCRIPT_BODY/);
    const html = await webFetch({ url: `${base}/page`, format: 'html' });
    expect(html.content).toBe(HTML);
  });

  it('sends the Accept header of each format', async () => {
    expect((await webFetch({ url: `${base}/echo-accept`, format: 'markdown' })).content).toMatch(/^text\/markdown;q=1\.0/);
    expect((await webFetch({ url: `${base}/echo-accept`, format: 'text' })).content).toMatch(/^text\/plain;q=1\.0/);
    expect((await webFetch({ url: `${base}/echo-accept`, format: 'html' })).content).toMatch(/^text\/html;q=1\.0/);
  });

  it.each(['/big', '/big-chunked', '/bomb'])('refuses a 6 MB body (%s) with FETCH_TOO_LARGE', async (p) => {
    await expect(webFetch({ url: `${base}${p}` })).rejects.toMatchObject({ code: 'FETCH_TOO_LARGE' });
  });

  it('stops a slow body at the deadline', async () => {
    const t0 = Date.now();
    await expect(webFetch({ url: `${base}/slow`, timeoutSeconds: 1 })).rejects.toMatchObject({ code: 'TIMEOUT', message: expect.stringContaining('did not finish within 1 s') });
    expect(Date.now() - t0).toBeLessThan(2500);
  });

  it('stops when aborted', async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 200);
    await expect(webFetch({ url: `${base}/slow`, signal: ac.signal })).rejects.toMatchObject({ code: 'ABORTED' });
  });

  it('refuses a redirect to file://', async () => {
    await expect(webFetch({ url: `${base}/to-file` })).rejects.toMatchObject({ code: 'FETCH_FAILED', message: expect.stringContaining('redirected to file:///etc/passwd, which was refused') });
  });

  it.each(['file:///etc/passwd', 'data:text/plain,hi', 'ftp://127.0.0.1/x', 'javascript:alert(1)', 'http://user:pw@127.0.0.1/page', 'not a url'])('refuses %s before any I/O', async (url) => {
    const before = seen.length;
    await expect(webFetch({ url, checkHop: () => Promise.reject(new Error('must not be asked')) })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(seen.length).toBe(before);
  });

  it('follows up to 5 redirects, checking every hop with its resolved address', async () => {
    const hops: HopCheck[] = [];
    const r = await webFetch({ url: `${base}/hop?n=5`, checkHop: async (h) => void hops.push(h) });
    expect(r.content).toBe('landed');
    expect(r.redirects).toHaveLength(5);
    expect(hops.map((h) => h.hop)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(hops.every((h) => h.privateAddress === '127.0.0.1 (loopback)' && h.addresses[0] === '127.0.0.1')).toBe(true);
    await expect(webFetch({ url: `${base}/hop?n=6` })).rejects.toMatchObject({ code: 'FETCH_FAILED', message: expect.stringContaining('more than 5 times') });
  });

  it('a hop refused by the check is never requested', async () => {
    const before = seen.length;
    const refuse = async (h: HopCheck) => {
      if (h.hop === 1) throw Object.assign(new Error('denied'), { code: 'PERMISSION_DENIED' });
    };
    await expect(webFetch({ url: `${base}/hop?n=2`, checkHop: refuse })).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    expect(seen.slice(before).map((s) => s.path)).toEqual(['/hop?n=2']);
  });

  it('vets each hop by URL before resolving its name, and resolves only through the given lookup', async () => {
    const order: string[] = [];
    const lookup = async (host: string) => (order.push(`lookup ${host}`), [{ address: '127.0.0.1', family: 4 }]);
    const port = new URL(base).port;
    const r = await webFetch({
      url: `http://loupe-test.invalid:${port}/hop?n=1`,
      lookup,
      checkUrl: async (u) => void order.push(`url ${u.hop} ${u.url.hostname} ${u.privateAddress}`),
      checkHop: async (h) => void order.push(`hop ${h.hop} ${h.privateAddress}`),
    });
    expect(r.content).toBe('landed');
    expect(order).toEqual([
      'url 0 loupe-test.invalid null',
      'lookup loupe-test.invalid',
      'hop 0 127.0.0.1 (loopback)',
      'url 1 loupe-test.invalid null',
      'lookup loupe-test.invalid',
      'hop 1 127.0.0.1 (loopback)',
    ]);
    const refused = webFetch({ url: 'http://secret.invalid/', lookup, checkUrl: () => Promise.reject(Object.assign(new Error('no'), { code: 'PERMISSION_DENIED' })) });
    await expect(refused).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    expect(order.filter((o) => o.includes('secret'))).toEqual([]);
  });

  it('retries a Cloudflare challenge once with a plain User-Agent', async () => {
    const r = await webFetch({ url: `${base}/cf` });
    expect(r).toMatchObject({ content: 'through', retriedWithPlainUserAgent: true });
  });

  it('reports HTTP errors and binary bodies plainly', async () => {
    await expect(webFetch({ url: `${base}/missing` })).rejects.toMatchObject({ code: 'FETCH_FAILED', message: `${base}/missing answered HTTP 404 Not Found.` });
    const png = await webFetch({ url: `${base}/png` });
    expect(png).toMatchObject({ binary: true, content: '[binary content (image/png, 7 bytes) not shown]' });
  });

  it('wraps content in nonce markers the page cannot forge', async () => {
    const r = await webFetch({ url: `${base}/plain` });
    const text = formatWebFetch(r);
    const m = /<<<untrusted-web-content ([0-9a-f]{12})>>>\njust text\n\n<<<end-untrusted-web-content \1>>>$/.exec(text);
    expect(m).not.toBeNull();
    expect(text).toMatch(/^URL: http:\/\/127\.0\.0\.1:\d+\/plain\n/);
  });
});

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.20.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['fd12::1', 'private'],
    ['169.254.169.254', 'metadata'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['0.0.0.0', 'reserved'],
    ['8.8.8.8', null],
    ['2606:4700::1111', null],
  ])('%s → %s', (ip, cls) => {
    expect(classifyAddress(ip)).toBe(cls);
  });
});

describe('knownPrivateAddress (no lookup)', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1 (loopback)'],
    ['[::1]', '::1 (loopback)'],
    ['169.254.169.254', '169.254.169.254 (metadata)'],
    ['LOCALHOST', 'localhost (loopback)'],
    ['app.localhost', 'app.localhost (loopback)'],
    ['metadata.google.internal', 'metadata.google.internal (metadata)'],
    ['8.8.8.8', null],
    ['example.com', null],
  ])('%s → %s', (host, known) => {
    expect(knownPrivateAddress(host)).toBe(known);
  });
});
