// Tokens, context and cost: the meter's numbers are the server's where it reports them, an
// estimate within 10 % of a real tokenizer's count where it does not, the window comes from
// /models before the settings, and compaction is an event with its summary that keeps the
// request in progress word for word. Real loop, real tools, the scripted server.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readFileTool } from '../../src/main/agent/tools/readFile';
import { ToolRegistry } from '../../src/main/agent/tools/registry';
import type { UsageView } from '../../src/shared/contract';
import type { RecordedRequest, ScriptedReply } from '../support/scriptedLlm';
import { agentHarness, call, type AgentHarness } from './agentHarness';

let hs: AgentHarness[] = [];
afterEach(async () => {
  await Promise.all(hs.map((h) => h.cleanup()));
  hs = [];
});
const harness = async (...args: Parameters<typeof agentHarness>) => {
  const h = await agentHarness(...args);
  hs.push(h);
  return h;
};

const usages = (h: AgentHarness): UsageView[] => h.of('usage').map((e) => e.usage);

describe('usage meter', () => {
  it('shows exactly what the server reported, the window from /models, the cost from the model table, and session totals', async () => {
    const h = await harness({
      files: { 'a.txt': 'alpha\n' },
      server: { models: [{ id: 'scripted', object: 'model', context_length: 200_000 }] },
      config: { contextTokens: 8_000, modelRow: { input_usd_per_mtok: 3, output_usd_per_mtok: 15 } },
    });
    h.llm.enqueue(
      { toolCalls: [call('r1', 'read_file', { path: 'a.txt' })], usage: { prompt_tokens: 1234, completion_tokens: 56, total_tokens: 1290 } },
      { content: 'It says alpha.', usage: { prompt_tokens: 1400, completion_tokens: 20, total_tokens: 1420 } },
    );
    await h.agent.run('what does a.txt say?');
    const [first, second] = usages(h);
    expect(first).toMatchObject({ prompt_tokens: 1234, completion_tokens: 56, total_tokens: 1290, conversation_tokens: 1290, estimated: false, context_window: 200_000, context_window_source: 'server' });
    expect(first.cost_usd).toBeCloseTo((1234 * 3 + 56 * 15) / 1e6, 12);
    expect(second).toMatchObject({ conversation_tokens: 1420, estimated: false });
    expect(second.session).toMatchObject({ prompt_tokens: 2634, completion_tokens: 76, total_tokens: 2710, calls: 2, estimated_calls: 0 });
    expect(second.session.cost_usd).toBeCloseTo((2634 * 3 + 76 * 15) / 1e6, 12);
    // The request's last event carries the meter too (`loupe run --json` readers need only that line).
    expect(h.of('request_finished')[0].usage).toEqual(second);

    // The session goes on: its totals keep counting across requests.
    h.llm.enqueue({ content: 'ok', usage: { prompt_tokens: 1500, completion_tokens: 3, total_tokens: 1503 } });
    await h.agent.run('thanks');
    expect(usages(h).at(-1)!.session).toMatchObject({ prompt_tokens: 4134, completion_tokens: 79, calls: 3 });
    expect(h.agent.usage.session.total_tokens).toBe(2710 + 1503);
  });

  it('falls back to the settings’ window, then to the default, and leaves cost out when no price is known', async () => {
    const fromSettings = await harness({ config: { contextTokens: 50_000 } });
    fromSettings.llm.enqueue({ content: 'hi' });
    await fromSettings.agent.run('hello');
    expect(usages(fromSettings)[0]).toMatchObject({ context_window: 50_000, context_window_source: 'settings', prompt_tokens: 10, completion_tokens: 5 });
    expect(usages(fromSettings)[0].cost_usd).toBeUndefined();
    expect(usages(fromSettings)[0].session.cost_usd).toBeUndefined();
    const byDefault = await harness({ server: { models: [{ id: 'other-model', context_length: 1_000_000 }] } });
    byDefault.llm.enqueue({ content: 'hi' });
    await byDefault.agent.run('hello');
    expect(usages(byDefault)[0]).toMatchObject({ context_window: 32_768, context_window_source: 'default' });
  });

  it('takes an OpenRouter-style price and window from /models', async () => {
    const h = await harness({ server: { models: [{ id: 'scripted', context_length: 131_072, pricing: { prompt: '0.000002', completion: '0.000008' }, architecture: { input_modalities: ['text', 'image'] } }] } });
    h.llm.enqueue({ content: 'hi', usage: { prompt_tokens: 1_000_000, completion_tokens: 1_000_000, total_tokens: 2_000_000 } });
    await h.agent.run('hello');
    expect(usages(h)[0]).toMatchObject({ context_window: 131_072, context_window_source: 'server' });
    expect(usages(h)[0].cost_usd).toBeCloseTo(10, 9);
  });

  it('estimates within 10 % of a real tokenizer’s count when the server reports no usage, and says it is an estimate', async () => {
    const source = await readFile(path.join(__dirname, '../../src/main/agent/llm/turnReader.ts'), 'utf8');
    const prose = (await readFile(path.join(__dirname, '../../docs/architecture.md'), 'utf8')).slice(0, 12_000);
    const files = { 'src/turnReader.ts': source, 'docs/notes.md': prose };
    const script = (): ScriptedReply[] => [
      { content: 'Reading both.', toolCalls: [call('r1', 'read_file', { path: 'src/turnReader.ts' }), call('r2', 'read_file', { path: 'docs/notes.md' })] },
      { toolCalls: [call('g1', 'grep', { pattern: 'finish_reason', output_mode: 'content' })] },
      { content: 'The reader keeps a turn whole when the stream ends without a finish_reason; the notes describe the layers. '.repeat(6) },
    ];
    // The real system prompt (tools, rules, environment), as a session sends it.
    const counted = await harness({ files, systemPrompt: undefined, server: { usage: 'counted' } });
    const omitted = await harness({ files, systemPrompt: undefined, server: { usage: 'omit' } });
    counted.llm.enqueue(...script());
    omitted.llm.enqueue(...script());
    await counted.agent.run('Explain how the turn reader handles a stream without finish_reason, and what the notes say.');
    await omitted.agent.run('Explain how the turn reader handles a stream without finish_reason, and what the notes say.');
    const real = usages(counted);
    const estimated = usages(omitted);
    expect(real.map((u) => u.estimated)).toEqual([false, false, false]);
    expect(estimated.map((u) => u.estimated)).toEqual([true, true, true]);
    expect(estimated[2].session).toMatchObject({ calls: 3, estimated_calls: 3 });
    for (const [i, u] of estimated.entries()) {
      const error = Math.abs(u.conversation_tokens - real[i].conversation_tokens) / real[i].conversation_tokens;
      expect(error, `turn ${i + 1}: estimated ${u.conversation_tokens}, counted ${real[i].conversation_tokens}`).toBeLessThan(0.1);
    }
    // Big enough that a missing part (the tools, the system prompt, a tool result) would show.
    expect(real[2].conversation_tokens).toBeGreaterThan(8_000);
  });
});

describe('compaction', () => {
  const big = (c: string) => `${c.repeat(70)}\n`.repeat(40); // ~2.8k chars
  const scriptReads = (names: string[], answer: string, summary: string) => {
    let turn = 0;
    return (req: RecordedRequest): ScriptedReply => {
      if (!req.body.stream) return { content: summary };
      const f = names[turn++];
      return f ? { toolCalls: [call(`r${f}`, 'read_file', { path: `${f}.txt` })] } : { content: answer };
    };
  };
  const userTexts = (req: RecordedRequest): string[] =>
    (req.body.messages ?? []).filter((m) => m.role === 'user').map((m) => (typeof m.content === 'string' ? m.content : (m.content as { type: string; text?: string }[]).map((p) => p.text ?? '').join('')));

  it('is an event with its summary, and the request in progress survives it word for word', async () => {
    const files = { 'a.txt': big('a'), 'b.txt': big('b'), 'c.txt': big('c'), 'd.txt': big('d'), 'e.txt': big('e') };
    const h = await harness({ contextTokens: 2500, registry: new ToolRegistry().register(readFileTool), files });
    const summary = 'SUMMARY: the files a to c hold repeated letters; nothing was changed.';
    // A request with lines, quotes, a tab and characters a paraphrase would lose.
    const prompt = 'Read a.txt … e.txt and tell me:\n\t1. which letter each repeats;\n\t2. whether any “differs” — `exactly` as written, 100 %.';
    h.llm.respondWith(scriptReads(['a', 'b', 'c', 'd', 'e'], 'each repeats its own letter', summary));
    const r = await h.agent.run(prompt);
    expect(r.status).toBe('done');
    const compacted = h.of('compacted');
    expect(compacted.length).toBeGreaterThanOrEqual(1);
    expect(compacted[0]).toMatchObject({ mode: 'summary', summary });
    expect(compacted[0].removed_messages).toBeGreaterThan(0);
    // Every request after a compaction carries the person's request, whole and unchanged.
    const after = h.llm.completions.filter((q) => q.body.stream).slice(-2);
    for (const q of after) expect(userTexts(q).some((t) => t === prompt || t.endsWith(`[The request being worked on:]\n${prompt}`))).toBe(true);
    // The summary call is counted in the session, not in the meter's conversation.
    expect(usages(h).at(-1)!.session.calls).toBe(h.llm.completions.length);
  });

  it('keeps the request’s attached files and image when it compacts its own turns away', async () => {
    const files = { 'a.txt': big('a'), 'b.txt': big('b'), 'c.txt': big('c'), 'd.txt': big('d') };
    const h = await harness({ contextTokens: 3000, registry: new ToolRegistry().register(readFileTool), files });
    h.llm.respondWith(scriptReads(['a', 'b', 'c', 'd'], 'done', 'SUMMARY'));
    const image = { type: 'image_url' as const, image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } };
    const text = 'compare the screenshot with the files\n\n<attached_file path="x.ts">\n```\nconst x = 1;\n```\n</attached_file>';
    await h.agent.run('compare the screenshot with the files', { content: [{ type: 'text', text }, image] });
    expect(h.of('compacted').length).toBeGreaterThanOrEqual(1);
    const last = h.llm.completions.at(-1)!.body.messages!;
    const withImage = last.find((m) => m.role === 'user' && Array.isArray(m.content) && (m.content as { type: string }[]).some((p) => p.type === 'image_url'));
    expect(withImage).toBeDefined();
    expect(JSON.stringify(withImage!.content)).toContain(JSON.stringify(text).slice(1, -1));
    expect(JSON.stringify(withImage!.content)).toContain(image.image_url.url);
  });
});
