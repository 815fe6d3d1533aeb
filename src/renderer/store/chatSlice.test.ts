import { describe, expect, it } from 'vitest';
import type { ChatEvent, ChatEventBody } from '../../shared/contract';
import { HostRequestError } from '../host-client';
import { fakeHost as fakeClient } from './fakeHost.testkit';
import { applyChatEvent, foldTranscript, type ChatItem } from './chatSlice';
import { createAppStore } from './createAppStore';

const ev = (e: ChatEventBody): ChatEvent => ({ ...e, correlation_id: 'req-1', t: 0 }) as ChatEvent;
const run = (events: ChatEventBody[], start: ChatItem[] = []) => events.reduce((items, e) => applyChatEvent(items, ev(e)), start);


describe('chat events → the rendered conversation', () => {
  it('streams text into one assistant message, then a tool card with live output and its result', () => {
    const items = run([
      { type: 'text_delta', text: 'Let me ' },
      { type: 'text_delta', text: 'look.' },
      { type: 'tool_call_streaming', call_id: 'c1', tool: 'bash', title: 'Run a shell command', effect: 'execute' },
      { type: 'tool_call_args', call_id: 'c1', delta: '{"command":"ls' },
      { type: 'tool_call_args', call_id: 'c1', delta: '"}' },
      { type: 'tool_call_started', call_id: 'c1', tool: 'bash', title: 'Run a shell command', effect: 'execute', summary: 'ls', args: { command: 'ls' } },
      { type: 'tool_output', call_id: 'c1', text: 'a\n' },
      { type: 'tool_output', call_id: 'c1', text: 'b\n' },
    ]);
    expect(items.map((i) => i.kind)).toEqual(['assistant', 'tool']);
    expect(items[0]).toMatchObject({ text: 'Let me look.', streaming: false });
    expect(items[1]).toMatchObject({ status: 'running', output: 'a\nb\n', argsText: '{"command":"ls"}', args: { command: 'ls' }, title: 'Run a shell command', effect: 'execute', summary: 'ls' });
    const done = run([{ type: 'tool_call_finished', call_id: 'c1', tool: 'bash', ok: false, output: 'a\nb\nExit code: 1', error: { code: 'COMMAND_FAILED' as never, message: 'exit 1' }, duration_ms: 5 }], items);
    expect(done[1]).toMatchObject({ status: 'error', output: 'a\nb\nExit code: 1', error: 'exit 1', errorCode: 'COMMAND_FAILED' });
  });

  it('shows the person’s words where the tool gave them, never the model’s', () => {
    const started = { type: 'tool_call_started', call_id: 'c1', tool: 'bash', title: 'Run a shell command', effect: 'execute', summary: 'x', args: {} } as const;
    const said = run([started, { type: 'tool_call_finished', call_id: 'c1', tool: 'bash', ok: true, output: 'Started proc-1; read new output with process_output("proc-1").', for_person: 'Started proc-1; shown live in the Processes pane.', duration_ms: 5 }]);
    expect(said[0]).toMatchObject({ output: 'Started proc-1; shown live in the Processes pane.' });
    const refused = run([
      started,
      { type: 'tool_call_finished', call_id: 'c1', tool: 'bash', ok: false, output: 'Error [PERMISSION_DENIED]: Blocked by hook x\nDo not try to get around it.', for_person: '', error: { code: 'PERMISSION_DENIED', message: 'Blocked by hook x\nDo not try to get around it.', details: { denied_by: 'hook' }, for_person: 'Blocked by hook x' }, duration_ms: 5 },
    ]);
    expect(refused[0]).toMatchObject({ output: '', error: 'Blocked by hook x', errorCode: 'PERMISSION_DENIED', deniedBy: 'hook' });
  });

  it('a command that exits non-zero is failed with its exit code; exit 0 is done', () => {
    const started = (id: string) => ({ type: 'tool_call_started', call_id: id, tool: 'bash', title: 'Run a shell command', effect: 'execute', summary: 'ls', args: {} }) as const;
    const finished = (id: string, exit: number) => ({ type: 'tool_call_finished', call_id: id, tool: 'bash', ok: true, output: '', data: { exit_code: exit }, duration_ms: 1 }) as const;
    const items = run([started('c1'), finished('c1', 2), started('c2'), finished('c2', 0)]);
    expect(items).toMatchObject([
      { status: 'failed', exitCode: 2 },
      { status: 'done', exitCode: 0 },
    ]);
  });

  it('a retry drops the half-streamed text; an error is shown in place; a stop settles running cards', () => {
    const items = run([
      { type: 'text_delta', text: 'partial' },
      { type: 'retry', attempt: 1, delay_ms: 500, reason: 'HTTP 429' },
      { type: 'text_delta', text: 'whole' },
      { type: 'tool_call_started', call_id: 'c2', tool: 'bash', title: 'Run a shell command', effect: 'execute', summary: 'sleep 9', args: { command: 'sleep 9' } },
      { type: 'error', code: 'ABORTED', message: 'Stopped by the user.' },
      { type: 'error', code: 'LLM_ERROR', message: 'boom' },
      { type: 'request_finished', status: 'aborted', text: '', turns: 1 },
    ]);
    expect(items.map((i) => i.kind)).toEqual(['note', 'assistant', 'tool', 'note', 'error']);
    expect(items[1]).toMatchObject({ text: 'whole', streaming: false });
    expect(items[2]).toMatchObject({ status: 'error', error: 'Stopped.' });
    expect(items[4]).toMatchObject({ code: 'LLM_ERROR', message: 'boom' });
  });

  it('retries of one failure are one line that updates', () => {
    const items = run([
      { type: 'retry', attempt: 1, delay_ms: 500, reason: 'HTTP 429' },
      { type: 'retry', attempt: 2, delay_ms: 1000, reason: 'HTTP 429' },
      { type: 'retry', attempt: 3, delay_ms: 2000, reason: 'HTTP 429' },
    ]);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ kind: 'note', text: 'The model request failed (HTTP 429); retry 3 in 2.0 s…' });
  });

  it('reasoning is its own collapsed item, never the answer; a notice is a note; a retry drops both half-streamed', () => {
    const items = run([
      { type: 'reasoning_delta', text: 'Let me ' },
      { type: 'reasoning_delta', text: 'think.' },
      { type: 'text_delta', text: 'The answer.' },
      { type: 'notice', text: 'The model wrote a tool call as text (grep); recognised and run like a real call.' },
    ]);
    expect(items.map((i) => i.kind)).toEqual(['reasoning', 'assistant', 'note']);
    expect(items[0]).toMatchObject({ text: 'Let me think.', streaming: false });
    expect(items[1]).toMatchObject({ text: 'The answer.' });
    const retried = run([{ type: 'reasoning_delta', text: 'half' }, { type: 'retry', attempt: 1, delay_ms: 5, reason: 'cut' }]);
    expect(retried.map((i) => i.kind)).toEqual(['note']);
  });
});

describe('chat slice', () => {
  it('makes a session before the first send, shows the prompt at once, and a refused send in place', async () => {
    const { client, calls } = fakeClient({
      'chat.newSession': () => ({ id: 'ses-1', title: 'New session', created_at: '', updated_at: '', requests: 0 }),
      'chat.send': () => {
        throw new HostRequestError('LLM_ERROR', 'No model is connected. Open Settings.', 'chat.send');
      },
      'chat.sessions': () => [],
    });
    const store = createAppStore(client);
    await store.getState().sendChat('hi there');
    const s = store.getState();
    expect(calls.map((c) => c.ch)).toEqual(['chat.newSession', 'chat.send']);
    expect(calls[1].p).toEqual({ session_id: 'ses-1', text: 'hi there', mode: 'act' });
    expect(s.chatItems).toMatchObject([
      { kind: 'user', text: 'hi there' },
      { kind: 'error', code: 'LLM_ERROR', message: 'No model is connected. Open Settings.' },
    ]);
    expect(s.chatRunning).toBeNull();
  });

  it('follows only the open session and tracks running, usage and the end', () => {
    const { client } = fakeClient({ 'chat.sessions': () => [] });
    const store = createAppStore(client);
    store.setState({ chatSessionId: 'ses-1' });
    store.getState().chatEvent('ses-2', ev({ type: 'text_delta', text: 'elsewhere' }));
    expect(store.getState().chatItems).toEqual([]);
    store.getState().chatEvent('ses-1', ev({ type: 'request_started', session_id: 'ses-1', prompt: 'x' }));
    expect(store.getState().chatRunning).toEqual({ correlationId: 'req-1' });
    const session = { prompt_tokens: 30, completion_tokens: 9, total_tokens: 39, calls: 2, estimated_calls: 0 };
    const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, estimated: false, conversation_tokens: 15, context_window: 32768, context_window_source: 'default' as const, session };
    store.getState().chatEvent('ses-1', ev({ type: 'usage', usage }));
    store.getState().chatEvent('ses-1', ev({ type: 'request_finished', status: 'done', text: '', turns: 1 }));
    expect(store.getState()).toMatchObject({ chatRunning: null, chatUsage: usage });
  });

  it('a slow open never takes the chat back from a session the person made and runs meanwhile', async () => {
    let answer: (v: unknown) => void = () => {};
    const { client } = fakeClient({
      'chat.session': () => new Promise((r) => (answer = r)),
      'chat.newSession': () => ({ id: 'ses-new', title: 'New session', created_at: '', updated_at: '', requests: 0, running: false }),
    });
    const store = createAppStore(client);
    const opening = store.getState().openChatSession('ses-old');
    await store.getState().newChatSession();
    store.getState().chatEvent('ses-new', ev({ type: 'request_started', session_id: 'ses-new', prompt: 'steer me' }));
    answer({ id: 'ses-old', title: 'old', entries: [], running_correlation_id: null, undone: [], queued: [] });
    await opening;
    expect(store.getState()).toMatchObject({ chatSessionId: 'ses-new', chatRunning: { correlationId: 'req-1' } });
  });

  it('after a reload the running conversation opens again, live, with the agent tab in front', async () => {
    const summary = (id: string, running: boolean) => ({ id, title: id, created_at: '', updated_at: '', requests: 1, running });
    const { client } = fakeClient({
      'chat.sessions': () => [summary('ses-old', false), summary('ses-live', true)],
      'chat.session': (p) => ({ session: summary((p as { id: string }).id, true), entries: [{ type: 'user_message', text: 'go' }], running_correlation_id: 'req-9' }),
    });
    const store = createAppStore(client);
    await store.getState().resumeChat();
    expect(store.getState()).toMatchObject({ chatSessionId: 'ses-live', chatRunning: { correlationId: 'req-9' }, agentPanelTab: 'agent' });
    expect(store.getState().chatItems).toMatchObject([{ kind: 'user', text: 'go' }]);
    store.getState().chatEvent('ses-live', ev({ type: 'request_finished', status: 'done', text: '', turns: 1 }));
    expect(store.getState().chatRunning).toBeNull();
  });

  it('answers approvals with the edited rule', async () => {
    const { client, calls } = fakeClient({ 'approvals.answer': () => ({ answered: true }) });
    const store = createAppStore(client);
    await store.getState().answerApproval('appr-1', { answer: 'always', patterns: ['npm run *'] });
    expect(calls[0]).toEqual({ ch: 'approvals.answer', p: { id: 'appr-1', answer: 'always', patterns: ['npm run *'] } });
    expect(store.getState().approvalBusy).toEqual({});
  });
});

describe('chat slice streaming', () => {
  it('joins tokens into one update per frame, in order with the events around them', async () => {
    const { client } = fakeClient({ 'chat.sessions': () => [] });
    const store = createAppStore(client);
    store.setState({ chatSessionId: 'ses-1' });
    let renders = 0;
    store.subscribe(() => renders++);
    for (let i = 0; i < 500; i++) store.getState().chatEvent('ses-1', ev({ type: 'text_delta', text: `t${i} ` }));
    expect(renders).toBe(0);
    await new Promise((r) => setTimeout(r, 40));
    expect(renders).toBe(1);
    store.getState().chatEvent('ses-1', ev({ type: 'text_delta', text: 'last' }));
    store.getState().chatEvent('ses-1', ev({ type: 'tool_call_started', call_id: 'c', tool: 'grep', title: 'Search file contents', effect: 'read', summary: '', args: {} }));
    const items = store.getState().chatItems;
    expect(items.map((i) => i.kind)).toEqual(['assistant', 'tool']);
    expect((items[0] as { text: string }).text.endsWith('t499 last')).toBe(true);
  });

  it('while the agent works, a message is queued in the chosen mode, not sent; a plan answer is drawn once, as the card', async () => {
    const { client, calls } = fakeClient({ 'chat.enqueue': () => ({ id: 'q-1' }) });
    const store = createAppStore(client);
    store.setState({ chatSessionId: 'ses-1', chatRunning: { correlationId: 'req-1' } });
    store.getState().setChatMode('plan');
    await store.getState().sendChat('and the docs');
    expect(calls.map((c) => [c.ch, c.p])).toEqual([['chat.enqueue', { session_id: 'ses-1', text: 'and the docs', mode: 'plan' }]]);
    expect(store.getState().chatItems).toEqual([]);
    store.getState().queuedChanged('ses-1', [{ id: 'q-1', text: 'and the docs', mode: 'plan', steer: false }]);
    store.getState().queuedChanged('ses-other', []);
    expect(store.getState().chatQueued).toHaveLength(1);
    const folded = foldTranscript([
      { type: 'user_message', text: 'plan it', correlation_id: 'req-1', mode: 'plan' },
      { type: 'text_delta', text: '## Plan\n1. x' },
      { type: 'plan', path: '.loupe/plans/s/req-1.md', text: '## Plan\n1. x' },
    ]);
    expect(folded.map((i) => i.kind)).toEqual(['user', 'plan']);
    expect(folded[1]).toMatchObject({ correlationId: 'req-1' });
  });
});
