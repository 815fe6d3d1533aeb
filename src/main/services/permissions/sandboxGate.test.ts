// The gate with the OS sandbox: which questions it answers, which it keeps, where it steps aside.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/support/tmp';
import { testTrust, type TestTrust } from '../../../../test/support/trust';
import type { SandboxAvailability } from '../sandbox/types';
import { ApprovalQueue, type ApprovalRequest } from './approvalQueue';
import { PermissionGate, type Authorized } from './permissionGate';
import { ProjectConfig } from './projectConfig';
import { PermissionEngine } from './ruleEngine';
import type { PermissionRule } from './types';

const BWRAP: SandboxAvailability = { available: true, kind: 'bwrap', reason: null, install: null };
const NONE: SandboxAvailability = { available: false, kind: null, reason: 'bwrap is not installed', install: 'sudo apt install bubblewrap' };

let root: string;
let cleanup: () => Promise<void>;
let user: TestTrust;

beforeEach(async () => {
  ({ dir: root, cleanup } = await tempDir('loupe-sbgate-'));
  user = testTrust();
});
afterEach(async () => {
  user.cleanup();
  await cleanup();
});

async function writeConfig(doc: object, trusted = true) {
  await mkdir(path.join(root, '.loupe'), { recursive: true });
  await writeFile(path.join(root, '.loupe', 'config.json'), JSON.stringify(doc));
  if (trusted) await user.trust(root);
}

/** A gate whose person answers every card with `answer` and counts them. */
function setup(availability: SandboxAvailability, answer: 'once' | 'always' | 'deny' = 'once') {
  const config = new ProjectConfig(root, user.store);
  const engine = new PermissionEngine({ root, project: config, userSandbox: user.store.sandboxMode, sandbox: async () => availability });
  const queue = new ApprovalQueue('wait');
  const cards: ApprovalRequest[] = [];
  queue.setResponder(async (r) => {
    cards.push(r);
    return { answer };
  });
  const gate = new PermissionGate(engine, queue, { persist: (r) => config.addRules(r) });
  const run = (command: string, extra: { outsideSandbox?: boolean } = {}): Promise<Authorized> => gate.authorize({ query: { kind: 'bash', command }, tool: 'bash', summary: command, ...extra });
  return { run, cards, engine };
}

describe('PermissionGate with the sandbox', () => {
  it('auto + available: an unmatched command runs inside without a card; an allow rule runs inside too', async () => {
    await writeConfig({ permissions: [{ kind: 'bash', pattern: 'npm test', action: 'allow' }] });
    const { run, cards } = setup(BWRAP);
    const a = await run('make build');
    expect(a).toMatchObject({ by: 'sandbox', sandbox: { network: false, networkRule: null } });
    expect(a.decision.reason).toMatch(/runs inside the sandbox: no network, writes only in the workspace/);
    expect(await run('npm test')).toMatchObject({ by: 'rule', sandbox: { network: false } });
    expect(await run('echo x > /tmp/outside.txt')).toMatchObject({ by: 'sandbox' });
    expect(await run('echo "[core]" > .git/config')).toMatchObject({ by: 'sandbox' });
    expect(cards).toEqual([]);
  });

  it('off and unavailable: the questions of today, sandbox null', async () => {
    const { run, cards } = setup(NONE);
    expect(await run('make build')).toMatchObject({ by: 'once', sandbox: null });
    expect(cards[0].sandboxed).toBeUndefined();
    await writeConfig({ sandbox: 'off' });
    const off = setup(BWRAP);
    expect(await off.run('make build')).toMatchObject({ by: 'once', sandbox: null });
    expect(off.cards).toHaveLength(1);
  });

  it('an untrusted config cannot turn the sandbox off', async () => {
    await writeConfig({ sandbox: 'off' }, false);
    const { run, cards, engine } = setup(BWRAP);
    expect(await run('make build')).toMatchObject({ by: 'sandbox', sandbox: { network: false } });
    expect(cards).toEqual([]);
    expect((await engine.project()).trusted).toBe(false);
  });

  it('the user settings\' "sandbox" applies where the project says nothing; a trusted project wins', async () => {
    await writeFile(path.join(user.configDir, 'settings.json'), JSON.stringify({ sandbox: 'off' }));
    expect(await setup(BWRAP).run('make build')).toMatchObject({ by: 'once', sandbox: null });
    await writeConfig({ sandbox: 'auto' });
    expect(await setup(BWRAP).run('make build')).toMatchObject({ by: 'sandbox' });
  });

  it('deny rules still deny; ask rules, workspace edit rules and the rest of .git keep asking, sandboxed', async () => {
    await writeConfig({
      permissions: [
        { kind: 'bash', pattern: 'rm -rf /*', action: 'deny' },
        { kind: 'bash', pattern: 'git push*', action: 'ask' },
        { kind: 'edit', pattern: 'docs/**', action: 'ask' },
      ],
    });
    const { run, cards } = setup(BWRAP);
    await expect(run('rm -rf /')).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    expect(await run('git push origin main')).toMatchObject({ by: 'once', sandbox: { network: false } });
    expect(await run('echo x > docs/a.md')).toMatchObject({ by: 'once' });
    expect(await run('rm -rf .git')).toMatchObject({ by: 'once' });
    expect(cards.map((c) => c.sandboxed)).toEqual([true, true, true]);
  });

  it('network rules open the network per command; a deny or an uncovered part keeps it closed', async () => {
    await writeConfig({
      permissions: [
        { kind: 'network', pattern: 'npm install*', action: 'allow', hosts: ['registry.npmjs.org'] },
        { kind: 'network', pattern: 'npm install evil*', action: 'deny' },
      ],
    });
    const { run } = setup(BWRAP);
    expect((await run('npm install left-pad')).sandbox).toEqual({ network: true, networkRule: 'allow network "npm install*" from .loupe/config.json permissions[0]' });
    expect((await run('npm install evil-pkg')).sandbox).toEqual({ network: false, networkRule: null });
    expect((await run('npm install x && curl http://example.com')).sandbox).toEqual({ network: false, networkRule: null });
    expect((await run('curl http://example.com')).sandbox).toEqual({ network: false, networkRule: null });
  });

  it('"sandbox": false on an allow rule runs outside without asking', async () => {
    await writeConfig({ permissions: [{ kind: 'bash', pattern: 'docker *', action: 'allow', sandbox: false }] });
    const { run, cards } = setup(BWRAP);
    expect(await run('docker ps')).toMatchObject({ by: 'rule', sandbox: null });
    expect(await run('docker ps', { outsideSandbox: true })).toMatchObject({ by: 'rule', sandbox: null });
    expect(cards).toEqual([]);
  });

  it('outsideSandbox without such a rule: a card that says outside, whose "always" carries sandbox:false', async () => {
    await writeConfig({ permissions: [{ kind: 'bash', pattern: 'make *', action: 'allow' }] });
    const { run, cards } = setup(BWRAP, 'always');
    expect(await run('make install', { outsideSandbox: true })).toMatchObject({ by: 'always', sandbox: null });
    expect(cards).toHaveLength(1);
    expect(cards[0]).toMatchObject({ sandboxed: false, reason: expect.stringMatching(/^runs OUTSIDE the sandbox/) });
    expect(cards[0].always).toEqual([{ kind: 'bash', pattern: 'make *', action: 'allow', sandbox: false }]);
    const saved = JSON.parse(await readFile(path.join(root, '.loupe', 'config.json'), 'utf8'));
    expect(saved.permissions).toContainEqual({ kind: 'bash', pattern: 'make *', action: 'allow', sandbox: false });
    // The rule it wrote now runs the command outside without a card.
    expect(await run('make install', { outsideSandbox: true })).toMatchObject({ by: 'rule', sandbox: null });
    expect(cards).toHaveLength(1);
  });

  it('over random rule sets: deny always wins, and auto mode never runs outside without a sandbox:false rule or a card', async () => {
    const commands = ['ls', 'npm install x', 'git status', 'rm -rf build', 'docker ps', 'echo x > /tmp/o', 'cat .env'];
    const rule = fc.record({
      kind: fc.constantFrom('bash' as const, 'network' as const, 'edit' as const, 'read' as const),
      pattern: fc.constantFrom('ls', 'npm *', 'git *', 'rm *', 'docker *', 'echo *', 'cat *', '*', '.env', 'build/**'),
      action: fc.constantFrom('allow' as const, 'ask' as const, 'deny' as const),
      sandbox: fc.option(fc.boolean(), { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(rule, { maxLength: 5 }), fc.constantFrom(...commands), fc.boolean(), async (rules, command, outsideSandbox) => {
        await writeConfig({ permissions: rules.map((r) => (r.sandbox === undefined ? { kind: r.kind, pattern: r.pattern, action: r.action } : r)) });
        const { run, cards, engine } = setup(BWRAP);
        const decision = await engine.decide({ kind: 'bash', command });
        const result = await run(command, { outsideSandbox }).catch((e: { code?: string }) => e);
        if (decision.action === 'deny') {
          expect(result).toMatchObject({ code: 'PERMISSION_DENIED' });
          return;
        }
        const a = result as Authorized;
        if (a.sandbox === null) {
          const byRule = (rules as PermissionRule[]).some((r) => r.kind === 'bash' && r.action === 'allow' && r.sandbox === false);
          expect(byRule || cards.some((c) => c.sandboxed === false)).toBe(true);
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('risky commands', () => {
  it('a destructive command asks inside the sandbox, its card saying why; a rule that names it still allows it', async () => {
    await writeConfig({ permissions: [{ kind: 'bash', pattern: 'rm -rf dist', action: 'allow' }] });
    const { run, cards } = setup(BWRAP);
    expect(await run('make build')).toMatchObject({ by: 'sandbox' });
    expect(cards).toHaveLength(0);
    expect(await run('rm -rf build')).toMatchObject({ by: 'once', sandbox: { network: false } });
    expect(cards).toHaveLength(1);
    expect(cards[0]).toMatchObject({ sandboxed: true, risk: [expect.stringMatching(/^rm -r deletes whole folders/)] });
    // The person's own rule for exactly this: no card.
    expect(await run('rm -rf dist')).toMatchObject({ by: 'rule' });
    expect(cards).toHaveLength(1);
  });

  it('without the sandbox a write outside the workspace is risky; a harmless command is not', async () => {
    const { run, cards } = setup(NONE);
    await run('echo x > /tmp/loupe-risk-test.txt');
    await run('echo x > inside.txt && ls');
    await run('git push --force');
    expect(cards.map((c) => c.risk)).toEqual([[expect.stringMatching(/writes outside the workspace \(\/tmp\/loupe-risk-test\.txt\)/)], undefined, [expect.stringMatching(/git push --force/)]]);
  });

  it('over generated lines, a destructive part always reaches a card with a risk, whatever else the line does', async () => {
    const { run, cards } = setup(BWRAP);
    const harmless = fc.constantFrom('ls', 'npm test', 'git status', 'echo hi > out.txt', 'make');
    const destructive = fc.constantFrom('rm -rf build', 'git reset --hard', 'git clean -fdx', 'git push -f', 'sqlite3 db "drop table t"', 'find . -delete');
    await fc.assert(
      fc.asyncProperty(fc.array(harmless, { maxLength: 3 }), destructive, fc.constantFrom(' && ', '; ', ' || ', ' | '), async (before, bad, sep) => {
        cards.length = 0;
        await run([...before, bad].join(sep));
        expect(cards).toHaveLength(1);
        expect(cards[0].risk?.length).toBeGreaterThan(0);
      }),
      { numRuns: 60 },
    );
  });
});
