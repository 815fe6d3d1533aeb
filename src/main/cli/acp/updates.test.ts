import { describe, expect, it } from 'vitest';
import type { ChatEvent } from '../../../shared/contract';
import { planEntries, refinedKind, UpdateTranslator, type TranslatorDeps } from './updates';
import type { Write } from './writes';

const write = (over: Partial<Write>): Write => ({ modificationId: 'mod-1', file: 'a.ts', operation: 'edit', before: 'a', after: 'b', opaque: false, ...over });
/** A live event: the body as the loop emits it, with its request and time. */
const ev = (body: Record<string, unknown>): ChatEvent => ({ ...body, correlation_id: 'req-1', t: 0 }) as ChatEvent;

function translator(writes: Write[] = [], over: Partial<TranslatorDeps> = {}) {
  return new UpdateTranslator({
    clientPath: (rel) => `/client/ws/${rel}`,
    tool: (name, args) => ({ kind: name === 'grep' ? 'search' : name === 'bash' ? 'execute' : name === 'read_file' ? 'read' : 'edit', paths: args && typeof args === 'object' && 'path' in args ? [String((args as { path: string }).path)] : [] }),
    writes: async (data) => (data ? { writes, head: writes[0]?.modificationId } : { writes: [] }),
    notices: false,
    ...over,
  });
}

describe('chat events as ACP updates', () => {
  it('turns a Markdown plan into entries: list items (a ticked box done), else its first line', () => {
    expect(planEntries('# Plan\n\n1. Read it\n2) Change it\n- [x] Decide\n   * Nested item\n      deep code\n')).toEqual([
      { content: 'Read it', priority: 'medium', status: 'pending' },
      { content: 'Change it', priority: 'medium', status: 'pending' },
      { content: 'Decide', priority: 'medium', status: 'completed' },
      { content: 'Nested item', priority: 'medium', status: 'pending' },
    ]);
    expect(planEntries('## Just do the thing\n\nNo list.')).toEqual([{ content: 'Just do the thing', priority: 'medium', status: 'pending' }]);
    expect(planEntries('   \n')).toEqual([]);
    expect(planEntries(Array.from({ length: 80 }, (_, i) => `- step ${i}`).join('\n'))).toHaveLength(50);
  });

  it('says an edit that only deleted files is a delete, and one that moved files a move; a command stays a command', () => {
    expect(refinedKind('edit', [write({ operation: 'delete_file' })])).toBe('delete');
    expect(refinedKind('edit', [write({ operation: 'delete_file', renamedTo: 'b.ts' }), write({ operation: 'create', renamedFrom: 'a.ts' })])).toBe('move');
    expect(refinedKind('edit', [write({})])).toBe('edit');
    expect(refinedKind('execute', [write({ operation: 'delete_file' })])).toBe('execute');
    expect(refinedKind('edit', [])).toBe('edit');
  });

  it('streams a call: announced, started with its locations, finished with a diff per write and the modification id', async () => {
    const t = translator([write({ modificationId: 'mod-7', file: 'src/a.ts', before: 'x\n', after: 'y\n', line: 3 })]);
    expect((await t.translate(ev({ type: 'tool_call_streaming', call_id: 'c1', tool: 'edit_file', title: 'Edit file', effect: 'write' }), false)).updates).toEqual([
      { sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'Edit file', kind: 'edit', status: 'pending', name: 'edit_file' },
    ]);
    const started = await t.translate(ev({ type: 'tool_call_started', call_id: 'c1', tool: 'edit_file', title: 'Edit file', effect: 'write', summary: 'src/a.ts', args: { path: 'src/a.ts' } }), false);
    expect(started.updates).toEqual([{ sessionUpdate: 'tool_call_update', toolCallId: 'c1', title: 'Edit file: src/a.ts', kind: 'edit', status: 'in_progress', locations: [{ path: '/client/ws/src/a.ts' }], rawInput: { path: 'src/a.ts' } }]);
    const done = await t.translate(ev({ type: 'tool_call_finished', call_id: 'c1', tool: 'edit_file', ok: true, output: 'Edited.', data: { modification_id: 'mod-7' }, duration_ms: 1 }), false);
    expect(done.writes).toHaveLength(1);
    expect(done.updates[0]).toMatchObject({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'c1',
      status: 'completed',
      kind: 'edit',
      locations: [{ path: '/client/ws/src/a.ts', line: 3 }],
      content: [
        { type: 'diff', path: '/client/ws/src/a.ts', oldText: 'x\n', newText: 'y\n', _meta: { loupe: { modification_id: 'mod-7' } } },
        { type: 'content', content: { type: 'text', text: 'Edited.' } },
      ],
      _meta: { loupe: { modification_id: 'mod-7', modification_ids: ['mod-7'] } },
    });
  });

  it('names a binary or large write instead of sending it, and a failed call with its error', async () => {
    const t = translator([write({ file: 'img.png', opaque: true, before: null, after: null })]);
    await t.translate(ev({ type: 'tool_call_started', call_id: 'c2', tool: 'bash', title: 'Run', effect: 'execute', summary: 'make', args: {} }), false);
    const done = await t.translate(ev({ type: 'tool_call_finished', call_id: 'c2', tool: 'bash', ok: false, output: 'x', data: { changes: {} }, error: { code: 'TIMEOUT', message: 'Too slow.' }, duration_ms: 1 }), false);
    const u = done.updates[0] as { status: string; content: { type: string; content?: { text: string } }[] };
    expect(u.status).toBe('failed');
    expect(u.content.map((c) => c.type)).toEqual(['content']);
    expect(u.content[0].content!.text).toBe('Error [TIMEOUT]: Too slow.\nNot shown as text (binary or large): img.png');
  });

  it('replays the person\'s words and errors; live, the prompt itself carries them', async () => {
    const t = translator();
    expect((await t.translate({ type: 'user_message', text: 'hi' }, true)).updates).toEqual([{ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'hi' } }]);
    expect((await t.translate({ type: 'user_message', text: 'hi' }, false)).updates).toEqual([]);
    expect((await t.translate({ type: 'error', code: 'LLM_ERROR', message: 'down' }, true)).updates[0]).toMatchObject({ sessionUpdate: 'agent_message_chunk' });
    expect((await t.translate({ type: 'error', code: 'LLM_ERROR', message: 'down' }, false)).updates).toEqual([]);
    expect((await t.translate({ type: 'error', code: 'ABORTED', message: 'Stopped.' }, true)).updates).toEqual([]);
    // A finished call the transcript never started is announced whole.
    const orphan = await t.translate({ type: 'tool_call_finished', call_id: 'old', tool: 'grep', ok: true, output: 'a.ts:1: x', duration_ms: 1 }, true);
    expect(orphan.updates.map((u) => u.sessionUpdate)).toEqual(['tool_call', 'tool_call_update']);
    expect(orphan.updates[0]).toMatchObject({ kind: 'search' });
  });

  it('sends notices as notices to a client that shows them, else as thoughts', async () => {
    expect((await translator([], { notices: true }).translate({ type: 'notice', text: 'Read tool calls from text.' }, false)).updates).toEqual([{ sessionUpdate: 'notice', severity: 'info', title: 'Read tool calls from text.' }]);
    expect((await translator().translate({ type: 'notice', text: 'Read tool calls from text.' }, false)).updates[0]).toMatchObject({ sessionUpdate: 'agent_thought_chunk' });
    const hook = await translator([], { notices: true }).translate({ type: 'hook', event: 'PreToolUse', source: '.claude/settings.json', decision: 'deny', ms: 12, hook: './guard.sh', call_id: 'c1', reason: 'no rm here' }, false);
    expect(hook.updates).toEqual([{ sessionUpdate: 'notice', severity: 'info', title: 'Hook PreToolUse deny (.claude/settings.json: ./guard.sh): no rm here' }]);
  });
});
