// Hooks and permission rules together, over generated tool calls, rule sets and hook answers
// (exit codes, stdout JSON, stderr, timeouts), through the real answer reader, the real
// combination of a call's hooks and the real gate and engine: with repository hooks the outcome is
// never more permissive than the rules alone; with the person's own hooks it is Claude Code's
// documented outcome (a deny from a hook or a rule denies; then a hook's ask, or an ask rule, asks;
// then a hook's allow allows what only the defaults asked about), with Loupe's one stricter rule:
// a hook that timed out, was killed or could not start asks instead of letting the call through.
import fc from 'fast-check';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preToolUseVerdict } from '../../src/main/agent/hooks/agentHooks';
import { HOOK_SOURCES, type HookOwner } from '../../src/main/services/config/hooksConfig';
import { interpret } from '../../src/main/services/hooks/answer';
import type { HookResult } from '../../src/main/services/hooks/hooks';
import type { RawRun } from '../../src/main/services/hooks/runHook';
import type { ApprovalRequest } from '../../src/main/services/permissions/approvalQueue';
import type { PermissionQuery } from '../../src/main/services/permissions/ruleEngine';
import type { PermissionAction, PermissionKind } from '../../src/main/services/permissions/types';
import type { WorkspaceServices } from '../../src/main/workspace/compose';
import { testServices } from '../support/services';
import { tempDir } from '../support/tmp';
import { testTrust, type TestTrust } from '../support/trust';

type Outcome = 'denied' | 'asked' | 'allowed';
const RANK: Record<Outcome, number> = { denied: 0, asked: 1, allowed: 2 };

/** The calls: a subject of each kind, inside the workspace, with no part only known at run time. */
const SUBJECTS: { kind: PermissionKind; subject: string }[] = [
  { kind: 'bash', subject: 'npm test' },
  { kind: 'bash', subject: 'git status' },
  { kind: 'bash', subject: 'rm -rf build' },
  { kind: 'read', subject: 'src/a.ts' },
  { kind: 'read', subject: '.env' },
  { kind: 'edit', subject: 'src/a.ts' },
  { kind: 'edit', subject: 'docs/guide.md' },
  { kind: 'webfetch', subject: 'https://example.com/docs' },
];
const DEFAULTS: Record<string, PermissionAction> = { bash: 'ask', read: 'allow', edit: 'allow', webfetch: 'ask' };

const queryOf = (s: { kind: PermissionKind; subject: string }): PermissionQuery =>
  s.kind === 'bash' ? { kind: 'bash', command: s.subject } : s.kind === 'webfetch' ? { kind: 'webfetch', url: s.subject } : { kind: s.kind as 'read' | 'edit', path: s.subject };

const ruleArb = fc.record({ target: fc.constantFrom(...SUBJECTS), action: fc.constantFrom<PermissionAction>('allow', 'ask', 'deny') }).map(({ target, action }) => ({ kind: target.kind, pattern: target.subject, action }));

/** What one hook's process gave back: every shape Claude Code reads, and the ways it can fail. */
const rawArb: fc.Arbitrary<RawRun> = fc.oneof(
  fc.record({ decision: fc.constantFrom('allow', 'deny', 'ask'), legacy: fc.boolean(), reason: fc.constantFrom('', 'policy') }).map(({ decision, legacy, reason }) => {
    const json = legacy && decision !== 'ask' ? { decision: decision === 'allow' ? 'approve' : 'block', ...(reason ? { reason } : {}) } : { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: decision, ...(reason ? { permissionDecisionReason: reason } : {}) } };
    return run({ exitCode: 0, stdout: JSON.stringify(json) });
  }),
  fc.constantFrom(run({ exitCode: 0 }), run({ exitCode: 0, stdout: 'plain words' }), run({ exitCode: 0, stdout: '{not json' }), run({ exitCode: 0, stdout: '{"systemMessage":"hi"}' })),
  fc.constantFrom(run({ exitCode: 2, stderr: 'blocked' }), run({ exitCode: 2, stdout: '{"hookSpecificOutput":{"permissionDecision":"allow"}}' }), run({ exitCode: 1, stderr: 'oops' }), run({ exitCode: 127 }), run({ exitCode: 3 })),
  fc.constantFrom<RawRun['failure']>({ kind: 'timeout', message: 'timed out after 60 s and was stopped' }, { kind: 'killed', message: 'was killed by SIGKILL' }, { kind: 'start', message: 'could not be started (no such program)' }).map((failure) => run({ exitCode: null, failure })),
);

function run(p: Partial<RawRun>): RawRun {
  return { exitCode: 0, signal: null, stdout: '', stderr: '', ms: 1, failure: null, sandboxed: false, ...p };
}

const result = (owner: HookOwner, raw: RawRun, i: number): HookResult => ({
  hook: { digest: String(i), event: 'PreToolUse', matcher: '', source: owner === 'user' ? HOOK_SOURCES.claudeUser : HOOK_SOURCES.claudeProject, owner, dialect: 'claude', line: `hook-${i}` },
  answer: interpret('PreToolUse', raw),
  ms: 1,
  sandboxed: false,
  group_id: null,
});

let t: { dir: string; cleanup: () => Promise<void> };
let trust: TestTrust;
let services: WorkspaceServices;
const asked: ApprovalRequest[] = [];

beforeAll(async () => {
  t = await tempDir('loupe-hook-verdict-');
  const root = path.join(t.dir, 'ws');
  await mkdir(path.join(root, 'src'), { recursive: true });
  // Sandbox off: each ask is a card (with the sandbox, a contained command runs without one).
  trust = testTrust({ sandbox: 'off' });
  services = testServices(root, {
    user: trust.store,
    asker: {
      kind: 'responder',
      respond: async (req) => {
        asked.push(req);
        return { answer: 'deny' };
      },
    },
  });
});
afterAll(async () => {
  await services.dispose();
  trust.cleanup();
  await t.cleanup();
});

/** One call through the gate with these rules and hook results: allowed, asked (the responder says no), or denied without asking. */
async function outcome(rules: ReturnType<typeof ruleArb.generate>['value'][], target: (typeof SUBJECTS)[number], results: HookResult[] | null): Promise<Outcome> {
  await trust.store.update((doc) => ({ ...doc, permissions: rules }));
  const said = results ? preToolUseVerdict(results) : {};
  if (said.refused) return 'denied';
  const gate = services.permissions.forCall({ call_id: 'c1', correlation_id: 'req-1' }, said.verdict);
  const before = asked.length;
  try {
    await gate.authorize({ query: queryOf(target), tool: target.kind, summary: target.subject });
    return 'allowed';
  } catch {
    return asked.length > before ? 'asked' : 'denied';
  }
}

/** What the rules say of a call, by the documented precedence (the generated rules name subjects exactly). */
function ruleAction(rules: { kind: PermissionKind; pattern: string; action: PermissionAction }[], target: (typeof SUBJECTS)[number]): { action: PermissionAction; byRule: boolean } {
  for (const action of ['deny', 'ask', 'allow'] as const) if (rules.some((r) => r.kind === target.kind && r.pattern === target.subject && r.action === action)) return { action, byRule: true };
  return { action: DEFAULTS[target.kind]!, byRule: false };
}

const caseArb = (owner: HookOwner) =>
  fc.record({
    rules: fc.array(ruleArb, { maxLength: 5 }),
    target: fc.constantFrom(...SUBJECTS),
    hooks: fc.array(rawArb, { minLength: 1, maxLength: 3 }).map((raws) => raws.map((raw, i) => result(owner, raw, i))),
  });

describe('PreToolUse hooks with the permission rules', () => {
  it("a repository's hooks are never more permissive than the rules alone", async () => {
    await fc.assert(
      fc.asyncProperty(caseArb('project'), async ({ rules, target, hooks }) => {
        const alone = await outcome(rules, target, null);
        const withHooks = await outcome(rules, target, hooks);
        expect(RANK[withHooks]).toBeLessThanOrEqual(RANK[alone]);
      }),
      { numRuns: 150 },
    );
  }, 120_000);

  it("the person's hooks give Claude Code's documented outcome (a hook that fails asks)", async () => {
    await fc.assert(
      fc.asyncProperty(caseArb('user'), async ({ rules, target, hooks }) => {
        const decisions = hooks.map((h) => h.answer.decision);
        const rule = ruleAction(rules, target);
        const expected: Outcome = decisions.includes('deny')
          ? 'denied'
          : rule.action === 'deny'
            ? 'denied'
            : decisions.includes('ask') || decisions.includes('error')
              ? 'asked'
              : rule.action === 'ask' && rule.byRule
                ? 'asked'
                : decisions.includes('allow')
                  ? 'allowed'
                  : rule.action === 'allow'
                    ? 'allowed'
                    : 'asked';
        expect(await outcome(rules, target, hooks)).toBe(expected);
      }),
      { numRuns: 150 },
    );
  }, 120_000);

  it('the rules alone are what the documented precedence says (the model above is the engine)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(ruleArb, { maxLength: 5 }), fc.constantFrom(...SUBJECTS), async (rules, target) => {
        const { action } = ruleAction(rules, target);
        expect(await outcome(rules, target, null)).toBe(action === 'deny' ? 'denied' : action === 'ask' ? 'asked' : 'allowed');
      }),
      { numRuns: 60 },
    );
  }, 120_000);
});
