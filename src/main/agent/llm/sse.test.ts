import { describe, expect, it } from 'vitest';
import { serverMessage, serverMessageFromText } from './serverMessage';
import { readSse } from './sse';

async function events(...chunks: string[]) {
  const body = (async function* () {
    for (const c of chunks) yield new TextEncoder().encode(c);
  })();
  const out = [];
  for await (const e of readSse(body)) out.push(e);
  return out;
}

describe('SSE as real servers send it', () => {
  it('reads data with or without a space, CRLF, comments, and lines cut across chunks', async () => {
    expect(await events(': OPENROUTER PROCESSING\r\n\r\ndata:{"a"', ':1}\r\n\r\ndata: [DONE]\n\n')).toEqual([{ kind: 'comment' }, { kind: 'data', data: '{"a":1}' }, { kind: 'data', data: '[DONE]' }]);
  });

  it('turns llama.cpp’s `error:` field and `event: error` into errors, and a last event without a blank line is not lost', async () => {
    expect(await events('error: {"code":400,"message":"too long"}\n\ndata: [DONE]\n\n')).toEqual([{ kind: 'error', data: '{"code":400,"message":"too long"}' }, { kind: 'data', data: '[DONE]' }]);
    expect(await events('event: error\ndata: {"message":"x"}\n\ndata: {"b":2}')).toEqual([{ kind: 'error', data: '{"message":"x"}' }, { kind: 'data', data: '{"b":2}' }]);
  });

  it('keeps a bare JSON line (an error body forwarded without `data:`)', async () => {
    expect(await events('{"error":{"code":400,"message":"request (6009 tokens) exceeds the available context size (4096 tokens)"}}')).toEqual([
      { kind: 'data', data: '{"error":{"code":400,"message":"request (6009 tokens) exceeds the available context size (4096 tokens)"}}' },
    ]);
  });
});

describe('the server’s own message', () => {
  it('reads OpenAI, OpenRouter (metadata.raw), Gemini (a list), Mistral (pydantic detail) and FastAPI bodies', () => {
    expect(serverMessage({ error: { message: 'bad key' } })).toBe('bad key');
    expect(serverMessage({ error: { code: 400, message: 'Provider returned error', metadata: { raw: 'upstream said no', provider_name: 'Google' } } })).toBe('Provider returned error (Google: upstream said no)');
    expect(serverMessage([{ error: { code: 400, message: 'API key not valid', status: 'INVALID_ARGUMENT' } }])).toBe('API key not valid');
    expect(serverMessage({ object: 'error', message: { detail: [{ type: 'extra_forbidden', loc: ['body', 'stream_options'], msg: 'Extra inputs are not permitted' }] } })).toBe('body.stream_options: Extra inputs are not permitted');
    expect(serverMessage({ detail: 'Not Found' })).toBe('Not Found');
    expect(serverMessage({ error: 'rate limited' })).toBe('rate limited');
    expect(serverMessage({})).toBeUndefined();
  });

  it('reads a text or HTML body as its words', () => {
    expect(serverMessageFromText('<html><head><style>b{}</style></head><body><h1>502 Bad Gateway</h1><hr>nginx</body></html>')).toBe('502 Bad Gateway nginx');
    expect(serverMessageFromText('upstream timed out')).toBe('upstream timed out');
    expect(serverMessageFromText('  ')).toBeUndefined();
  });
});
