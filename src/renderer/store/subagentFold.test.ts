import { describe, expect, it } from 'vitest';
import type { ChatEvent, ChatEventBody } from '../../shared/contract';
import { fakeHost as fakeClient } from './fakeHost.testkit';
import { applyChatEvent, foldTranscript, type ChatItem, type SubagentItem } from './chatSlice';
import { createAppStore } from './createAppStore';

const ev = (e: ChatEventBody, agent?: [string, string]): ChatEvent => ({ ...e, correlation_id: 'req-1', t: 0, ...(agent ? { agent_id: agent[0], parent_session_id: agent[1] } : {}) }) as ChatEvent;
const A: [string, string] = ['ses-a', 'ses-p'];
const B: [string, string] = ['ses-b', 'ses-p'];
const G: [string, string] = ['ses-g', 'ses-a'];
const started = (call: string, description: string): ChatEventBody => ({ type: 'subagent_started', call_id: call, description, agent_type: 'general', background: false, read_only: false, tools: ['read_file'], max_turns: 25, token_budget: 1000 });
const cards = (items: ChatItem[]) => items.filter((i): i is SubagentItem => i.kind === 'subagent');

describe('subagents in the chat fold', () => {
  it('each child is a card holding its own conversation; a grandchild’s card sits in its parent’s; the parent’s text stays its own', () => {
    const events: ChatEvent[] = [
      ev({ type: 'text_delta', text: 'Delegating.' }),
      ev({ type: 'tool_call_started', call_id: 'a1', tool: 'agent', title: 'Start a subagent', effect: 'execute', summary: 'general: A', args: {} }),
      ev({ type: 'tool_call_started', call_id: 'a2', tool: 'agent', title: 'Start a subagent', effect: 'execute', summary: 'general: B', args: {} }),
      ev(started('a1', 'Task A'), A),
      ev(started('a2', 'Task B'), B),
      ev({ type: 'turn_started', turn: 1 }, A),
      ev({ type: 'text_delta', text: 'A thinks' }, A),
      ev({ type: 'text_delta', text: 'B thinks' }, B),
      ev({ type: 'tool_call_started', call_id: 'r1', tool: 'read_file', title: 'Read', effect: 'read', summary: 'x', args: {} }, A),
      ev(started('c1', 'Grand task'), G),
      ev({ type: 'tool_call_started', call_id: 'g1', tool: 'grep', title: 'Grep', effect: 'read', summary: 'y', args: {} }, G),
      ev({ type: 'usage', usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, estimated: false, conversation_tokens: 15, context_window: 1000, context_window_source: 'default', session: { prompt_tokens: 20, completion_tokens: 10, total_tokens: 30, calls: 2, estimated_calls: 0, cost_usd: 0.01 } } }, A),
      ev({ type: 'subagent_finished', status: 'done', text: 'G done', turns: 1, tokens: 15, files: [] }, G),
      ev({ type: 'subagent_finished', status: 'stopped', text: '', turns: 1, tokens: 30, files: ['a.txt'], stopped_by: 'person', reason: 'Stopped by the person.' }, A),
    ];
    const items = events.reduce(applyChatEvent, [] as ChatItem[]);
    expect(items.map((i) => i.kind)).toEqual(['assistant', 'tool', 'tool', 'subagent', 'subagent']);
    expect(items[0]).toMatchObject({ text: 'Delegating.' });
    const [a, b] = cards(items);
    expect(a).toMatchObject({ id: 'ses-a', callId: 'a1', description: 'Task A', status: 'stopped', turns: 1, tokens: 30, costUsd: 0.01, files: ['a.txt'], reason: 'Stopped by the person.' });
    expect(a.items.map((i) => i.kind)).toEqual(['assistant', 'tool', 'subagent']);
    expect(a.items[0]).toMatchObject({ text: 'A thinks', streaming: false });
    expect(cards(a.items)[0]).toMatchObject({ id: 'ses-g', status: 'done', items: [{ kind: 'tool', tool: 'grep' }] });
    expect(b).toMatchObject({ status: 'running', items: [{ kind: 'assistant', text: 'B thinks' }] });
    // A reopened session folds its kept entries the same way.
    expect(foldTranscript(events).map((i) => i.kind)).toEqual(items.map((i) => i.kind));
  });

  it('a child’s end or usage never ends the parent’s request or moves its meter', () => {
    const { client } = fakeClient({ 'chat.sessions': () => [] });
    const store = createAppStore(client);
    store.setState({ chatSessionId: 'ses-p', chatRunning: { correlationId: 'req-1' } });
    store.getState().chatEvent('ses-p', ev(started('a1', 'Task A'), A));
    store.getState().chatEvent('ses-p', ev({ type: 'usage', usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2, estimated: false, conversation_tokens: 2, context_window: 10, context_window_source: 'default', session: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2, calls: 1, estimated_calls: 0 } } }, A));
    store.getState().chatEvent('ses-p', ev({ type: 'request_finished', status: 'done', text: '', turns: 1 }, A));
    expect(store.getState().chatRunning).toEqual({ correlationId: 'req-1' });
    expect(store.getState().chatUsage).toBeNull();
    expect(cards(store.getState().chatItems)).toHaveLength(1);
  });
});
