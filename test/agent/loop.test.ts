// The agent loop end to end through the real openai client against the scripted server, on a
// real workspace with the real tools.
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readFileTool } from '../../src/main/agent/tools/readFile';
import { ToolRegistry } from '../../src/main/agent/tools/registry';
import type { RecordedRequest, ScriptedReply } from '../support/scriptedLlm';
import { agentHarness, call, toolMessages, type AgentHarness } from './agentHarness';

let h: AgentHarness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

describe('agent loop', () => {
  it('runs a multi-turn request: read, edit with the request’s correlation id, then answers', async () => {
    h = await agentHarness({ git: true, files: { 'src/a.ts': 'export const port = 3000;\n' } });
    h.llm.enqueue(
      { content: 'Let me look.', toolCalls: [call('c1', 'read_file', { path: 'src/a.ts' })] },
      { toolCalls: [call('c2', 'edit_file', { path: 'src/a.ts', old_str: '3000', new_str: '8080' })] },
      { content: 'Changed the port to 8080.' },
    );
    const r = await h.agent.run('set the port to 8080');
    expect(r).toMatchObject({ status: 'done', text: 'Changed the port to 8080.', turns: 3 });
    expect(await readFile(path.join(h.root, 'src/a.ts'), 'utf8')).toBe('export const port = 8080;\n');
    const reqs = h.llm.completions;
    expect(reqs).toHaveLength(3);
    expect(reqs[0].body.tools).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'function', function: expect.objectContaining({ name: 'edit_file' }) })]));
    expect(toolMessages(reqs[1].body).c1).toContain('1→export const port = 3000;');
    expect(toolMessages(reqs[2].body).c2).toMatch(/8080/);
    // The request's id travels in the tool context, not in the model's arguments; the modification log carries it.
    const edit = h.of('tool_call_started').find((e) => e.tool === 'edit_file')!;
    expect(edit.args).toEqual({ path: 'src/a.ts', old_str: '3000', new_str: '8080' });
    const log = await readFile(path.join(h.root, '.loupe/modifications.jsonl'), 'utf8');
    expect(JSON.parse(log.trim().split('\n')[0])).toMatchObject({ correlation_id: r.correlationId, tool: 'edit_file' });
    expect(h.of('text_delta').map((e) => e.text).join('')).toBe('Let me look.Changed the port to 8080.');
    expect(h.of('usage')).toHaveLength(3);
    expect(h.events.every((e) => e.correlation_id === r.correlationId)).toBe(true);
    expect(h.events.at(-1)).toMatchObject({ type: 'request_finished', status: 'done' });
    // The assistant turn that called tools is in the history exactly as the API wants it.
    expect(reqs[1].body.messages?.[2]).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'c1', function: { name: 'read_file' } }] });
  });

  it('runs two read-only calls of one turn concurrently, writing calls in order', async () => {
    h = await agentHarness({ files: { 'a.txt': 'alpha\n', 'b.txt': 'beta\n' } });
    h.llm.enqueue(
      { toolCalls: [call('r1', 'read_file', { path: 'a.txt' }), call('r2', 'read_file', { path: 'b.txt' })] },
      { toolCalls: [call('w1', 'write_file', { path: 'c.txt', content: 'one' }), call('r3', 'read_file', { path: 'c.txt' })] },
      { content: 'ok' },
    );
    expect((await h.agent.run('read both')).status).toBe('done');
    const order = h.events.filter((e) => e.type === 'tool_call_started' || e.type === 'tool_call_finished').map((e) => `${e.type === 'tool_call_started' ? '+' : '-'}${(e as { call_id: string }).call_id}`);
    expect(order.slice(0, 2).sort()).toEqual(['+r1', '+r2']);
    expect(order.slice(4)).toEqual(['+w1', '-w1', '+r3', '-r3']);
    const tools = toolMessages(h.llm.completions[1].body);
    expect(tools.r1).toContain('alpha');
    expect(tools.r2).toContain('beta');
    expect(toolMessages(h.llm.completions[2].body).r3).toContain('one');
  });

  it('answers malformed JSON arguments and an unknown tool as tool errors, and goes on', async () => {
    h = await agentHarness({ files: { 'a.txt': 'alpha\n' } });
    h.llm.enqueue(
      { toolCalls: [call('bad', 'read_file', '{"path": "a.txt"'), call('ghost', 'delete_everything', { all: true })] },
      { toolCalls: [call('good', 'read_file', { path: 'a.txt' })] },
      { content: 'recovered' },
    );
    const r = await h.agent.run('go');
    expect(r).toMatchObject({ status: 'done', text: 'recovered' });
    const tools = toolMessages(h.llm.completions[1].body);
    expect(tools.bad).toMatch(/^Error \[INVALID_ARGUMENT\]: The arguments for read_file are not valid JSON/);
    expect(tools.ghost).toMatch(/Unknown tool "delete_everything"\. Use one of: .*read_file/);
    expect(h.of('tool_call_finished').filter((e) => !e.ok).map((e) => e.error?.code)).toEqual(['INVALID_ARGUMENT', 'INVALID_ARGUMENT']);
  });

  it('retries after a 429 (respecting retry-after) and after a stream cut mid-way', async () => {
    h = await agentHarness();
    h.llm.enqueue({ status: 429, headers: { 'retry-after-ms': '30' } }, { content: 'partial answer that will be cut off somewhere', cutAfterFrames: 3 }, { content: 'whole answer' });
    const r = await h.agent.run('hi');
    expect(r).toMatchObject({ status: 'done', text: 'whole answer' });
    const retries = h.of('retry');
    expect(retries).toHaveLength(2);
    expect(retries[0]).toMatchObject({ attempt: 1, delay_ms: 30, reason: expect.stringContaining('429') });
    expect(retries[1].reason).toMatch(/cut off/);
    expect(h.of('text_delta').map((e) => e.text).join('')).toMatch(/^partial.+whole answer$/); // the cut came mid-answer
    expect(h.llm.completions).toHaveLength(3);
    // The text streamed before the cut is voided by the retry event; the answer kept is the retried one.
    expect(h.agent.messages.at(-1)).toEqual({ role: 'assistant', content: 'whole answer' });
  });

  it('ends with a clear LLM_ERROR when the stream keeps getting cut (no crash)', async () => {
    h = await agentHarness();
    h.llm.respondWith(() => ({ content: 'never finishes properly', cutAfterFrames: 2 }));
    const r = await h.agent.run('hi');
    expect(r.status).toBe('error');
    expect(r.error).toMatchObject({ code: 'LLM_ERROR', message: expect.stringMatching(/cut off mid-stream/) });
    expect(h.llm.completions).toHaveLength(5); // the first try and four retries
  });

  it('fails fast with LLM_ERROR saying how to connect a model when none is configured', async () => {
    h = await agentHarness();
    const { Agent } = await import('../../src/main/agent/loop/agentLoop');
    const agent = new Agent({ llm: null, registry: new ToolRegistry(), toolContext: (h.agent as unknown as { opts: { toolContext: never } }).opts.toolContext });
    const r = await agent.run('hello');
    expect(r).toMatchObject({ status: 'error', error: { code: 'LLM_ERROR', message: expect.stringMatching(/LOUPE_MODEL.*OPENAI_BASE_URL/s) } });
    expect(h.llm.requests).toHaveLength(0);
  });

  it('stops at the turn limit with a clear error', async () => {
    h = await agentHarness({ maxTurns: 2, files: { 'a.txt': 'x\n' } });
    h.llm.respondWith(() => ({ toolCalls: [call(`l${Math.random()}`, 'list_files', { pattern: '*' })] }));
    const r = await h.agent.run('loop forever');
    expect(r).toMatchObject({ status: 'turn_limit', turns: 2, error: { code: 'LLM_ERROR', message: expect.stringMatching(/Stopped after 2 model turns/) } });
    expect(h.llm.completions).toHaveLength(2);
  });

  it('pauses a call on a permission ask until it is answered', async () => {
    h = await agentHarness({ unattended: 'wait', sandbox: 'off' });
    h.llm.enqueue({ toolCalls: [call('b1', 'bash', { command: 'echo approved-run', description: 'echo' })] }, { content: 'done' });
    h.queue.onEvent((e) => {
      if (e.type === 'requested') setTimeout(() => h!.queue.answer(e.request.id, { answer: 'once' }), 100);
    });
    const started = Date.now();
    const r = await h.agent.run('echo something');
    expect(r.status).toBe('done');
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
    expect(toolMessages(h.llm.completions[1].body).b1).toContain('approved-run');
  });

  it('tells the model when a command is denied', async () => {
    h = await agentHarness({ unattended: 'deny', sandbox: 'off' });
    h.llm.enqueue({ toolCalls: [call('b1', 'bash', { command: 'rm -rf build', description: 'clean' })] }, { content: 'I could not clean.' });
    expect((await h.agent.run('clean')).status).toBe('done');
    expect(toolMessages(h.llm.completions[1].body).b1).toMatch(/PERMISSION_DENIED.*To allow it, add \{"kind":"bash"/);
  });
});

describe('stop', () => {
  it('aborts mid-stream: the stream is cancelled and the request ends as aborted', async () => {
    h = await agentHarness();
    h.llm.enqueue({ content: 'a long answer that never finishes streaming to the client', stallAfterFrames: 4 });
    const stop = new AbortController();
    h.agent.events.on((e) => e.type === 'text_delta' && stop.abort());
    const started = Date.now();
    const r = await h.agent.run('talk', { signal: stop.signal });
    expect(r.status).toBe('aborted');
    expect(Date.now() - started).toBeLessThan(3000);
    expect(h.of('error')).toEqual([expect.objectContaining({ code: 'ABORTED' })]);
    expect(h.of('retry')).toHaveLength(0);
    expect(h.agent.messages.at(-1)).toMatchObject({ role: 'assistant', content: expect.stringMatching(/^a long/) });
  });

  it('aborts mid-command: the bash process tree is killed, the call answered, nothing left running', async () => {
    const marker = `31.${process.pid}${Date.now() % 1000}`;
    h = await agentHarness();
    h.queue.setResponder(async () => ({ answer: 'once' }));
    h.llm.enqueue({ toolCalls: [call('b1', 'bash', { command: `sleep ${marker} & sleep ${marker}; echo never`, description: 'wait' })] });
    const stop = new AbortController();
    const running = () => execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).split('\n').filter((l) => l.includes(`sleep ${marker}`) && !l.includes('ps -eo'));
    // Stopped once both processes are seen running (or after 60 s, which fails the probe): a
    // loaded machine may take seconds to set up the sandbox, so no fixed delay.
    let seen: (n: number) => void = () => undefined;
    const probe = new Promise<number>((resolve) => (seen = resolve));
    h.agent.events.on((e) => {
      if (e.type !== 'tool_call_started') return;
      const started = Date.now();
      const poll = setInterval(() => {
        const n = running().length;
        if (n < 2 && Date.now() - started < 60_000) return;
        clearInterval(poll);
        seen(n);
        stop.abort();
      }, 50);
    });
    const r = await h.agent.run('wait', { signal: stop.signal });
    expect(await probe).toBeGreaterThanOrEqual(2); // the processes did run
    expect(r.status).toBe('aborted');
    expect(h.of('tool_call_finished')[0]).toMatchObject({ tool: 'bash', ok: false, error: { code: 'ABORTED' } });
    expect(running()).toEqual([]);
    // The call has its answer in the history, so the session can be resumed.
    expect(h.agent.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'b1' });
    expect(h.llm.completions).toHaveLength(1);
  }, 90_000);
});

describe('context budget', () => {
  const big = (c: string) => `${c.repeat(70)}\n`.repeat(40); // ~2.8k chars
  /** Streamed turns read the files one by one, then answer; the (unstreamed) summary request gets `summary`. */
  const scriptReads = (names: string[], answer: string, summary: ScriptedReply) => {
    let turn = 0;
    return (req: RecordedRequest): ScriptedReply => {
      if (!req.body.stream) return summary;
      const f = names[turn++];
      return f ? { toolCalls: [call(`r${f}`, 'read_file', { path: `${f}.txt` })] } : { content: answer };
    };
  };

  it('truncates a tool result to its share of the window, keeping head and tail', async () => {
    h = await agentHarness({ contextTokens: 4000, registry: new ToolRegistry().register(readFileTool), files: { 'big.txt': `${'HEAD\n'}${big('x').repeat(4)}TAIL\n` } });
    h.llm.enqueue({ toolCalls: [call('r', 'read_file', { path: 'big.txt' })] }, { content: 'ok' });
    await h.agent.run('read it');
    const out = toolMessages(h.llm.completions[1].body).r;
    expect(out.length).toBeLessThanOrEqual(4000);
    expect(out).toMatch(/HEAD[\s\S]*characters cut to fit the context window[\s\S]*TAIL/);
  });

  it('compacts old turns with a model summary when the conversation outgrows the window', async () => {
    const files = { 'a.txt': big('a'), 'b.txt': big('b'), 'c.txt': big('c'), 'd.txt': big('d') };
    h = await agentHarness({ contextTokens: 2500, registry: new ToolRegistry().register(readFileTool), files });
    h.llm.respondWith(scriptReads(['a', 'b', 'c', 'd'], 'all four files read', { content: 'SUMMARY: read a.txt and b.txt; they hold repeated letters.' }));
    const r = await h.agent.run('read the four files');
    expect(r).toMatchObject({ status: 'done', text: 'all four files read' });
    const compacted = h.of('compacted');
    expect(compacted.length).toBeGreaterThanOrEqual(1);
    expect(compacted[0]).toMatchObject({ mode: 'summary' });
    expect(compacted[0].tokens_after).toBeLessThan(compacted[0].tokens_before);
    const summaryReq = h.llm.completions.find((q) => !q.body.stream)!;
    expect(summaryReq.body.tools).toBeUndefined();
    const last = h.llm.completions.at(-1)!.body.messages!;
    const text = JSON.stringify(last);
    expect(text).toContain('SUMMARY: read a.txt');
    expect(text).toContain('read the four files'); // the request itself survives compaction
    // Every tool message still follows the assistant call that asked for it.
    const ids = new Set(last.flatMap((m) => m.tool_calls?.map((c) => c.id) ?? []));
    expect(last.filter((m) => m.role === 'tool').every((m) => ids.has(m.tool_call_id!))).toBe(true);
  });

  it('drops old turns with a marker when the summary request fails', async () => {
    const files = { 'a.txt': big('a'), 'b.txt': big('b'), 'c.txt': big('c') };
    h = await agentHarness({ contextTokens: 2500, registry: new ToolRegistry().register(readFileTool), files });
    h.llm.respondWith(scriptReads(['a', 'b', 'c'], 'done anyway', { status: 400 }));
    const r = await h.agent.run('read three');
    expect(r.status).toBe('done');
    expect(h.of('compacted')[0]).toMatchObject({ mode: 'dropped' });
    expect(JSON.stringify(h.llm.completions.at(-1)!.body.messages)).toMatch(/earlier messages were dropped to fit the context window/);
  });
});
