// The LLM client on its own: settings resolution, the model list, test connection, local
// server detection, and the retry policy.
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APIError } from 'openai';
import { LlmClient } from '../../src/main/agent/llm/client';
import { resolveLlmConfig } from '../../src/main/agent/llm/config';
import { describeDetected, detectLocalServers } from '../../src/main/agent/llm/detect';
import { backoffMs, isRetryable, retryAfterMs } from '../../src/main/agent/llm/retry';
import { startScriptedLlm, type ScriptedLlm } from '../support/scriptedLlm';

let llm: ScriptedLlm;
beforeAll(async () => {
  llm = await startScriptedLlm();
});
afterAll(() => llm.close());

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as { port: number };
  await new Promise((r) => srv.close(r));
  return port;
}

describe('settings resolution', () => {
  it('explicit settings win field by field over the environment; no model means none', () => {
    const env = { LOUPE_MODEL: 'env-model', OPENAI_BASE_URL: 'http://env/v1', OPENAI_API_KEY: 'env-key', LOUPE_CONTEXT_TOKENS: '8000' };
    expect(resolveLlmConfig({ model: 'mine', baseURL: ' ' }, env)).toEqual({ model: 'mine', baseURL: 'http://env/v1', apiKey: 'env-key', contextTokens: 8000 });
    expect(resolveLlmConfig({ apiKey: 'k2', contextTokens: 1000 }, env)).toMatchObject({ model: 'env-model', apiKey: 'k2', contextTokens: 1000 });
    expect(resolveLlmConfig({ baseURL: 'http://x/v1' }, {})).toBeNull();
    expect(resolveLlmConfig(undefined, { LOUPE_MODEL: 'm', LOUPE_CONTEXT_TOKENS: 'lots' })).toEqual({ model: 'm', apiKey: 'no-key' });
  });
});

describe('LlmClient', () => {
  it('lists models from /models and tests the connection', async () => {
    const client = new LlmClient({ baseURL: llm.baseURL, apiKey: 'k', model: 'scripted' });
    expect(await client.listModels()).toEqual(['scripted']);
    // Listed, then asked one tiny question that is answered.
    const asked = llm.completions.length;
    llm.enqueue({ content: 'ready' });
    expect(await client.testConnection()).toMatchObject({ ok: true, models: ['scripted'], reply: 'ready' });
    expect(llm.completions.slice(asked).map((r) => r.body.stream ?? false)).toEqual([false]);
    // A model that lists but does not answer is no working connection.
    llm.enqueue({ status: 404, errorBody: { error: { message: 'model is loading', type: 'not_found' } } });
    expect(await client.testConnection()).toMatchObject({ ok: false, models: ['scripted'], error: expect.stringMatching(/model is loading/) });
    const wrong = await new LlmClient({ baseURL: llm.baseURL, apiKey: 'k', model: 'gpt-nope' }).testConnection();
    expect(wrong).toMatchObject({ ok: false, error: expect.stringMatching(/no model "gpt-nope".*scripted/) });
    expect(llm.requests.at(-1)?.headers.authorization).toBe('Bearer k');
  });

  it('says what to check when the server is down', async () => {
    const client = new LlmClient({ baseURL: `http://127.0.0.1:${await closedPort()}/v1`, apiKey: 'k', model: 'm' }, { retry: { maxRetries: 1, baseDelayMs: 1 } });
    const test = await client.testConnection();
    expect(test).toMatchObject({ ok: false, error: expect.stringMatching(/Is the server at .* running\?/) });
    await expect(client.streamChat({ messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({ code: 'LLM_ERROR' });
  });

  it('gives up on a persistent 429 after its retries with LLM_ERROR, and does not retry a 401', async () => {
    const before = llm.completions.length;
    llm.enqueue({ status: 429 }, { status: 429 }, { status: 429 }, { status: 401 });
    const client = new LlmClient({ baseURL: llm.baseURL, apiKey: 'k', model: 'm' }, { retry: { maxRetries: 2, baseDelayMs: 1 } });
    await expect(client.streamChat({ messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({ code: 'LLM_ERROR', status: 429 });
    await expect(client.streamChat({ messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({ status: 401, message: expect.stringMatching(/OPENAI_API_KEY/) });
    expect(llm.completions.length - before).toBe(4);
  });

  it('a summary (complete) is the answer without the <think> block before it', async () => {
    llm.enqueue({ content: '<think>\nweigh it {not json}\n</think>\n\nThe summary.' });
    const client = new LlmClient({ baseURL: llm.baseURL, apiKey: 'k', model: 'm' });
    expect(await client.complete({ messages: [{ role: 'user', content: 'sum up' }] })).toBe('The summary.');
  });

  it('aborts while waiting to retry', async () => {
    llm.enqueue({ status: 503, headers: { 'retry-after': '30' } });
    const client = new LlmClient({ baseURL: llm.baseURL, apiKey: 'k', model: 'm' }, { retry: { maxDelayMs: 60_000 } });
    const stop = new AbortController();
    const started = Date.now();
    const p = client.streamChat({ messages: [{ role: 'user', content: 'x' }], signal: stop.signal }, { onRetry: () => stop.abort() });
    await expect(p).rejects.toMatchObject({ code: 'ABORTED' });
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe('two stream quirks, through the client’s own stream reading', () => {
  const collect = () => {
    const seen = { text: '', reasoning: '' };
    return { seen, handlers: { onText: (t: string) => (seen.text += t), onReasoning: (t: string) => (seen.reasoning += t) } };
  };

  it('a template that opens <think> in the prompt: the first answer’s reasoning never streams as the answer', async () => {
    const server = await startScriptedLlm([{ reasoning: 'PONDER one', thinkInContent: 'close-only', content: 'Answer one.' }, { reasoning: 'PONDER two', thinkInContent: 'close-only', content: 'Answer two.' }], { server: 'llamacpp', variant: 'think-in-prompt' });
    try {
      const client = new LlmClient({ baseURL: server.baseURL, apiKey: 'k', model: 'scripted' });
      for (const n of ['one', 'two']) {
        const { seen, handlers } = collect();
        const turn = await client.streamChat({ messages: [{ role: 'user', content: 'hi' }] }, handlers);
        expect(seen).toEqual({ text: `Answer ${n}.`, reasoning: `PONDER ${n}
` });
        expect(turn.content).toBe(`Answer ${n}.`);
      }
      // Asked once for the endpoint, with a stand-in conversation, never the person's.
      const asked = server.requests.filter((q) => q.path === '/apply-template');
      expect(asked).toHaveLength(1);
      expect(JSON.stringify(asked[0].body)).not.toContain('hi"');
    } finally {
      await server.close();
    }
  });

  it('the same template on a server that parses the reasoning out: the answer streams as the answer', async () => {
    const server = await startScriptedLlm([{ reasoning: 'PONDER', content: 'The answer.' }], { server: 'llamacpp', variant: 'think-in-prompt' });
    try {
      const { seen, handlers } = collect();
      await new LlmClient({ baseURL: server.baseURL, apiKey: 'k', model: 'scripted' }).streamChat({ messages: [{ role: 'user', content: 'hi' }] }, handlers);
      expect(seen).toEqual({ text: 'The answer.', reasoning: 'PONDER' });
    } finally {
      await server.close();
    }
  });

  it('two calls of one turn under one id come back as two calls with ids of their own', async () => {
    const dup = 'call_00_dS1Dnxavoyj3671yVxnr4217';
    const server = await startScriptedLlm([{ reasoning: 'r', toolCalls: [{ id: dup, name: 'read_file', arguments: '{"path":"a"}' }, { id: dup, name: 'read_file', arguments: '{"path":"b"}' }] }], { server: 'deepseek', variant: 'repeat-id' });
    try {
      const turn = await new LlmClient({ baseURL: server.baseURL, apiKey: 'k', model: 'scripted' }).streamChat({ messages: [{ role: 'user', content: 'hi' }], tools: [{ name: 'read_file', description: 'r', parameters: { type: 'object' } }] });
      expect(turn.toolCalls.map((c) => c.function.arguments)).toEqual(['{"path":"a"}', '{"path":"b"}']);
      expect(turn.toolCalls[0].id).toBe(dup);
      expect(new Set(turn.toolCalls.map((c) => c.id)).size).toBe(2);
    } finally {
      await server.close();
    }
  });
});

describe('retry policy', () => {
  const err = (status: number, headers: Record<string, string> = {}) => new APIError(status, undefined, 'x', new Headers(headers));

  it('retries 429, 408 and 5xx, not 4xx', () => {
    expect([429, 408, 500, 503].map((s) => isRetryable(err(s)))).toEqual([true, true, true, true]);
    expect([400, 401, 404].map((s) => isRetryable(err(s)))).toEqual([false, false, false]);
  });

  it('reads retry-after as ms, seconds or a date, and caps the wait', () => {
    expect(retryAfterMs(err(429, { 'retry-after-ms': '250' }))).toBe(250);
    expect(retryAfterMs(err(429, { 'retry-after': '3' }))).toBe(3000);
    expect(retryAfterMs(err(429, { 'retry-after': new Date(Date.now() + 5000).toUTCString() }))).toBeGreaterThan(3000);
    expect(backoffMs(1, { maxRetries: 3, baseDelayMs: 100, maxDelayMs: 2000 }, err(429, { 'retry-after': '120' }))).toBe(2000);
    const b = backoffMs(3, { maxRetries: 3, baseDelayMs: 100, maxDelayMs: 10_000 });
    expect(b).toBeGreaterThanOrEqual(300);
    expect(b).toBeLessThanOrEqual(500);
  });
});

describe('local server detection', () => {
  it('offers servers that answer /models and skips closed ports', async () => {
    const found = await detectLocalServers({
      candidates: [
        { name: 'Ollama', baseURL: `http://127.0.0.1:${await closedPort()}/v1` },
        { name: 'LM Studio', baseURL: llm.baseURL },
      ],
    });
    expect(found).toEqual([{ name: 'LM Studio', baseURL: llm.baseURL, models: ['scripted'] }]);
    expect(describeDetected(found)).toContain(`OPENAI_BASE_URL=${llm.baseURL} LOUPE_MODEL=scripted`);
    expect(describeDetected([])).toBe('');
  });
});

describe('local server detection, what it costs', () => {
  it('gives up on a server that never answers within the timeout, and when aborted', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as AddressInfo).port;
    try {
      const t0 = performance.now();
      expect(await detectLocalServers({ candidates: [{ name: 'Silent', baseURL: `http://127.0.0.1:${port}/v1` }], timeoutMs: 150 })).toEqual([]);
      expect(performance.now() - t0).toBeLessThan(2_000);
      const ac = new AbortController();
      const pending = detectLocalServers({ candidates: [{ name: 'Silent', baseURL: `http://127.0.0.1:${port}/v1` }], timeoutMs: 60_000, signal: ac.signal });
      ac.abort();
      expect(await pending).toEqual([]);
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
    }
  });

  it('does not load fetch: the first probe in a process leaves globalThis.fetch unloaded', async () => {
    const { execFileSync } = await import('node:child_process');
    const { build } = await import('vite');
    const path = await import('node:path');
    const { tempDir } = await import('../support/tmp');
    const out = await tempDir('loupe-detect-');
    try {
      await build({ configFile: false, logLevel: 'silent', build: { ssr: path.join(__dirname, '../../src/main/agent/llm/detect.ts'), outDir: out.dir, rollupOptions: { output: { format: 'es', entryFileNames: 'detect.mjs' } } } });
      // Node loads its fetch client on first touch of the global; the probe must not touch it.
      const script = `const seen = []; const d = Object.getOwnPropertyDescriptor(globalThis, 'fetch'); Object.defineProperty(globalThis, 'fetch', { configurable: true, get() { seen.push('fetch'); return d.get ? d.get.call(globalThis) : d.value; } });
        const { detectLocalServers } = await import(${JSON.stringify(path.join(out.dir, 'detect.mjs'))});
        await detectLocalServers({ candidates: [{ name: 'x', baseURL: 'http://127.0.0.1:9/v1' }], timeoutMs: 200 });
        process.stdout.write(JSON.stringify(seen));`;
      expect(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })).toBe('[]');
    } finally {
      await out.cleanup();
    }
  }, 60_000);
});
