// The one reader of .loupe/config.json: every consumer's key from one reading, problems said once
// with line and column, changes picked up, and what the file grants held back until trusted.
import { mkdir, rm, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/support/tmp';
import { testTrust, type TestTrust } from '../../../../test/support/trust';
import { describeProblem, type ConfigProblem } from '../config/validate';
import { commandLine, type McpServerDecl } from '../config/mcpServers';
import fc from 'fast-check';
import { ProjectConfig } from './projectConfig';
import { configDigest, readTrustState, trustDigest, trustOf } from './trust';
import { PERMISSION_ACTIONS, PERMISSION_KINDS } from './types';

let root: string;
let cleanup: () => Promise<void>;
let user: TestTrust;
let said: string[];
let reader: ProjectConfig;
let tick = 0;

beforeEach(async () => {
  ({ dir: root, cleanup } = await tempDir('loupe-project-config-'));
  await mkdir(path.join(root, '.loupe'));
  user = testTrust();
  said = [];
  reader = new ProjectConfig(root, user.store, { report: (p: ConfigProblem) => said.push(describeProblem(p)) });
});
afterEach(async () => {
  user.cleanup();
  await cleanup();
});

/** Writes the config with a fresh mtime, so the change check sees every write. */
async function write(doc: string): Promise<void> {
  const file = path.join(root, '.loupe/config.json');
  await writeFile(file, doc);
  const t = new Date(Date.now() + ++tick * 2000);
  await utimes(file, t, t);
}

const BROKEN = `{
  "search": { "exclude": ["dist/**"], "include": ["x"] },
  "colour": true,
  "permissions": [
    { "kind": "bash", "pattern": "npm test", "action": "allow" },
    { "kind": "bash", "pattern": "rm *", "action": "nope" },
    { "kind": "bash", "pattern": "git push*", "action": "deny" }
  ],
  "tests": { "typescript": "npx vitest run", "go": "" },
  "limits": { "test_timeout_ms": 5000, "max_file_bytes": -1 },
  "edits": { "mode": "ask" }
}`;

describe('ProjectConfig, the one reader', () => {
  it('an unknown key and a malformed rule: every good key applies, each problem is said once with line:column', async () => {
    await write(BROKEN);
    await user.trust(root);
    const r = await reader.load();
    expect(r.config.search).toEqual({ exclude: ['dist/**'] });
    expect(r.rules.map((x) => `${x.action} ${x.pattern} ${x.origin}`)).toEqual(['allow npm test .loupe/config.json permissions[0]', 'deny git push* .loupe/config.json permissions[2]']);
    expect(r.tests).toEqual({ typescript: 'npx vitest run' });
    expect(r.config.limits).toEqual({ test_timeout_ms: 5000 });
    expect(r.editsMode).toBe('ask');
    expect(said).toEqual([
      expect.stringMatching(/^\.loupe\/config\.json:2:39: search\.include: unknown key/),
      expect.stringMatching(/^\.loupe\/config\.json:3:3: colour: unknown key/),
      expect.stringMatching(/^\.loupe\/config\.json:6:42: permissions\[1\]\.action: /),
      expect.stringMatching(/^\.loupe\/config\.json:9:46: tests\.go: /),
      expect.stringMatching(/^\.loupe\/config\.json:10:40: limits\.max_file_bytes: /),
    ]);
    expect(r.problems.map(describeProblem)).toEqual(said);

    // Read again, and again after a change that keeps the problems: nothing new to say.
    await reader.load();
    await write(BROKEN.replace('"npm test"', '"npm run test"'));
    await user.trust(root);
    expect((await reader.load()).rules[0].pattern).toBe('npm run test');
    expect(said).toHaveLength(5);

    // Fixed, then made again: said again.
    await write(BROKEN.replace('"colour": true,', ''));
    await reader.load();
    await write(BROKEN);
    await reader.load();
    expect(said.filter((s) => s.includes('colour'))).toHaveLength(2);
  });

  it('untrusted: allow rules and test commands are held back; excludes, deny rules and limits still apply', async () => {
    await write(BROKEN);
    const r = await reader.load();
    expect(r.trusted).toBe(false);
    expect(r.rules.map((x) => x.pattern)).toEqual(['git push*']);
    expect(r.tests).toBeUndefined();
    expect(r.config.tests).toBeUndefined();
    expect(r.config.permissions?.map((x) => x.action)).toEqual(['deny']);
    expect(r.config.search).toEqual({ exclude: ['dist/**'] });
    expect(r.config.limits).toEqual({ test_timeout_ms: 5000 });
    expect(r.ignored?.rules.map((x) => x.pattern)).toEqual(['npm test']);
  });

  it('an unreadable edits.mode errs on the careful side: every edit asks', async () => {
    await write('{ "edits": { "mode": "sometimes" }, "search": { "exclude": ["out"] } }');
    const r = await reader.load();
    expect(r.editsMode).toBe('ask');
    expect(r.config.search?.exclude).toEqual(['out']);
    expect(said).toEqual([expect.stringMatching(/^\.loupe\/config\.json:1:14: edits\.mode: /)]);
  });

  it('the trust prompt lists exactly what the trusted reader applies; untrusted, none of it applies (generated configs)', async () => {
    const good = fc.record({ kind: fc.constantFrom(...PERMISSION_KINDS), pattern: fc.constantFrom('npm test', 'rm *', '.env', 'https://x.test/*'), action: fc.constantFrom(...PERMISSION_ACTIONS) });
    const item = fc.oneof(
      good,
      good.map((r) => ({ ...r, note: 'an unknown key beside a good rule' })),
      good.map((r) => ({ ...r, kind: 'shell' })),
      good.map((r) => ({ ...r, pattern: '' })),
      good.map(({ kind, pattern }) => ({ kind, pattern })),
      fc.constantFrom<unknown>('allow everything', 7, null, []),
    );
    const tests = fc.dictionary(fc.constantFrom('typescript', 'go', 'python'), fc.oneof(fc.constantFrom('npx vitest run', 'go test ./...'), fc.constantFrom<unknown>('', 3, null)));
    const server = fc.oneof(
      fc.record({ command: fc.constantFrom('node', 'npx'), args: fc.array(fc.constantFrom('srv.js', '-y', 'a b'), { maxLength: 2 }) }, { requiredKeys: ['command'] }),
      fc.record({ url: fc.constantFrom('https://mcp.example.com/mcp', 'http://127.0.0.1:9/mcp') }),
      fc.constantFrom<unknown>({ command: 'x', url: 'https://x.test' }, { args: [] }, 'npx srv'),
    );
    const servers = fc.dictionary(fc.constantFrom('a', 'b', 'gh', 'bad name'), server, { maxKeys: 3 });
    const doc = fc.record({ permissions: fc.array(item, { maxLength: 6 }), tests, mcpServers: servers, zz: fc.integer() }, { requiredKeys: [] });
    const mcpDoc = fc.option(fc.record({ mcpServers: servers }), { nil: undefined });
    await fc.assert(
      fc.asyncProperty(doc, mcpDoc, fc.boolean(), async (d, m, trusted) => {
        const text = JSON.stringify(d, null, 2);
        await write(text);
        const mcpFile = path.join(root, '.mcp.json');
        await rm(mcpFile, { force: true });
        if (m) await writeFile(mcpFile, JSON.stringify(m));
        const files = { config: Buffer.from(text), mcp: m ? Buffer.from(JSON.stringify(m)) : null };
        const store = { trustedDigest: () => (trusted ? trustDigest(files) : null), trust: async () => undefined };
        const r = await new ProjectConfig(root, store).load();
        const grants = trustOf(root, files, store).grants;
        const servers = (list?: McpServerDecl[]) => (list ?? []).map((x) => ({ name: x.name, file: x.file, target: commandLine(x.entry) }));
        const applied = r.rules.filter((x) => x.action === 'allow').map(({ kind, pattern, action }) => ({ kind, pattern, action }));
        if (trusted) {
          expect(applied).toEqual(grants.allow);
          expect(Object.entries(r.tests ?? {}).map(([language, command]) => ({ language, command }))).toEqual(grants.tests);
          expect(servers(r.mcpServers)).toEqual(grants.mcp);
        } else {
          expect(r.mcpServers).toBeUndefined();
          expect(servers(r.ignored?.mcpServers)).toEqual(grants.mcp);
          expect(applied).toEqual([]);
          expect(r.tests).toBeUndefined();
          expect(r.config.tests).toBeUndefined();
          expect(r.config.permissions?.some((x) => x.action === 'allow') ?? false).toBe(false);
          expect(r.ignored?.rules.map(({ kind, pattern, action }) => ({ kind, pattern, action })) ?? []).toEqual(grants.allow);
        }
      }),
      { numRuns: 100 },
    );
  });
});

describe('.mcp.json: the repository servers, under the same trust', () => {
  const writeMcp = async (doc: unknown) => {
    const file = path.join(root, '.mcp.json');
    await writeFile(file, typeof doc === 'string' ? doc : JSON.stringify(doc, null, 2));
    const t = new Date(Date.now() + ++tick * 2000);
    await utimes(file, t, t);
  };
  const names = (r: { mcpServers?: { name: string }[] }) => (r.mcpServers ?? []).map((s) => s.name);

  it('a clone with only .mcp.json starts nothing until the folder is trusted with those bytes', async () => {
    await writeMcp({ mcpServers: { marker: { command: 'node', args: ['marker.js'] } } });
    const untrusted = await reader.load();
    expect(names(untrusted)).toEqual([]);
    expect(untrusted.trusted).toBe(false);
    expect(untrusted.ignored?.mcpServers?.map((s) => s.name)).toEqual(['marker']);
    const state = await readTrustState(root, user.store);
    expect(state).toMatchObject({ trusted: false, needed: true, grants: { mcp: [{ name: 'marker', file: '.mcp.json', target: 'node marker.js' }] } });

    await user.trust(root);
    expect(names(await reader.load())).toEqual(['marker']);
    // One byte more anywhere in either file, and it is a different program to trust.
    await writeMcp({ mcpServers: { marker: { command: 'node', args: ['marker.js', '-x'] } } });
    expect(names(await reader.load())).toEqual([]);
    await user.trust(root);
    await write('{"edits": {"mode": "review"}}');
    expect(names(await reader.load())).toEqual([]);
  });

  it('.loupe/config.json names a server first; the same name in .mcp.json is reported where it is written', async () => {
    await write(JSON.stringify({ mcpServers: { a: { command: 'own' } } }));
    await writeMcp('{\n  "mcpServers": {\n    "a": { "command": "theirs" },\n    "b": { "url": "https://mcp.example.com/mcp" }\n  }\n}');
    await user.trust(root);
    const r = await reader.load();
    expect(r.mcpServers?.map((s) => `${s.name} ${s.file} ${s.entry.command ?? s.entry.url}`)).toEqual(['a .loupe/config.json own', 'b .mcp.json https://mcp.example.com/mcp']);
    expect(said).toContain('.mcp.json:3:5: mcpServers.a: .loupe/config.json also names a server "a"; that one is used');
  });

  it('trust given before .mcp.json was read still holds for a folder without one', async () => {
    await write('{"permissions": [{"kind": "bash", "pattern": "make", "action": "allow"}]}');
    const text = '{"permissions": [{"kind": "bash", "pattern": "make", "action": "allow"}]}';
    expect(trustDigest({ config: Buffer.from(text), mcp: null })).toBe(configDigest(text));
    expect(trustDigest({ config: null, mcp: null })).toBeNull();
    expect(trustDigest({ config: null, mcp: Buffer.from('{}') })).not.toBe(trustDigest({ config: Buffer.from(''), mcp: Buffer.from('{}') }));
  });

  it('an "allow always" saved into config.json keeps a trusted folder trusted, .mcp.json and all', async () => {
    await writeMcp({ mcpServers: { s: { command: 'srv' } } });
    await write('{"edits": {"mode": "review"}}');
    await user.trust(root);
    await reader.addRules([{ kind: 'bash', pattern: 'make', action: 'allow' }]);
    const r = await reader.load();
    expect(names(r)).toEqual(['s']);
    expect(r.rules.map((x) => x.pattern)).toEqual(['make']);
  });

  it('an untrusted .mcp.json stays untrusted when Loupe writes the first config.json', async () => {
    await writeMcp({ mcpServers: { s: { command: 'srv' } } });
    await reader.setEditsMode('ask');
    expect(names(await reader.load())).toEqual([]);
    expect((await readTrustState(root, user.store)).trusted).toBe(false);
  });
});
