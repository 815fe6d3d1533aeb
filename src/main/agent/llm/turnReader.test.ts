import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ServerError } from './errors';
import { EndpointProfile } from './profile';
import { TurnReader } from './turnReader';

const chunk = (delta: Record<string, unknown>, finish: string | null = null) => `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const body = (...frames: string[]) => frames.map((f) => new TextEncoder().encode(f));
const makeError = (code: number | undefined, message: string | undefined) => new ServerError(`HTTP ${code}: ${message}`, code, false);

function reader(toolNames: string[] = ['read_file']) {
  const seen = { text: '', reasoning: '', notices: [] as string[] };
  const r = new TurnReader(new EndpointProfile('http://t/v1'), { onText: (t) => (seen.text += t), onReasoning: (t) => (seen.reasoning += t), onNotice: (t) => seen.notices.push(t) }, { toolNames });
  return { r, seen };
}

describe('TurnReader', () => {
  it('reads the same turn however the bytes are cut, multi-byte characters and CRLF included (generated)', async () => {
    const frames = [
      ': keep-alive\r\n\r\n',
      chunk({ role: 'assistant', content: '' }),
      chunk({ content: '<think>naïve → 思考' }),
      chunk({ content: '</think>\n\nRésumé 🚀 ' }),
      chunk({ content: 'done.' }),
      chunk({ tool_calls: [{ index: 0, id: 'a', function: { name: 'read_file', arguments: '{"path":"' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: 'é.txt"}' } }] }),
      chunk({}, 'tool_calls'),
      'data: [DONE]\r\n\r\n',
    ];
    const bytes = new TextEncoder().encode(frames.join(''));
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 12 }), async (cuts) => {
        const at = [0, ...cuts.sort((a, b) => a - b), bytes.length];
        const parts = at.slice(1).map((end, i) => bytes.slice(at[i], end));
        const { r, seen } = reader();
        const turn = await r.read(parts, makeError);
        expect(turn.content).toBe('Résumé 🚀 done.');
        expect(seen.text).toBe('Résumé 🚀 done.');
        expect(seen.reasoning).toBe('naïve → 思考');
        expect(turn.toolCalls).toEqual([{ id: 'a', type: 'function', function: { name: 'read_file', arguments: '{"path":"é.txt"}' } }]);
      }),
      { numRuns: 300 },
    );
  });

  it('does not show a <tool_call> written as text, even cut across chunks, and runs it', async () => {
    const { r, seen } = reader();
    const turn = await r.read(body(chunk({ content: 'Reading.<tool_' }), chunk({ content: 'call>{"name":"read_file","arguments":{"path":"a"}}</tool_call>' }), chunk({}, 'stop'), 'data: [DONE]\n\n'), makeError);
    expect(seen.text).toBe('Reading.');
    expect(turn.toolCalls.map((c) => [c.function.name, c.function.arguments])).toEqual([['read_file', '{"path":"a"}']]);
    expect(turn.content).toBe('Reading.');
    expect(seen.notices).toHaveLength(1);
  });

  it('shows a <tool_call> for a tool not offered as the text it is', async () => {
    const { r, seen } = reader();
    const turn = await r.read(body(chunk({ content: 'x <tool_call>{"name":"nope","arguments":{}}</tool_call>' }, 'stop')), makeError);
    expect(turn.toolCalls).toEqual([]);
    expect(seen.text).toBe('x <tool_call>{"name":"nope","arguments":{}}</tool_call>');
  });

  it('accepts a whole answer without finish_reason; retries one cut inside a tool call', async () => {
    const ok = reader();
    expect(await ok.r.read(body(chunk({ content: 'Done.' })), makeError)).toMatchObject({ content: 'Done.', finishReason: 'stop' });
    const cut = reader();
    await expect(cut.r.read(body(chunk({ tool_calls: [{ index: 0, id: 'a', function: { name: 'read_file', arguments: '{"pa' } }] })), makeError)).rejects.toMatchObject({ message: expect.stringMatching(/cut off mid-stream \(the stream ended inside a tool call\)/) });
    const empty = reader();
    await expect(empty.r.read(body('data: [DONE]\n\n'), makeError)).rejects.toMatchObject({ message: expect.stringMatching(/before any answer/) });
  });

  it('turns error events, error lines and bare JSON errors into the server’s message', async () => {
    for (const frames of [
      ['error: {"code":400,"message":"context too small"}\n\n'],
      ['data: {"error":{"code":400,"message":"context too small"}}\n\n'],
      ['{"error":{"code":400,"message":"context too small"}}\n'],
    ]) {
      const { r } = reader();
      await expect(r.read(body(...frames), makeError)).rejects.toMatchObject({ message: 'HTTP 400: context too small', status: 400 });
    }
  });

  it('reads content sent as typed parts: thinking apart, text as the answer', async () => {
    const { r, seen } = reader([]);
    const turn = await r.read(body(chunk({ content: [{ type: 'thinking', thinking: [{ type: 'text', text: 'Hmm.' }] }] }), chunk({ content: [{ type: 'text', text: 'Answer.' }] }, 'stop')), makeError);
    expect(turn.content).toBe('Answer.');
    expect(seen.reasoning).toBe('Hmm.');
  });

  it('keeps provider reasoning fields whole; an answer only as reasoning becomes the answer', async () => {
    const { r, seen } = reader([]);
    const turn = await r.read(
      body(
        chunk({ reasoning: 'It is ', reasoning_details: [{ type: 'reasoning.text', text: 'It is ', index: 0 }] }),
        chunk({ reasoning: '42.', reasoning_details: [{ type: 'reasoning.text', text: '42.', index: 0 }] }),
        chunk({ reasoning_details: [{ type: 'reasoning.encrypted', data: 'zz', index: 1 }] }, 'stop'),
      ),
      makeError,
    );
    expect(turn.reasoningFields).toEqual({ reasoning: 'It is 42.', reasoning_details: [{ type: 'reasoning.text', text: 'It is 42.', index: 0 }, { type: 'reasoning.encrypted', data: 'zz', index: 1 }] });
    expect(turn.content).toBe('It is 42.');
    expect(seen.reasoning).toBe('It is 42.');
    expect(seen.notices.join()).toMatch(/only as reasoning/);
  });
});
