// `mcpServers` in the one config schema: servers taken whole or not at all, each problem where it
// is written (generated files with planted faults, as every key is checked), names fit for tool
// names, a repository's `sandbox` refused, `${env:VAR}` expanded or named when missing, and the
// command line and digest an approval card shows and remembers.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseLoupeConfig } from './loupeConfig';
import { McpJsonSchema, commandLine, declaredServers, describeServer, expandEnv, MissingEnvError, serverDigest, type McpServerEntry } from './mcpServers';
import { checkText, type ConfigProblem } from './validate';

const stdio = fc.record(
  {
    command: fc.constantFrom('npx', 'node', '/usr/local/bin/srv', 'uvx'),
    args: fc.array(fc.constantFrom('-y', '@modelcontextprotocol/server-everything', 'server.js', 'a b', "it's"), { maxLength: 3 }),
    env: fc.dictionary(fc.constantFrom('TOKEN', 'DEBUG'), fc.constantFrom('${env:GITHUB_TOKEN}', '1')),
    timeout_ms: fc.integer({ min: 1, max: 120_000 }),
    network: fc.record({ hosts: fc.array(fc.constantFrom('api.github.com', '*.example.com'), { maxLength: 2 }) }),
  },
  { requiredKeys: ['command'] },
);
const remote = fc.record({ url: fc.constantFrom('https://mcp.example.com/mcp', 'http://127.0.0.1:3001/mcp'), headers: fc.dictionary(fc.constantFrom('Authorization'), fc.constant('Bearer ${env:T}')), type: fc.constantFrom('http', 'sse') }, { requiredKeys: ['url'] });
const name = fc.stringMatching(/^[a-z][a-z0-9_-]{0,10}$/);

interface Fault {
  plant: (servers: Record<string, Record<string, unknown>>) => void;
  /** What the text shows at the reported line and column. */
  at: RegExp;
  /** The server it spoils (ignored whole), if any. */
  spoils?: string;
}

const fault = (n: number): fc.Arbitrary<Fault> =>
  fc.oneof(
    fc.constant<Fault>({ plant: (s) => void (s[`both${n}`] = { command: 'x', url: 'https://x.test/mcp' }), at: new RegExp(`^"both${n}"`), spoils: `both${n}` }),
    fc.constant<Fault>({ plant: (s) => void (s[`none${n}`] = { args: ['x'] }), at: new RegExp(`^"none${n}"`), spoils: `none${n}` }),
    fc.constant<Fault>({ plant: (s) => void (s[`hdr${n}`] = { command: 'x', headers: { A: 'b' } }), at: /^"headers"/, spoils: `hdr${n}` }),
    fc.constant<Fault>({ plant: (s) => void (s[`argt${n}`] = { command: 'x', args: 'not a list' }), at: /^"args"/, spoils: `argt${n}` }),
    fc.constant<Fault>({ plant: (s) => void (s[`bad name ${n}`] = { command: 'x' }), at: new RegExp(`^"bad name ${n}"`), spoils: `bad name ${n}` }),
    // An unknown key is reported and the server stands.
    fc.constant<Fault>({ plant: (s) => void (s[`extra${n}`] = { command: 'x', autoApprove: [] }), at: /^"autoApprove"/ }),
  );

const offsetOf = (text: string, p: ConfigProblem) => text.split('\n').slice(0, p.line! - 1).reduce((a, l) => a + l.length + 1, 0) + p.column! - 1;

describe('mcpServers, key by key', () => {
  it('keeps every good server whole, ignores each spoiled one, and says where every problem is written', () => {
    fc.assert(
      fc.property(fc.dictionary(name, fc.oneof(stdio, remote), { maxKeys: 4 }), fc.array(fc.nat(), { minLength: 1, maxLength: 3 }).chain((ns) => fc.tuple(...ns.map((_, i) => fault(i)))), fc.boolean(), (good, faults, asMcpJson) => {
        const servers: Record<string, Record<string, unknown>> = structuredClone(good);
        for (const f of faults) f.plant(servers);
        const text = JSON.stringify(asMcpJson ? { mcpServers: servers } : { edits: { mode: 'review' }, mcpServers: servers }, null, 2);
        const checked = asMcpJson ? checkText(text, McpJsonSchema, '.mcp.json') : parseLoupeConfig(text);
        const decl = declaredServers(checked.value.mcpServers, 'project', asMcpJson ? '.mcp.json' : '.loupe/config.json', text);
        const problems = [...checked.problems, ...decl.problems];
        const kept = Object.fromEntries(decl.servers.map((d) => [d.name, d.entry]));
        for (const [n, entry] of Object.entries(good)) expect(kept[n]).toEqual(entry);
        for (const f of faults) {
          if (f.spoils) expect(kept[f.spoils]).toBeUndefined();
          expect(problems.filter((p) => p.line !== null && f.at.test(text.slice(offsetOf(text, p)))).length, `${f.at} in ${JSON.stringify(problems)}`).toBeGreaterThanOrEqual(1);
        }
        // Exactly the planted problems, nothing about the good servers.
        for (const p of problems) expect(Object.keys(good).some((g) => p.message.startsWith(`mcpServers.${g}:`) || p.message.startsWith(`mcpServers.${g}.`))).toBe(false);
      }),
      { numRuns: 200 },
    );
  });

  it('a repository cannot take its server out of the sandbox; the person can', () => {
    const text = '{\n  "mcpServers": {\n    "x": { "command": "srv", "sandbox": false }\n  }\n}';
    const value = checkText(text, McpJsonSchema, '.mcp.json').value.mcpServers;
    const repo = declaredServers(value, 'project', '.mcp.json', text);
    expect(repo.servers[0].entry.sandbox).toBeUndefined();
    expect(repo.problems).toEqual([expect.objectContaining({ file: '.mcp.json', line: 3, message: expect.stringContaining('only your own settings') })]);
    expect(declaredServers(value, 'user', 'settings.json', text).servers[0].entry.sandbox).toBe(false);
  });

  it('expands ${env:VAR} in env and headers, and names a variable that is not set', () => {
    expect(expandEnv({ A: 'Bearer ${env:T}', B: '${env:T}-${env:U}', C: 'plain $T ${T}' }, { T: 't0k', U: 'u' }, 'mcpServers.x.headers')).toEqual({ A: 'Bearer t0k', B: 't0k-u', C: 'plain $T ${T}' });
    expect(() => expandEnv({ A: '${env:NOPE}' }, {}, 'mcpServers.x.env')).toThrow(MissingEnvError);
    expect(() => expandEnv({ A: '${env:NOPE}' }, {}, 'mcpServers.x.env')).toThrow(/mcpServers\.x\.env\.A uses \$\{env:NOPE\}/);
  });

  it('shows the exact command line, quoted as a shell reads it, and everything else that decides what runs', () => {
    const entry: McpServerEntry = { command: 'npx', args: ['-y', '@x/server', 'a b', "it's"], env: { TOKEN: '${env:GH}' }, network: { hosts: ['api.github.com'] } };
    expect(commandLine(entry)).toBe(`npx -y @x/server 'a b' 'it'\\''s'`);
    expect(describeServer({ name: 'x', source: 'project', file: '.mcp.json', entry })).toBe(`npx -y @x/server 'a b' 'it'\\''s'\nenv TOKEN=\${env:GH}\nnetwork: api.github.com`);
    expect(commandLine({ url: 'https://mcp.example.com/mcp' })).toBe('https://mcp.example.com/mcp');
  });

  it('says where the server will run here: inside the sandbox and its network, or outside and why, never both', () => {
    const entry: McpServerEntry = { command: 'node', args: ['s.js'] };
    const decl = (e: McpServerEntry) => ({ name: 'x', source: 'project' as const, file: '.mcp.json', entry: e });
    expect(describeServer(decl(entry), { sandboxed: true })).toContain('runs inside the OS sandbox: writes only in the workspace; no network');
    expect(describeServer(decl({ ...entry, network: { hosts: ['api.example.com'] } }), { sandboxed: true })).toContain('network only to api.example.com');
    const outside = describeServer(decl({ ...entry, network: { hosts: ['api.example.com'] } }), { sandboxed: false, why: 'no OS sandbox works on this machine' });
    expect(outside).toContain('runs OUTSIDE the sandbox (no OS sandbox works on this machine): it can read and write what you can and reach any network');
    expect(outside).not.toMatch(/no network|inside the OS sandbox/);
    // A remote server is not a program here: nothing is said about a sandbox.
    expect(describeServer(decl({ url: 'https://mcp.example.com/mcp' }), { sandboxed: false, why: 'off' })).toBe('https://mcp.example.com/mcp');
  });

  it('names a configuration by what runs: key order aside, any change to it asks again', () => {
    fc.assert(
      fc.property(stdio, (entry) => {
        const d = (e: McpServerEntry) => serverDigest({ name: 's', source: 'project', file: '.mcp.json', entry: e });
        const reordered = Object.fromEntries(Object.entries(entry).reverse()) as McpServerEntry;
        expect(d(reordered)).toBe(d(entry));
        expect(d({ ...entry, args: [...(entry.args ?? []), '--more'] })).not.toBe(d(entry));
        expect(d({ ...entry, env: { ...entry.env, EXTRA: '1' } })).not.toBe(d(entry));
        // How long a call may take changes nothing that runs.
        expect(d({ ...entry, timeout_ms: 5 })).toBe(d({ ...entry, timeout_ms: 9 }));
      }),
    );
  });
});
