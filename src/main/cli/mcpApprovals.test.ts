import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../services/permissions/approvalQueue';
import { answerFromElicitation, elicitationMessage } from './mcpApprovals';

const base: ApprovalRequest = { id: 'a', kind: 'bash', tool: 'bash', summary: 'rm -rf build', reason: 'rm -rf build: no rule matches', rule: null, always: [], createdAt: '' };

describe('elicitation', () => {
  it('a command says what it would run; an edit carries its diff', () => {
    expect(elicitationMessage(base)).toBe("Loupe's bash tool wants to run: rm -rf build\nWhy it asks: rm -rf build: no rule matches (no rule matches).");
    const edit = elicitationMessage({ ...base, kind: 'edit', tool: 'edit_file', summary: 'edit a.ts', diff: '--- a/a.ts\n+++ b/a.ts\n@@ -1 +1 @@\n-x\n+y\n' });
    expect(edit).toMatch(/^Loupe's edit_file tool wants to edit a\.ts\n/);
    expect(edit).toContain('\n-x\n+y\n');
    const huge = elicitationMessage({ ...base, kind: 'edit', diff: '+'.repeat(50_000) });
    expect(huge.length).toBeLessThan(21_000);
    expect(huge).toContain('(30000 more characters)');
  });

  it('maps the answers, a decline being a denial', () => {
    expect(answerFromElicitation({ action: 'accept', content: { decision: 'allow_once' } })).toEqual({ answer: 'once' });
    expect(answerFromElicitation({ action: 'accept', content: { decision: 'deny', message: 'no' } })).toEqual({ answer: 'deny', message: 'no' });
    expect(answerFromElicitation({ action: 'decline' })).toEqual({ answer: 'deny', message: 'the user chose decline' });
  });
});
