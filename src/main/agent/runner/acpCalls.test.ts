import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { askingMode, diffOf, effectOf, mergeCall, newCall, optionFor, outputOf, queryOf, relTo, statusOf } from './acpCalls';

const ROOT = '/work/ws';

describe("a hosted agent's tool calls as Loupe reads them", () => {
  it('maps every ACP kind to an effect, and the question to the permission kind Loupe has rules for', () => {
    expect(effectOf('read')).toBe('read');
    expect(effectOf('edit')).toBe('write');
    expect(effectOf('delete')).toBe('write');
    expect(effectOf('execute')).toBe('execute');
    expect(effectOf('other')).toBe('execute');
    const c = (kind: Parameters<typeof effectOf>[0], rawInput: unknown, locations: string[] = []) => ({ ...newCall({ toolCallId: 'x', title: 'T', kind, rawInput }), locations });
    expect(queryOf(c('edit', {}, ['/work/ws/src/a.ts']), ROOT)).toEqual({ kind: 'edit', path: 'src/a.ts' });
    expect(queryOf(c('edit', { filePath: '/etc/passwd' }), ROOT)).toEqual({ kind: 'edit', path: '/etc/passwd' });
    expect(queryOf(c('execute', { command: 'rm -rf x' }), ROOT)).toEqual({ kind: 'bash', command: 'rm -rf x' });
    expect(queryOf(c('execute', {}), ROOT)).toEqual({ kind: 'bash', command: 'T' });
    expect(queryOf(c('fetch', { url: 'https://x.test/a' }), ROOT)).toEqual({ kind: 'webfetch', url: 'https://x.test/a' });
    expect(queryOf(c('read', { file_path: '/work/ws/.env' }), ROOT)).toEqual({ kind: 'read', path: '.env' });
  });

  it('a path is named relative to the workspace only when it lies inside (no prefix tricks)', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z0-9._-]{1,12}$/), (name) => {
        expect(relTo(ROOT, `${ROOT}/${name}`)).toBe(name === '.' ? '.' : name === '..' ? `${ROOT}/..` : name);
        expect(relTo(ROOT, `${ROOT}x/${name}`)).toBe(`${ROOT}x/${name}`);
      }),
    );
  });

  it('an update lays only its own fields over the call; an empty rawInput does not erase a known one', () => {
    const c = newCall({ toolCallId: 'c1', title: 'bash', kind: 'execute', status: 'pending', rawInput: { command: 'ls' } });
    const u = mergeCall(c, { toolCallId: 'c1', status: 'completed', rawInput: {}, content: [{ type: 'content', content: { type: 'text', text: 'a\nb' } }] });
    expect(u).toMatchObject({ title: 'bash', kind: 'execute', status: 'completed', rawInput: { command: 'ls' } });
    expect(outputOf(u)).toBe('a\nb');
  });

  it('diffs become one unified diff with workspace names', () => {
    const c = newCall({ toolCallId: 'c', title: 'edit', kind: 'edit', content: [{ type: 'diff', path: '/work/ws/a.txt', oldText: 'x\n', newText: 'y\n' }] });
    expect(diffOf(c, ROOT)).toMatch(/--- a\/a\.txt[\s\S]*-x[\s\S]*\+y/);
  });

  it('answers with an allow or reject option the agent offers, once before always', () => {
    const options = [
      { optionId: 'always', name: 'Always', kind: 'allow_always' as const },
      { optionId: 'once', name: 'Once', kind: 'allow_once' as const },
      { optionId: 'no', name: 'Reject', kind: 'reject_once' as const },
    ];
    expect(optionFor(options, 'allow')?.optionId).toBe('once');
    expect(optionFor(options, 'reject')?.optionId).toBe('no');
    expect(optionFor(options.slice(0, 1), 'reject')).toBeUndefined();
  });

  it('puts the agent in its asking mode, by name or as its entry says', () => {
    expect(askingMode(['default', 'autoEdit', 'yolo', 'plan'])).toBe('default');
    expect(askingMode(['read-only', 'auto', 'full-access'])).toBe('read-only');
    expect(askingMode(['bypassPermissions', 'acceptEdits'])).toBeNull();
    expect(askingMode(['a', 'b'], 'b')).toBe('b');
    expect(askingMode(['a'], 'b')).toBeNull();
  });

  it('reads the stop reason as the request status', () => {
    expect(statusOf('end_turn', false)).toBe('done');
    expect(statusOf('end_turn', true)).toBe('aborted');
    expect(statusOf('cancelled', false)).toBe('aborted');
    expect(statusOf('max_turn_requests', false)).toBe('turn_limit');
    expect(statusOf('refusal', false)).toBe('error');
  });
});
