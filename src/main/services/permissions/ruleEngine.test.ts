import fc from 'fast-check';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/support/tmp';
import { testTrust, type TestTrust } from '../../../../test/support/trust';
import { explainDecision } from './explain';
import { matchCommand, matchPath, matchUrl } from './patterns';
import { ProjectConfig } from './projectConfig';
import { PermissionEngine } from './ruleEngine';
import type { PermissionRule } from './types';

let root: string;
let cleanup: () => Promise<void>;
let userRules: PermissionRule[];
let editsMode: 'review' | 'ask';
let user: TestTrust;

async function engineWith(project: PermissionRule[]): Promise<PermissionEngine> {
  await mkdir(path.join(root, '.loupe'), { recursive: true });
  await writeFile(path.join(root, '.loupe', 'config.json'), JSON.stringify({ permissions: project }));
  // The rules are the subject here, so the folder is trusted with them.
  await user.trust(root);
  return new PermissionEngine({ root, project: new ProjectConfig(root, user.store), userRules: () => userRules, editsMode: () => editsMode });
}

beforeEach(async () => {
  ({ dir: root, cleanup } = await tempDir('loupe-engine-'));
  user = testTrust();
  userRules = [];
  editsMode = 'review';
});
afterEach(async () => {
  user.cleanup();
  await cleanup();
});

describe('patterns', () => {
  // [matcher, pattern, candidate, matches]
  const cases: [typeof matchCommand, string, string, boolean][] = [
    // Commands: `*` is any text, a trailing " *" also matches the bare command.
    [matchCommand, 'git status', 'git status', true],
    [matchCommand, 'git status', 'git status -s', false],
    [matchCommand, 'git *', 'git', true],
    [matchCommand, 'git *', 'gitk', false],
    [matchCommand, 'npm run test:*', 'npm run test:unit -- -t x', true],
    [matchCommand, 'a.b', 'axb', false],
    // Paths: * stays in a folder, ** crosses, dir/** includes dir, {a,b} alternates.
    [matchPath, 'src/*.ts', 'src/a.ts', true],
    [matchPath, 'src/*.ts', 'src/x/a.ts', false],
    [matchPath, 'src/**', 'src/x/a.ts', true],
    [matchPath, 'src/**', 'src', true],
    [matchPath, 'src/**', 'srcx/a', false],
    [matchPath, '**/*.{pem,key}', 'a/b/c.key', true],
    [matchPath, '**/*.{pem,key}', 'c.pem', true],
    // URLs: `*` crosses slashes.
    [matchUrl, 'http://127.0.0.1*', 'http://127.0.0.1:8080/a/b', true],
    [matchUrl, 'https://docs.example.com/*', 'https://docs.example.com.evil/x', false],
  ];
  it.each(cases)('%o %s ~ %s → %s', (match, pattern, candidate, expected) => {
    expect(match(pattern, candidate)).toBe(expected);
  });
});

describe('PermissionEngine', () => {
  it('defaults are not rules: read/edit inside allow, bash/webfetch/outside ask, and any rule beats them', async () => {
    const engine = await engineWith([]);
    expect(await engine.decide({ kind: 'read', path: 'src/a.ts' })).toMatchObject({ action: 'allow', rule: null });
    expect(await engine.decide({ kind: 'edit', path: 'src/a.ts' })).toMatchObject({ action: 'allow', rule: null });
    expect(await engine.decide({ kind: 'bash', command: 'ls' })).toMatchObject({ action: 'ask', rule: null, reason: 'ls: no rule matches, so the default for bash applies (ask)' });
    expect(await engine.decide({ kind: 'webfetch', url: 'https://example.com/' })).toMatchObject({ action: 'ask', rule: null });
    expect(await engine.decide({ kind: 'read', path: '/etc/hosts' })).toMatchObject({ action: 'ask', kind: 'external_directory', rule: null });
    expect(await engine.decide({ kind: 'test', command: 'npx vitest run' })).toMatchObject({ action: 'ask', rule: null });

    const denyRead = await engineWith([{ kind: 'read', pattern: 'secrets/**', action: 'deny' }]);
    expect(await denyRead.decide({ kind: 'read', path: 'secrets/prod.env' })).toMatchObject({ action: 'deny', rule: { pattern: 'secrets/**' } });
  });

  it('readDecider gives every path the action decide({kind: read}) gives it (generated rules and paths)', async () => {
    const engine = await engineWith([]);
    const name = fc.constantFrom('src', '.env', 'secrets', 'a.pem', 'Deep', 'x.y', 'ENV', 'node_modules');
    const rel = fc.array(name, { minLength: 1, maxLength: 4 }).map((s) => s.join('/'));
    const pattern = fc.oneof(
      rel,
      name,
      name.map((n) => `**/${n}`),
      name.map((n) => `${n}/**`),
      name.map((n) => `*${n.slice(-3)}`),
      name.map((n) => `./${n}`),
      rel.map((r) => path.join(root, r)),
      rel.map((r) => `${path.join(root, r)}/**`),
    );
    const rule = fc.record({ kind: fc.constantFrom('read' as const, 'edit' as const), pattern, action: fc.constantFrom('allow' as const, 'ask' as const, 'deny' as const) });
    await fc.assert(
      fc.asyncProperty(fc.array(rule, { maxLength: 5 }), fc.array(rel, { minLength: 1, maxLength: 8 }), async (rules, paths) => {
        userRules = rules;
        const { actionFor, limited } = await engine.readDecider();
        expect(limited).toBe(rules.some((r) => r.kind === 'read' && r.action !== 'allow'));
        for (const p of paths) expect(actionFor(p), `${p} under ${JSON.stringify(rules)}`).toBe((await engine.decide({ kind: 'read', path: p })).action);
      }),
      { numRuns: 400, seed: 14 },
    );
  });

  it('deny beats ask beats allow, whichever file each rule comes from', async () => {
    userRules = [{ kind: 'bash', pattern: 'npm *', action: 'deny' }];
    const engine = await engineWith([
      { kind: 'bash', pattern: 'npm run *', action: 'allow' },
      { kind: 'bash', pattern: 'npm run lint', action: 'ask' },
    ]);
    const d = await engine.decide({ kind: 'bash', command: 'npm run lint' });
    expect(d).toMatchObject({ action: 'deny', rule: { source: 'user', origin: 'user settings permissions[0]' } });
    userRules = [];
    expect((await engine.decide({ kind: 'bash', command: 'npm run lint' })).action).toBe('ask');
    expect((await engine.decide({ kind: 'bash', command: 'npm run build' })).action).toBe('allow');
  });

  it('edits ask in "ask before every edit" mode, still by default', async () => {
    const engine = await engineWith([]);
    editsMode = 'ask';
    expect(await engine.decide({ kind: 'edit', path: 'a.ts' })).toMatchObject({ action: 'ask', rule: null, always: [{ kind: 'edit', pattern: 'a.ts', action: 'allow' }] });
  });

  it('edits.mode "ask" in .loupe/config.json turns edits into asks; an allow rule for a file still wins', async () => {
    await mkdir(path.join(root, '.loupe'), { recursive: true });
    const write = (doc: unknown) => writeFile(path.join(root, '.loupe', 'config.json'), JSON.stringify(doc));
    const engine = new PermissionEngine({ root, project: new ProjectConfig(root, user.store) });
    await write({ edits: { mode: 'ask' }, permissions: [{ kind: 'edit', pattern: 'docs/**', action: 'allow' }] });
    await user.trust(root);
    const d = await engine.decide({ kind: 'edit', path: 'src/a.ts' });
    expect(d).toMatchObject({ action: 'ask', rule: null, always: [{ kind: 'edit', pattern: 'src/a.ts', action: 'allow' }] });
    expect(d.reason).toContain('edits.mode is "ask"');
    expect((await engine.decide({ kind: 'edit', path: 'docs/x.md' })).action).toBe('allow');
    // Reads are not edits; a typo in the mode asks rather than silently writing.
    expect((await engine.decide({ kind: 'read', path: 'src/a.ts' })).action).toBe('allow');
    await write({ edits: { mode: 'akс' } });
    expect((await engine.decide({ kind: 'edit', path: 'src/a.ts' })).action).toBe('ask');
    await write({ edits: { mode: 'review' } });
    expect((await engine.decide({ kind: 'edit', path: 'src/a.ts' })).action).toBe('allow');
  });

  it('edits to .loupe and .git always ask, even under an allow rule; a deny rule still denies', async () => {
    const engine = await engineWith([
      { kind: 'edit', pattern: '**', action: 'allow' },
      { kind: 'edit', pattern: '.git/config', action: 'deny' },
    ]);
    expect(await engine.decide({ kind: 'edit', path: 'src/a.ts' })).toMatchObject({ action: 'allow' });
    expect(await engine.decide({ kind: 'edit', path: '.loupe/config.json' })).toMatchObject({ action: 'ask', rule: null, always: [] });
    expect(await engine.decide({ kind: 'edit', path: '.git/hooks/pre-push' })).toMatchObject({ action: 'ask', rule: null });
    expect(await engine.decide({ kind: 'edit', path: '.git/config' })).toMatchObject({ action: 'deny', rule: { pattern: '.git/config' } });
    expect(await engine.decide({ kind: 'edit', path: '.gitignore' })).toMatchObject({ action: 'allow' });
  });

  it('a symlink inside the workspace that points outside is outside', async () => {
    const { dir: other, cleanup: done } = await tempDir('loupe-outside-');
    try {
      await symlink(other, path.join(root, 'link'));
      const engine = await engineWith([{ kind: 'external_directory', pattern: `${other}/**`, action: 'deny' }]);
      expect(await engine.decide({ kind: 'read', path: 'link/x.txt' })).toMatchObject({ action: 'ask', kind: 'external_directory' });
      expect(await engine.decide({ kind: 'external_directory', path: `${other}/x.txt` })).toMatchObject({ action: 'deny' });
    } finally {
      await done();
    }
  });

  it('webfetch: private addresses ask unless a rule names the host; an explicit local rule lets them through', async () => {
    const engine = await engineWith([
      { kind: 'webfetch', pattern: 'https://*', action: 'allow' },
      { kind: 'webfetch', pattern: 'http://127.0.0.1*', action: 'allow' },
      { kind: 'webfetch', pattern: 'https://evil.example/*', action: 'deny' },
    ]);
    expect(await engine.decide({ kind: 'webfetch', url: 'https://example.com/a' })).toMatchObject({ action: 'allow', rule: { pattern: 'https://*' } });
    const rebound = await engine.decide({ kind: 'webfetch', url: 'https://internal.example/', privateAddress: '10.0.0.7 (private)' });
    expect(rebound).toMatchObject({ action: 'ask', rule: { pattern: 'https://*' } });
    expect(rebound.reason).toContain('resolves to 10.0.0.7 (private)');
    expect(await engine.decide({ kind: 'webfetch', url: 'http://127.0.0.1:8080/x', privateAddress: '127.0.0.1 (loopback)' })).toMatchObject({ action: 'allow', rule: { pattern: 'http://127.0.0.1*' } });
    expect(await engine.decide({ kind: 'webfetch', url: 'https://evil.example/x' })).toMatchObject({ action: 'deny' });
    expect((await engine.decide({ kind: 'webfetch', url: 'http://example.com/a' })).always).toEqual([{ kind: 'webfetch', pattern: 'http://example.com/*', action: 'allow' }]);
  });

  it('a pipeline and chain are judged part by part: only the unallowed part asks, and only it is proposed', async () => {
    const engine = await engineWith([
      { kind: 'bash', pattern: 'npm test *', action: 'allow' },
      { kind: 'bash', pattern: 'git status *', action: 'allow' },
    ]);
    const d = await engine.decide({ kind: 'bash', command: 'npm test | tee out.log && git status' });
    expect(d.action).toBe('ask');
    expect(d.parts!.filter((p) => p.action === 'ask').map((p) => p.subject)).toEqual(['tee out.log']);
    expect(d.always).toEqual([{ kind: 'bash', pattern: 'tee *', action: 'allow' }]);
    const mixed = await engine.decide({ kind: 'bash', command: 'FOO=1 npm run test:unit && git log -3 && npm test' });
    expect(mixed.always.map((r) => r.pattern)).toEqual(['npm run test:*', 'git log *']);
    const risky = await engine.decide({ kind: 'bash', command: 'git status && rm -rf /tmp/tmp.x1y2' });
    expect(risky.always.filter((r) => r.kind === 'bash').map((r) => r.pattern)).toEqual(['rm -rf /tmp/tmp.x1y2']);
  });

  it('dry run: explains what would happen to a command and why, part by part', async () => {
    const engine = await engineWith([{ kind: 'bash', pattern: 'git status*', action: 'allow' }]);
    const d = await engine.decide({ kind: 'bash', command: 'git status && make' });
    expect(explainDecision(d).split('\n')).toEqual([
      'ASK (bash) git status && make',
      '  decided by the built-in default (no rule matched)',
      '  make: no rule matches, so the default for bash applies (ask)',
      `  - allow bash: git status: matches the rule allow bash "git status*" from .loupe/config.json permissions[0]`,
      '  - ask bash: make: no rule matches, so the default for bash applies (ask)',
      '  "allow always" would add: {"kind":"bash","pattern":"make *","action":"allow"}',
    ]);
  });

  it('session rules apply at once and are named as such', async () => {
    const engine = await engineWith([]);
    engine.addSessionRule({ kind: 'bash', pattern: 'make *', action: 'allow' });
    expect(await engine.decide({ kind: 'bash', command: 'make test' })).toMatchObject({ action: 'allow', rule: { source: 'session', origin: 'this session' } });
  });

  it('sees edits to config.json without a restart (a new allow rule once the new content is trusted)', async () => {
    const engine = await engineWith([]);
    expect((await engine.decide({ kind: 'bash', command: 'make' })).action).toBe('ask');
    await new Promise((r) => setTimeout(r, 20));
    await writeFile(path.join(root, '.loupe', 'config.json'), JSON.stringify({ permissions: [{ kind: 'bash', pattern: 'make', action: 'allow' }] }));
    expect((await engine.decide({ kind: 'bash', command: 'make' })).action).toBe('ask');
    await user.trust(root);
    expect((await engine.decide({ kind: 'bash', command: 'make' })).action).toBe('allow');
  });
});

describe('mcp: server/tool', () => {
  const q = (server: string, tool: string, readOnly = false) => ({ kind: 'mcp' as const, server, tool, readOnly });

  it('asks by default and proposes exactly this server and tool for "always"', async () => {
    const e = await engineWith([]);
    const d = await e.decide(q('github', 'create_issue'));
    expect(d).toMatchObject({ action: 'ask', rule: null, subject: 'github/create_issue', always: [{ kind: 'mcp', pattern: 'github/create_issue', action: 'allow' }] });
  });

  it('server/*, any server\'s read_*, and a bare server name; a read_only rule allows only what the server marks read-only', async () => {
    const e = await engineWith([
      { kind: 'mcp', pattern: 'docs', action: 'allow' },
      { kind: 'mcp', pattern: '*/read_*', action: 'allow' },
      { kind: 'mcp', pattern: 'github/*', action: 'allow', read_only: true },
    ]);
    expect((await e.decide(q('docs', 'search'))).action).toBe('allow');
    expect((await e.decide(q('fs', 'read_file'))).action).toBe('allow');
    expect((await e.decide(q('fs', 'write_file'))).action).toBe('ask');
    expect((await e.decide(q('github', 'list_issues', true))).action).toBe('allow');
    expect((await e.decide(q('github', 'create_issue', false))).action).toBe('ask');
    // A pattern is a whole name: `docs` is not `docs2`.
    expect((await e.decide(q('docs2', 'search'))).action).toBe('ask');
  });

  it('a deny rule holds over any allow, in any letter case; allow rules name tools exactly', () =>
    fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ pattern: fc.constantFrom('gh/*', 'gh/delete_*', '*/delete_*', 'gh', '*', 'gh/list_issues'), action: fc.constantFrom('allow', 'ask', 'deny') as fc.Arbitrary<'allow' | 'ask' | 'deny'>, read_only: fc.option(fc.boolean(), { nil: undefined }) }), { maxLength: 5 }),
        fc.constantFrom('delete_repo', 'Delete_Repo', 'list_issues', 'LIST_ISSUES'),
        fc.boolean(),
        async (rules, tool, readOnly) => {
          userRules = rules.map((r) => ({ kind: 'mcp', ...r }));
          const e = await engineWith([]);
          const d = await e.decide(q('gh', tool, readOnly));
          const applies = userRules.filter((r) => !r.read_only || readOnly);
          const deniedBy = applies.filter((r) => r.action === 'deny' && matchToolCi(r.pattern, `gh/${tool}`));
          if (deniedBy.length) expect(d.action).toBe('deny');
          else if (d.action === 'allow') expect(applies.some((r) => r.action === 'allow' && matchExact(r.pattern, `gh/${tool}`))).toBe(true);
        },
      ),
      { numRuns: 200 },
    ));
});

const globRe = (p: string, flags: string) => new RegExp(`^${(p.includes('/') ? p : `${p}/*`).split('*').map((x) => x.replace(/[.+^${}()|[\]\\?]/g, '\\$&')).join('.*')}$`, flags);
const matchToolCi = (p: string, s: string) => globRe(p, 'i').test(s);
const matchExact = (p: string, s: string) => globRe(p, '').test(s);
