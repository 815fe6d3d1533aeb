// The proxy's refusal of this machine and private networks is a class, not a list of examples:
// generated private addresses and names that resolve to this machine, under generated rules,
// pass only when a rule names the host exactly. Only 127.0.0.1 is ever connected to.
import fc from 'fast-check';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decideHost } from '../../permissions/hostRules';
import type { SourcedRule } from '../../permissions/types';
import { FilteringProxy, splitAuthority } from './proxy';
import type { NetworkGuard } from './types';

let upstream: net.Server;
let upstreamPort: number;
let accepted = 0;

beforeAll(async () => {
  upstream = net.createServer((s) => {
    accepted++;
    s.end();
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  upstreamPort = (upstream.address() as net.AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => upstream.close(() => r())));

/** The real host rules for `curl x`; an ask is answered no (nobody is there). */
function guard(hosts: string[]): NetworkGuard {
  const rules: SourcedRule[] = [{ kind: 'network', pattern: 'curl *', action: 'allow', hosts, source: 'user', origin: 'test' }];
  return {
    decide: async (t) => {
      const d = decideHost(['curl x'], rules, t);
      return { allowed: d.action === 'allow', named: d.named, reason: d.reason };
    },
  };
}

/** One CONNECT through a fresh proxy: the status line's code. */
async function connect(hosts: string[], target: string): Promise<number> {
  const proxy = new FilteringProxy(guard(hosts), new AbortController().signal, async (h) => (h.endsWith('.test') ? [{ address: '127.0.0.1', family: 4 }] : []));
  const [a, b] = await socketPair();
  proxy.handle(b);
  a.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
  const head = await new Promise<string>((resolve) => {
    let got = '';
    a.on('data', (d) => {
      got += d;
      if (got.includes('\r\n')) resolve(got);
    });
    a.on('close', () => resolve(got));
  });
  a.destroy();
  proxy.close();
  return Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1] ?? 0);
}

function socketPair(): Promise<[net.Socket, net.Socket]> {
  return new Promise((resolve) => {
    const srv = net.createServer((b) => {
      srv.close();
      resolve([a, b]);
    });
    let a: net.Socket;
    srv.listen(0, '127.0.0.1', () => (a = net.connect((srv.address() as net.AddressInfo).port, '127.0.0.1')));
  });
}

const octet = fc.integer({ min: 0, max: 255 });
const privateV4 = fc.oneof(
  fc.tuple(octet, octet, octet).map(([b, c, d]) => `127.${b}.${c}.${d}`),
  fc.tuple(octet, octet, octet).map(([b, c, d]) => `10.${b}.${c}.${d}`),
  fc.tuple(fc.integer({ min: 16, max: 31 }), octet, octet).map(([b, c, d]) => `172.${b}.${c}.${d}`),
  fc.tuple(octet, octet).map(([c, d]) => `192.168.${c}.${d}`),
  fc.tuple(octet, octet).map(([c, d]) => `169.254.${c}.${d}`),
  fc.tuple(fc.integer({ min: 64, max: 127 }), octet, octet).map(([b, c, d]) => `100.${b}.${c}.${d}`),
);
const privateV6 = fc.constantFrom('[::1]', '[fe80::1]', '[fc00::5]', '[fd12:3456::1]', '[::ffff:127.0.0.1]', '[::ffff:10.1.2.3]', '[::]');
const names = fc.constantFrom('named.test', 'other.test', 'wild.test', 'localhost', 'metadata.google.internal');
const patterns = fc.subarray(['*', '*.test', 'named.test', '*.example.com', 'wild.test', '10.*'], { minLength: 1 });

describe('FilteringProxy', () => {
  it('splits CONNECT authorities, IPv6 in brackets', () => {
    expect(splitAuthority('a.test:443')).toEqual({ host: 'a.test', port: 443 });
    expect(splitAuthority('[::1]:80')).toEqual({ host: '::1', port: 80 });
    expect(splitAuthority('a.test')).toBeNull();
    expect(splitAuthority('a.test:0')).toBeNull();
  });

  it('an address of this machine or a private network passes only when a rule names that host exactly', async () => {
    await fc.assert(
      fc.asyncProperty(patterns, fc.oneof(privateV4, privateV6, names), async (hosts, host) => {
        const before = accepted;
        const code = await connect(hosts, `${host}:${upstreamPort}`);
        // Only .test names resolve here (to 127.0.0.1); a literal is never named by these rules.
        const named = host.endsWith('.test') && hosts.includes(host);
        expect(code, `${host} under ${JSON.stringify(hosts)}`).toBe(named ? 200 : 403);
        if (!named) expect(accepted).toBe(before);
      }),
      { numRuns: 80 },
    );
  });
});
