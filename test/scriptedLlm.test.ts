// The scripted server speaks the wire format the real openai client expects, streamed or not.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pieces, startScriptedLlm, type ScriptedLlm } from './support/scriptedLlm';

let llm: ScriptedLlm;
let client: OpenAI;

beforeAll(async () => {
  llm = await startScriptedLlm();
  client = new OpenAI({ baseURL: llm.baseURL, apiKey: 'k', maxRetries: 0 });
});
afterAll(() => llm.close());

describe('scripted OpenAI-compatible server', () => {
  it('streams SSE: role chunk, content deltas, tool_call deltas split mid-JSON, finish_reason, [DONE]', async () => {
    const args = JSON.stringify({ path: 'src/a.ts', old_str: 'x', new_str: 'y' });
    llm.enqueue({ content: 'Editing the file now.', toolCalls: [{ id: 'call_1', name: 'edit_file', arguments: args }] });
    const stream = await client.chat.completions.create({ model: 'm', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'go' }] });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: '' });
    const content = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(content).toBe('Editing the file now.');
    const argParts = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []).map((t) => t.function?.arguments ?? '');
    expect(argParts.filter(Boolean).length).toBeGreaterThan(2);
    expect(argParts.join('')).toBe(args);
    expect(chunks.some((c) => c.choices[0]?.finish_reason === 'tool_calls')).toBe(true);
    expect(chunks[chunks.length - 1].usage?.total_tokens).toBe(15);
    expect(llm.completions[0].body).toMatchObject({ model: 'm', stream: true });
  });

  it('accumulates through the client’s stream helper into one message', async () => {
    llm.enqueue({ content: 'done' });
    const final = await client.chat.completions.stream({ model: 'm', messages: [{ role: 'user', content: 'q' }] }).finalChatCompletion();
    expect(final.choices[0].message.content).toBe('done');
    expect(final.choices[0].finish_reason).toBe('stop');
  });

  it('answers plain JSON without stream, and errors with the status asked for', async () => {
    llm.enqueue({ content: '{"a":1}' }, { status: 503 });
    const res = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'q' }] });
    expect(res.choices[0].message.content).toBe('{"a":1}');
    await expect(client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'q' }] })).rejects.toMatchObject({ status: 503 });
  });

  it('splits text into uneven pieces that join back', () => {
    expect(pieces('abcdefghijklmnopqrstuvwxyz').join('')).toBe('abcdefghijklmnopqrstuvwxyz');
  });
});
