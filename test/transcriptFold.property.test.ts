// One fold for the live chat and a reopened session: any event stream, folded as it arrives,
// draws the same conversation as the entries the host keeps of it (joined, saved as JSON, read
// back and checked), folded again. Generated streams, so no event order is left untried.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatEvent, ChatEventBody, ChatTranscriptEntry } from '../src/shared/contract';
import { createToolRegistry } from '../src/main/agent/tools/registry';
import { checkedEntries, entriesFromMessages, keepEntry } from '../src/main/host/transcript';
import { foldTranscript, type ChatItem } from '../src/renderer/store/chatFold';

const callId = fc.constantFrom('call_a', 'call_b', 'call_c');
const tool = fc.constantFrom('bash', 'edit_file', 'read_file');
const text = fc.string({ maxLength: 6 });
const json = fc.dictionary(fc.string({ maxLength: 4 }), fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.boolean()), { maxKeys: 3 });
const code = fc.constantFrom('FILE_NOT_FOUND', 'PERMISSION_DENIED', 'ROLLBACK_CONFLICT', 'ABORTED' as const);

const body: fc.Arbitrary<ChatEventBody | { type: 'user_message'; text: string }> = fc.oneof(
  fc.record({ type: fc.constant('user_message' as const), text }),
  fc.record({ type: fc.constant('request_started' as const), session_id: fc.constant('ses-x'), prompt: text, mode: fc.constantFrom('act' as const, 'plan' as const) }, { requiredKeys: ['type', 'session_id', 'prompt'] }),
  fc.record({ type: fc.constant('steer' as const), text }),
  fc.record({ type: fc.constant('command_expanded' as const), name: fc.constantFrom('review', 'git:commit'), source: fc.constantFrom('personal' as const, 'repository' as const), text }),
  fc.record({ type: fc.constant('plan' as const), path: text, text }),
  fc.record({ type: fc.constant('turn_started' as const), turn: fc.nat(5) }),
  fc.record({ type: fc.constant('text_delta' as const), text }),
  fc.record({ type: fc.constant('text_delta' as const), text }),
  fc.record({ type: fc.constant('reasoning_delta' as const), text }),
  fc.record({ type: fc.constant('notice' as const), text }),
  fc.record({ type: fc.constant('tool_call_streaming' as const), call_id: callId, tool, title: fc.string({ minLength: 1 }), effect: fc.constantFrom('read' as const, 'write' as const, 'execute' as const) }),
  fc.record({ type: fc.constant('tool_call_args' as const), call_id: callId, delta: text }),
  fc.record({ type: fc.constant('tool_call_started' as const), call_id: callId, tool, title: fc.string({ minLength: 1 }), effect: fc.constantFrom('read' as const, 'write' as const, 'execute' as const), summary: fc.string(), args: json }),
  fc.record({ type: fc.constant('tool_output' as const), call_id: callId, text }),
  fc.record({ type: fc.constant('tool_output' as const), call_id: callId, text }),
  fc.record(
    {
      type: fc.constant('tool_call_finished' as const),
      call_id: callId,
      tool,
      ok: fc.boolean(),
      output: text,
      data: json,
      error: fc.record({ code, message: text, details: json }, { requiredKeys: ['code', 'message'] }),
      duration_ms: fc.nat(5000),
    },
    { requiredKeys: ['type', 'call_id', 'tool', 'ok', 'output', 'duration_ms'] },
  ),
  fc.record({
    type: fc.constant('usage' as const),
    usage: fc.record({
      prompt_tokens: fc.nat(),
      completion_tokens: fc.nat(),
      total_tokens: fc.nat(),
      estimated: fc.boolean(),
      conversation_tokens: fc.nat(),
      context_window: fc.nat(),
      context_window_source: fc.constantFrom('server' as const, 'settings' as const, 'default' as const),
      session: fc.record({ prompt_tokens: fc.nat(), completion_tokens: fc.nat(), total_tokens: fc.nat(), calls: fc.nat(), estimated_calls: fc.nat() }),
    }),
  }),
  fc.record({ type: fc.constant('retry' as const), attempt: fc.nat(3), delay_ms: fc.nat(2000), reason: text }),
  fc.record({ type: fc.constant('compacted' as const), mode: fc.constantFrom('summary' as const, 'dropped' as const), removed_messages: fc.nat(9), tokens_before: fc.nat(), tokens_after: fc.nat(), summary: text }),
  fc.record({ type: fc.constant('error' as const), code, message: text }),
  fc.record({ type: fc.constant('request_finished' as const), status: fc.constantFrom('done' as const, 'error' as const, 'aborted' as const), text, turns: fc.nat(3) }),
);

/** Store ids are minted per fold; a tool card's id is its call id and must match. */
const drawn = (items: ChatItem[]) => items.map((i) => (i.kind === 'tool' ? i : { ...i, id: '' }));

describe('the chat fold, live and reloaded', () => {
  it('draws the same conversation from the live events and from the kept, saved, reloaded entries', () => {
    fc.assert(
      fc.property(fc.array(body, { maxLength: 40 }), (bodies) => {
        // Requests follow one another: each request_started opens the next correlation.
        let request = 0;
        const live = bodies.map((b, i) => (b.type === 'user_message' ? b : ({ ...b, correlation_id: `req-${b.type === 'request_started' ? ++request : request}`, t: i } as ChatEvent)));
        const kept: ChatTranscriptEntry[] = [];
        for (const e of live) keepEntry(kept, e);
        const reloaded = checkedEntries(JSON.parse(JSON.stringify(kept)));
        expect(reloaded).toBeDefined();
        expect(drawn(foldTranscript(reloaded!))).toEqual(drawn(foldTranscript(live)));
        // Joining is what keeps the file small: never two streamed pieces in a row for one place.
        for (let i = 1; i < kept.length; i++) {
          const [a, b] = [kept[i - 1], kept[i]];
          if (a.type === b.type) expect(['text_delta', 'reasoning_delta'].includes(a.type)).toBe(false);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('whatever a session file holds, the entries let through fold without throwing into text the chat can draw', () => {
    const types = ['user_message', 'steer', 'plan', 'text_delta', 'reasoning_delta', 'notice', 'tool_call_streaming', 'tool_call_args', 'tool_call_started', 'tool_output', 'tool_call_finished', 'retry', 'compacted', 'error', 'request_finished', 'usage', '__proto__', 'toString'];
    const field = fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.boolean(), fc.constant(null), fc.dictionary(fc.string({ maxLength: 3 }), fc.string({ maxLength: 3 }), { maxKeys: 2 }), fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }));
    const entry = fc.record(
      { type: fc.constantFrom(...types), text: field, path: field, call_id: fc.oneof(callId, field), tool: field, delta: field, ok: field, output: field, data: field, error: fc.oneof(field, fc.record({ code: field, message: field })), code: field, message: field, attempt: field, delay_ms: field, reason: field, mode: field, removed_messages: field, duration_ms: field },
      { requiredKeys: ['type'] },
    );
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 12 }), (raw) => {
        const entries = checkedEntries(JSON.parse(JSON.stringify(raw)));
        if (!entries) return;
        for (const item of foldTranscript(entries)) {
          for (const k of ['text', 'output', 'error', 'message', 'code', 'tool'] as const) {
            const v = (item as Record<string, unknown>)[k];
            if (v !== undefined) expect(typeof v).toBe('string');
          }
        }
      }),
      { numRuns: 400 },
    );
  });

  it('a session file whose entries are not what the chat draws is rebuilt from its messages instead', () => {
    expect(checkedEntries([{ type: 'tool_call_finished', call_id: 'c', tool: 'bash', ok: true, output: { html: '<b>' }, duration_ms: 1 }])).toBeUndefined();
    expect(checkedEntries([{ type: 'constructor', text: 'x' }])).toBeUndefined();
    expect(checkedEntries([{ type: 'user_message', text: 7 }])).toBeUndefined();
    expect(checkedEntries('nope')).toBeUndefined();
    expect(checkedEntries([{ type: 'user_message', text: 'hi' }])).toEqual([{ type: 'user_message', text: 'hi' }]);
  });

  it('an older session (messages only) still reopens: answered calls done, unanswered failed, no duration shown', () => {
    const items = foldTranscript(
      entriesFromMessages([
        { role: 'user', content: 'go' },
        { role: 'assistant', content: 'Looking.', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } }, { id: 'c2', type: 'function', function: { name: 'bash', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'text' },
      ], (n, a) => createToolRegistry().callFacts(n, a)),
    );
    expect(items.map((i) => (i.kind === 'tool' ? [i.id, i.status, i.output, i.durationMs] : [i.kind]))).toEqual([['user'], ['assistant'], ['c1', 'done', 'text', undefined], ['c2', 'error', '(no result)', undefined]]);
  });
});
