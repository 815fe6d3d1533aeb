// The corrector against the scripted OpenAI-compatible server, through the real openai client.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedLlm, userPrompt, type ScriptedLlm } from '../../../../test/support/scriptedLlm';
import { createJsonChat } from '../llm/jsonChat';
import { CACHE_SIZE, LlmEditCorrector } from './corrector';
import type { Logger } from '../../services/log/logger';

let llm: ScriptedLlm;
const events: { event: string; fields: Record<string, unknown> }[] = [];
const logger: Logger = { info: (event, fields = {}) => events.push({ event, fields }), warn: (event, fields = {}) => events.push({ event, fields }), error: (event, fields = {}) => events.push({ event, fields }) };

beforeAll(async () => {
  llm = await startScriptedLlm();
});
afterAll(() => llm.close());
beforeEach(() => {
  llm.requests.length = 0;
  events.length = 0;
  llm.respondWith(null);
});

const corrector = (model = 'edit-model') => new LlmEditCorrector(createJsonChat({ baseURL: llm.baseURL, apiKey: 'k', model }), logger);
const common = (stats = { calls: 0 }) => ({ file: 'a.ts', fileHash: 'h1', signal: new AbortController().signal, stats });

describe('LLM edit corrector', () => {
  it('R2 asks the agent model for an exact literal, unique match and reads the JSON answer', async () => {
    llm.enqueue({ content: '```json\n{"corrected_target_snippet": "const a = 1"}\n```' });
    const stats = { calls: 0 };
    const answer = await corrector('my-model').correctOldString({ ...common(stats), fileContent: 'const a = 1\n', oldStr: 'const a = 1;' });
    expect(answer).toBe('const a = 1');
    expect(stats.calls).toBe(1);
    const req = llm.completions[0];
    expect(req.body).toMatchObject({ model: 'my-model', temperature: 0 });
    expect(req.body.stream).toBeFalsy();
    expect(userPrompt(req)).toContain('exact literal, unique match');
    expect(userPrompt(req)).toContain('const a = 1\n');
    expect(events.map((e) => e.event)).toEqual(['edit.correction.ask', 'edit.correction']);
  });

  it('R3 and R4 ask for their own fields', async () => {
    llm.enqueue({ content: '{"corrected_new_string": "n2"}' }, { content: '{"corrected_new_string_escaping": "e2"}' });
    const c = corrector();
    expect(await c.adjustNewString({ ...common(), originalOld: 'o', correctedOld: 'o2', newStr: 'n' })).toBe('n2');
    expect(await c.correctEscaping({ ...common(), newStr: 'e\\n', replaced: 'e' })).toBe('e2');
    expect(userPrompt(llm.completions[0])).toContain('corrected_new_string');
    expect(userPrompt(llm.completions[1])).toContain('over-escaped');
  });

  it('R9: caches answers by file hash and inputs (LRU, 50 entries)', async () => {
    llm.respondWith((req) => ({ content: JSON.stringify({ corrected_target_snippet: `answer ${userPrompt(req).length}` }) }));
    const c = corrector();
    const ask = (oldStr: string, fileHash = 'h1', stats = { calls: 0 }) => c.correctOldString({ ...common(stats), fileHash, fileContent: 'x', oldStr });
    const stats = { calls: 0 };
    const first = await ask('q', 'h1', stats);
    expect(await ask('q', 'h1', stats)).toBe(first);
    expect(stats.calls).toBe(1);
    await ask('q', 'h2');
    expect(llm.completions).toHaveLength(2);
    for (let i = 0; i < CACHE_SIZE; i++) await ask(`fill ${i}`);
    expect(llm.completions).toHaveLength(2 + CACHE_SIZE);
    await ask('q', 'h1');
    expect(llm.completions).toHaveLength(3 + CACHE_SIZE);
  });

  it('falls back (null) on a server error, a non-JSON answer or a missing field; failures are not cached', async () => {
    llm.enqueue({ status: 500 }, { content: 'I think it is line 3' }, { content: '{"corrected_target_snippet": "ok"}' }, { content: '{"other": 1}' });
    const c = corrector();
    const ask = (oldStr = 'y') => c.correctOldString({ ...common(), fileContent: 'x', oldStr });
    expect(await ask()).toBeNull();
    expect(await ask()).toBeNull();
    expect(await ask()).toBe('ok');
    expect(await ask('z')).toBeNull();
    expect(llm.completions).toHaveLength(4);
    expect(events.filter((e) => e.event === 'edit.correction.failed')).toHaveLength(2);
  });

  it('is abortable: an aborted request rejects with ABORTED', async () => {
    llm.enqueue({ delayMs: 2000, content: '{"corrected_target_snippet": "late"}' });
    const ac = new AbortController();
    const pending = corrector().correctOldString({ ...common(), signal: ac.signal, fileContent: 'x', oldStr: 'y' });
    setTimeout(() => ac.abort(), 50);
    await expect(pending).rejects.toMatchObject({ code: 'ABORTED' });
  });

  it('does not send files too large for a prompt', async () => {
    const stats = { calls: 0 };
    expect(await corrector().correctOldString({ ...common(stats), fileContent: 'x'.repeat(300_000), oldStr: 'y' })).toBeNull();
    expect(stats.calls).toBe(0);
  });
});
