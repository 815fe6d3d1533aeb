import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RequestPermissionResponse } from '@agentclientprotocol/sdk';
import type { ApprovalRequest } from '../../services/permissions/approvalQueue';
import { answerOf, askEditor, permissionOptions, permissionToolCall } from './permissions';

const req = (over: Partial<ApprovalRequest> = {}): ApprovalRequest => ({
  id: 'appr-1',
  kind: 'bash',
  tool: 'bash',
  summary: 'npm test',
  reason: 'no rule matches, so bash asks',
  rule: null,
  always: [{ kind: 'bash', pattern: 'npm test *', action: 'allow' }],
  call_id: 'c1',
  createdAt: new Date(0).toISOString(),
  ...over,
});
const selected = (optionId: string): RequestPermissionResponse => ({ outcome: { outcome: 'selected', optionId } });

describe('the questions loupe acp asks', () => {
  it('offers "always" only where it saves something', () => {
    expect(permissionOptions(req()).map((o) => o.kind)).toEqual(['allow_once', 'allow_always', 'reject_once', 'reject_always']);
    expect(permissionOptions(req()).find((o) => o.kind === 'allow_always')!.name).toContain('"npm test *"');
    expect(permissionOptions(req({ always: [] })).map((o) => o.kind)).toEqual(['allow_once', 'reject_once']);
    // Starting a repository's server: "always" approves its configuration; there is no rule to deny by.
    expect(permissionOptions(req({ kind: 'mcp-server', always: [] })).map((o) => o.kind)).toEqual(['allow_once', 'allow_always', 'reject_once']);
    expect(permissionOptions(req({ kind: 'hook', always: [] })).map((o) => o.kind)).toEqual(['allow_once', 'allow_always', 'reject_once']);
    expect(answerOf(req({ kind: 'hook', always: [] }), selected('allow_always')).answer).toEqual({ answer: 'always' });
  });

  it('shows an edit as its diff and says why it asks, and that a command runs outside the sandbox', () => {
    const edit = permissionToolCall(req({ kind: 'edit', edit: { path: 'src/a.ts', before: 'a', after: 'b', language: 'typescript' } }), 'c1', (rel) => `/client/${rel}`);
    expect(edit.content?.[0]).toEqual({ type: 'diff', path: '/client/src/a.ts', oldText: 'a', newText: 'b' });
    const outside = permissionToolCall(req({ sandboxed: false, rule: 'bash "npm *" ask' }), 'c1', (r) => r);
    expect(JSON.stringify(outside.content)).toContain('OUTSIDE the sandbox');
    expect(JSON.stringify(outside.content)).toContain('rule bash \\"npm *\\" ask');
  });

  it('maps each option to the answer the app gives; "reject always" carries the deny rules', () => {
    expect(answerOf(req(), selected('allow_once')).answer).toEqual({ answer: 'once' });
    expect(answerOf(req(), selected('allow_always')).answer).toEqual({ answer: 'always' });
    expect(answerOf(req({ always: [] }), selected('allow_always')).answer).toEqual({ answer: 'once' });
    expect(answerOf(req(), selected('reject_once')).answer).toMatchObject({ answer: 'deny' });
    expect(answerOf(req(), selected('reject_always'))).toEqual({ answer: { answer: 'deny' }, deny: [{ kind: 'bash', pattern: 'npm test *', action: 'deny' }] });
    expect(answerOf(req(), { outcome: { outcome: 'cancelled' } }).answer).toMatchObject({ answer: 'deny' });
  });

  it('lets a call through only for an allow option it offered: any other answer refuses', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.constantFrom('allow_once', 'allow_always', 'reject_once', 'reject_always', 'ALLOW_ONCE', 'allow-once', '')), fc.boolean(), (optionId, cancelled) => {
        const res: RequestPermissionResponse = cancelled ? { outcome: { outcome: 'cancelled' } } : selected(optionId);
        const { answer } = answerOf(req(), res);
        const allowed = answer.answer !== 'deny';
        expect(allowed).toBe(!cancelled && (optionId === 'allow_once' || optionId === 'allow_always'));
      }),
      { numRuns: 300 },
    );
  });

  it('refuses, never allows, when the editor does not answer in time, fails, or the call is stopped', async () => {
    const warnings: string[] = [];
    const deps = (request: (signal: AbortSignal) => Promise<RequestPermissionResponse>, saved: unknown[] = []) => ({
      request: (_p: unknown, signal: AbortSignal) => request(signal),
      timeoutMs: 50,
      saveDenyRules: async (rules: unknown[]) => void saved.push(...rules),
      warn: (m: string) => void warnings.push(m),
    });
    let withdrawn = false;
    const silent = (signal: AbortSignal) =>
      new Promise<RequestPermissionResponse>((_r, reject) =>
        signal.addEventListener('abort', () => {
          withdrawn = true;
          reject(new Error('cancelled'));
        }),
      );
    const params = { sessionId: 's', toolCall: { toolCallId: 'c1' }, options: [] };
    expect(await askEditor(req(), params, new AbortController().signal, deps(silent))).toEqual({ answer: 'deny', unattended: true });
    expect(withdrawn).toBe(true);
    expect(warnings.at(-1)).toMatch(/No answer from the editor within 0\.1 s/);
    expect(await askEditor(req(), params, new AbortController().signal, deps(() => Promise.reject(new Error('broken pipe'))))).toMatchObject({ answer: 'deny' });
    const stopped = new AbortController();
    const asked = askEditor(req(), params, stopped.signal, { ...deps(silent), timeoutMs: 60_000 });
    stopped.abort();
    expect(await asked).toMatchObject({ answer: 'deny' });
    const saved: unknown[] = [];
    expect(await askEditor(req(), params, new AbortController().signal, deps(async () => selected('reject_always'), saved))).toEqual({ answer: 'deny' });
    expect(saved).toEqual([{ kind: 'bash', pattern: 'npm test *', action: 'deny' }]);
  });
});
