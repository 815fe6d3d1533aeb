// Plan mode in the gate: refusals by effect and by command, read-only commands granted a
// read-only sandbox, and an allow rule that cannot lift the mode.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/support/tmp';
import { testTrust, type TestTrust } from '../../../../test/support/trust';
import type { SandboxAvailability } from '../sandbox/types';
import { ApprovalQueue, type ApprovalRequest } from './approvalQueue';
import { PermissionGate } from './permissionGate';
import { ProjectConfig } from './projectConfig';
import { PermissionEngine } from './ruleEngine';

const BWRAP: SandboxAvailability = { available: true, kind: 'bwrap', reason: null, install: null };
const NONE: SandboxAvailability = { available: false, kind: null, reason: 'bwrap is not installed', install: 'sudo apt install bubblewrap' };

let root: string;
let cleanup: () => Promise<void>;
let user: TestTrust;

beforeEach(async () => {
  ({ dir: root, cleanup } = await tempDir('loupe-plangate-'));
  user = testTrust();
  // Rules that would let everything through in act mode: plan mode must not care.
  await mkdir(path.join(root, '.loupe'), { recursive: true });
  await writeFile(
    path.join(root, '.loupe', 'config.json'),
    JSON.stringify({ permissions: [{ kind: 'bash', pattern: '*', action: 'allow' }, { kind: 'edit', pattern: '**', action: 'allow' }, { kind: 'test', pattern: '*', action: 'allow' }] }),
  );
  await user.trust(root);
});
afterEach(async () => {
  user.cleanup();
  await cleanup();
});

function gate(availability = BWRAP): { act: PermissionGate; plan: PermissionGate; cards: ApprovalRequest[] } {
  const config = new ProjectConfig(root, user.store);
  const engine = new PermissionEngine({ root, project: config, userSandbox: user.store.sandboxMode, sandbox: async () => availability });
  const queue = new ApprovalQueue('wait');
  const cards: ApprovalRequest[] = [];
  queue.setResponder(async (r) => {
    cards.push(r);
    return { answer: 'once' };
  });
  const act = new PermissionGate(engine, queue, { persist: (r) => config.addRules(r) });
  return { act, plan: act.inMode('plan'), cards };
}

const bash = (g: PermissionGate, command: string) => g.authorize({ query: { kind: 'bash', command }, tool: 'bash', summary: command });

describe('plan mode in the gate', () => {
  it('refuses actions that write or run by their facts, whatever their name', () => {
    const { act, plan } = gate();
    for (const facts of [
      { name: 'edit_file', effect: 'write', asks: 'edit' },
      { name: 'code_rollback', effect: 'write', asks: 'edit' },
      { name: 'mcp__db__drop_table', effect: 'write', asks: null },
      { name: 'process_kill', effect: 'execute', asks: null },
      { name: 'mcp__deploy__run', effect: 'execute', asks: null },
    ] as const) {
      expect(() => plan.authorizeAction(facts), facts.name).toThrow(/Refused by plan mode/);
      expect(() => act.authorizeAction(facts)).not.toThrow();
    }
    for (const facts of [
      { name: 'read_file', effect: 'read', asks: 'read' },
      { name: 'mcp__docs__search', effect: 'read', asks: null },
      { name: 'bash', effect: 'execute', asks: 'bash' },
      { name: 'run_tests', effect: 'execute', asks: 'test' },
    ] as const) {
      expect(() => plan.authorizeAction(facts), facts.name).not.toThrow();
    }
  });

  it('refuses edits and non-read-only commands though a rule allows them, with a refusal that says what to do', async () => {
    const { act, plan, cards } = gate();
    await expect(plan.authorize({ query: { kind: 'edit', path: 'a.ts' }, tool: 'write_file', summary: 'create a.ts' })).rejects.toMatchObject({ code: 'PERMISSION_DENIED', details: { denied_by: 'mode' } });
    for (const c of ['rm x', 'sed -i s/a/b/ f', 'git commit -m x', 'npm install', 'ls > out']) {
      const err = await bash(plan, c).then(() => null, (e: Error & { details?: unknown }) => e);
      expect(err, c).toMatchObject({ code: 'PERMISSION_DENIED', details: { denied_by: 'mode' } });
      expect(err!.message).toMatch(/Refused by plan mode: .* may change something/);
      expect(err!.message).toMatch(/answering with the plan/);
      await expect(bash(act, c)).resolves.toMatchObject({ by: 'rule' });
    }
    await expect(plan.authorize({ query: { kind: 'test', command: 'npx vitest run' }, tool: 'run_tests', summary: 'tests' })).rejects.toMatchObject({ details: { denied_by: 'mode' } });
    expect(cards).toEqual([]);
  });

  it('lets read-only commands through, in a sandbox that holds the workspace read-only', async () => {
    const { act, plan } = gate();
    for (const c of ['ls', 'git log', 'rg foo']) {
      const a = await bash(plan, c);
      expect(a.sandbox, c).toMatchObject({ readOnly: true });
      expect((await bash(act, c)).sandbox?.readOnly, c).toBeUndefined();
    }
    // Its questions keep naming their call, and the call keeps the mode.
    expect(plan.forCall({ call_id: 'c1', correlation_id: 'r1' }).mode).toBe('plan');
  });

  it('keeps a read-only command inside the read-only sandbox, whatever the model or a rule asks', async () => {
    await writeFile(path.join(root, '.loupe', 'config.json'), JSON.stringify({ permissions: [{ kind: 'bash', pattern: 'ls*', action: 'allow', sandbox: false }] }));
    const { plan, cards } = gate();
    // The rule says "sandbox": false, and the model asks to run outside it: plan mode keeps it in, read-only.
    expect((await bash(plan, 'ls -la')).sandbox).toMatchObject({ readOnly: true });
    const outside = await plan.authorize({ query: { kind: 'bash', command: 'cat a.txt' }, tool: 'bash', summary: 'cat', outsideSandbox: true });
    expect(outside.sandbox).toMatchObject({ readOnly: true });
    expect(cards.every((c) => !/OUTSIDE/.test(JSON.stringify(c)))).toBe(true);
  });

  it('without an OS sandbox, refuses git (its repository config names programs) and runs other readers', async () => {
    const { plan } = gate(NONE);
    for (const c of ['git log', 'git status', 'ls && git diff', 'echo "$(git show HEAD)"']) {
      await expect(bash(plan, c), c).rejects.toMatchObject({ details: { denied_by: 'mode' }, message: expect.stringMatching(/repository's own config.*no OS sandbox/) });
    }
    for (const c of ['ls', 'rg foo', 'cat a.txt | wc -l']) expect((await bash(plan, c)).sandbox, c).toBeNull();
  });
});
