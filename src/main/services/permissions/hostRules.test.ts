// `hosts` entries with ports, and which ports of this machine a command's rules forward into its
// sandbox: only an exact loopback name with its port, in an allow (or ask) rule for the command,
// with the network grant, less what a deny rule covers. Generated rules against a model.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { commandHostPorts, decideHost, hostMatches, hostPortAdvice, loopbackAddresses, serverHostPorts } from './hostRules';
import { parseHostEntry } from './hostEntry';
import { PermissionRuleSchema, type SourcedRule } from './types';

const src = (r: Omit<SourcedRule, 'source' | 'origin' | 'kind'>): SourcedRule => ({ kind: 'network', source: 'user', origin: 'test', ...r });

describe('hosts entries', () => {
  it.each([
    ['registry.npmjs.org', { host: 'registry.npmjs.org', port: null }],
    ['Example.COM:8443', { host: 'example.com', port: 8443 }],
    ['*.github.com', { host: '*.github.com', port: null }],
    ['*:443', { host: '*', port: 443 }],
    ['127.0.0.1:5432', { host: '127.0.0.1', port: 5432 }],
    ['localhost:6379', { host: 'localhost', port: 6379 }],
    ['[::1]:8080', { host: '::1', port: 8080 }],
    ['[::1]', { host: '::1', port: null }],
    ['::1', { host: '::1', port: null }],
  ])('%s', (entry, want) => expect(parseHostEntry(entry)).toEqual(want));

  it.each(['127.0.0.1:', '127.0.0.1:0', '127.0.0.1:65536', '127.0.0.1:05432', 'localhost:db', 'http://example.com', ':5432', '[::1]:x', '[nothost]:80', 'a:1:2'])('%s is not an entry', (entry) => {
    expect(parseHostEntry(entry)).toBeNull();
  });

  it('a rule with a bad entry is refused by the config schema, with a message that shows the forms', () => {
    const r = PermissionRuleSchema.safeParse({ kind: 'network', pattern: 'psql *', action: 'allow', hosts: ['127.0.0.1:5432', 'localhost:db'] });
    expect(r.success).toBe(false);
    expect(JSON.stringify(r.error?.issues)).toContain('\\"localhost:db\\" is not a host or host:port');
    expect(PermissionRuleSchema.safeParse({ kind: 'network', pattern: 'psql *', action: 'allow', hosts: ['127.0.0.1:5432', '[::1]:5432', 'localhost:6379', '*.npmjs.org'] }).success).toBe(true);
  });

  it('an entry with a port matches that port only; without, every port', () => {
    expect(hostMatches('db.test:5432', 'db.test', 5432)).toBe(true);
    expect(hostMatches('db.test:5432', 'db.test', 5433)).toBe(false);
    expect(hostMatches('db.test', 'db.test', 5433)).toBe(true);
    expect(hostMatches('*.test:443', 'a.test', 443)).toBe(true);
    expect(hostMatches('*.test:443', 'a.test', 80)).toBe(false);
    expect(hostMatches('[::1]:80', '::1', 80)).toBe(true);
  });

  it('loopback names: localhost is both addresses, a literal itself', () => {
    expect(loopbackAddresses('localhost')).toEqual(['127.0.0.1', '::1']);
    expect(loopbackAddresses('127.0.0.9')).toEqual(['127.0.0.9']);
    expect(loopbackAddresses('[::1]')).toEqual(['::1']);
    expect(loopbackAddresses('::ffff:127.0.0.1')).toEqual(['127.0.0.1']);
    for (const h of ['0.0.0.0', '10.0.0.1', '::', 'db.test', 'localhost.example.com', '*']) expect(loopbackAddresses(h)).toBeNull();
  });
});

describe('the proxy decides ports of this machine by the port too', () => {
  const rules = [src({ pattern: 'psql *', action: 'allow', hosts: ['127.0.0.1:5432'] })];
  it('the named port passes, named; another port of the same address asks, and "always" would name it with its port', () => {
    expect(decideHost(['psql x'], rules, { host: '127.0.0.1', port: 5432, privateAddress: '127.0.0.1 (loopback)' })).toMatchObject({ action: 'allow', named: true });
    const other = decideHost(['psql x'], rules, { host: '127.0.0.1', port: 22, privateAddress: '127.0.0.1 (loopback)' });
    expect(other).toMatchObject({ action: 'ask', always: [{ kind: 'network', pattern: 'psql *', action: 'allow', hosts: ['127.0.0.1:22'] }] });
  });
});

// The model, written from the rule's words rather than from the code.
const PORTS = [5432, 6379, 8080];
const entry = fc.oneof(
  fc.tuple(fc.constantFrom('127.0.0.1', 'localhost', '[::1]', '127.0.0.2'), fc.constantFrom(...PORTS)).map(([h, p]) => `${h}:${p}`),
  fc.tuple(fc.constantFrom('*', '10.0.0.1', 'db.test', '0.0.0.0', '[::]'), fc.constantFrom(...PORTS)).map(([h, p]) => `${h}:${p}`),
  fc.constantFrom('127.0.0.1', 'localhost', '::1', '*', 'db.test', '*.test'),
);
const rule = fc.record(
  { pattern: fc.constantFrom('psql *', 'node *', 'curl *'), action: fc.constantFrom<'allow' | 'ask' | 'deny'>('allow', 'allow', 'ask', 'deny'), hosts: fc.array(entry, { maxLength: 4 }) },
  { requiredKeys: ['pattern', 'action'] },
);
const LISTEN: Record<string, string[]> = { '127.0.0.1': ['127.0.0.1'], localhost: ['127.0.0.1', '::1'], '[::1]': ['::1'], '127.0.0.2': ['127.0.0.2'] };

describe('commandHostPorts', () => {
  it('forwards exactly the loopback entries with a port of the rules for the command, less what a deny rule covers; nothing without the grant', () => {
    fc.assert(
      fc.property(fc.array(rule, { maxLength: 5 }), fc.boolean(), (raw, granted) => {
        const rules = raw.map(src);
        const got = commandHostPorts(['psql -h x'], rules, granted);
        const mine = raw.filter((r) => r.pattern === 'psql *');
        const want = new Set<string>();
        if (granted) {
          for (const r of mine.filter((x) => x.action !== 'deny')) {
            for (const e of r.hosts ?? []) {
              const [h, p] = [e.slice(0, e.lastIndexOf(':')), e.slice(e.lastIndexOf(':') + 1)];
              for (const at of LISTEN[h] ?? []) {
                const denied = mine.some((x) => x.action === 'deny' && (!x.hosts || x.hosts.some((dh) => dh === e || dh === `${at.includes(':') ? `[${at}]` : at}:${p}` || dh === `*:${p}` || dh === '*' || dh === h.replace(/^\[|\]$/g, '') || dh === at)));
                if (!denied) want.add(`${at} ${p}`);
              }
            }
          }
        }
        expect(new Set(got.map((f) => `${f.listen} ${f.port}`))).toEqual(want);
        for (const f of got) {
          // Each connects only to loopback addresses of the name it came from, at its own port.
          expect(f.connect[0]).toBe(f.listen);
          for (const c of f.connect) expect(loopbackAddresses(f.host)).toContain(c);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("an MCP server's network.hosts: the same, less network deny rules for its command line", () => {
    const deny = [src({ pattern: 'node server.js', action: 'deny', hosts: ['localhost:6379'] })];
    expect(serverHostPorts('node server.js', ['127.0.0.1:5432', 'localhost:6379', '*:8080', 'db.test:1'], deny).map((f) => `${f.listen} ${f.port}`)).toEqual(['127.0.0.1 5432']);
  });
});

describe('hostPortAdvice', () => {
  it('names the rule to add for each command of the line that has none, with the port', () => {
    expect(hostPortAdvice(['psql -h 127.0.0.1'], [], '127.0.0.1', 5432).rules).toEqual([{ kind: 'network', pattern: 'psql *', action: 'allow', hosts: ['127.0.0.1:5432'] }]);
    expect(hostPortAdvice(['psql -h x'], [src({ pattern: 'psql *', action: 'allow', hosts: ['a.test'] })], '::1', 5432).rules).toEqual([{ kind: 'network', pattern: 'psql *', action: 'allow', hosts: ['[::1]:5432'] }]);
    const deny = src({ pattern: 'psql *', action: 'deny' });
    expect(hostPortAdvice(['psql -h x'], [deny], '127.0.0.1', 5432)).toMatchObject({ rules: [], deniedBy: deny });
  });
});
