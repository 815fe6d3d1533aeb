// A scripted OpenAI-compatible server for tests. With stream:true it answers in
// SSE exactly as the API does: a role chunk, content deltas, tool_call deltas whose arguments
// are split mid-JSON, a finish_reason chunk, an optional usage chunk, then `data: [DONE]`.
// With stream:false it answers one chat.completion object. Every request is recorded.
// `{ server: 'deepseek' | 'mistral' | … }` makes it speak like that real server instead, quirks
// and documented refusals included (serverDialects.ts). Usage, when asked for, is 10/5/15 by
// default; `usage: 'counted'` counts the request and the answer with a real tokenizer (o200k,
// tokenCount.ts), `usage: 'omit'` never reports it (as many local servers), and a reply's own
// `usage` says exactly what to report for it. `models` replaces the /v1/models entries.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerFrames, callIdFor, pieces, refusal, sideRoute, type ServerOptions } from './serverDialects';
import { countAnswer, countRequest } from './tokenCount';

export { pieces };
export type { ServerKind, ServerOptions } from './serverDialects';

export interface ScriptedToolCall {
  id?: string;
  name: string;
  /** The JSON arguments as the model would write them. */
  arguments: string;
}

export interface ScriptedReply {
  content?: string;
  toolCalls?: ScriptedToolCall[];
  finishReason?: 'stop' | 'tool_calls' | 'length';
  /** Answer with this HTTP error status instead. */
  status?: number;
  /** Wait before answering (abort tests). */
  delayMs?: number;
  /** Extra response headers (retry-after on a 429). */
  headers?: Record<string, string>;
  /** Stream only: drop the connection after this many SSE frames (a stream cut mid-way). */
  cutAfterFrames?: number;
  /** Stream only: after this many frames, send nothing more until the client goes away. */
  stallAfterFrames?: number;
  /** Stream only: pause between frames. */
  frameDelayMs?: number;
  /** With stallAfterFrames: an SSE comment every so often while silent (a keep-alive). */
  keepAliveMs?: number;
  /** With status: this error body instead of the generic one. */
  errorBody?: unknown;
  /** Answer HTTP 200 with this JSON body (an error a proxy sends as a success). */
  jsonBody?: unknown;
  /** Reasoning, sent the way the server sends it (its own field, or in the text: thinkInContent). */
  reasoning?: string;
  thinkInContent?: 'tags' | 'close-only';
  /** The tool calls written into the content instead of sent as calls. */
  textualToolCalls?: 'tagged' | 'fenced' | 'qwen3-xml';
  /** After the content, the server reports this error inside the stream. */
  streamError?: { code: number; message: string; type?: string; metadata?: Record<string, unknown> };
  /** The stream ends without any finish_reason. */
  noFinishReason?: boolean;
  /** Report exactly this usage for this answer (when the client asked for it), or none ('omit'). */
  usage?: Usage | 'omit';
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  // The parsed JSON body, as the client sent it.
  body: {
    model?: string;
    stream?: boolean;
    messages?: { role: string; content: unknown; tool_call_id?: string; tool_calls?: { id: string; function: { name: string; arguments: string } }[] }[];
    stream_options?: { include_usage?: boolean };
    [k: string]: unknown;
  };
}

export type Responder = (req: RecordedRequest) => ScriptedReply | Promise<ScriptedReply>;

export interface ScriptedLlm {
  /** Base URL for the openai client, ending in /v1. */
  baseURL: string;
  requests: RecordedRequest[];
  /** Chat completion requests only. */
  readonly completions: RecordedRequest[];
  enqueue(...replies: ScriptedReply[]): void;
  /** Answers every request the queue does not. */
  respondWith(responder: Responder | null): void;
  close(): Promise<void>;
}

let counter = 0;

function completion(reply: ScriptedReply, model: string) {
  const id = `chatcmpl-scripted-${++counter}`;
  const created = Math.floor(Date.now() / 1000);
  const toolCalls = (reply.toolCalls ?? []).map((t, i) => ({ id: t.id ?? `call_${counter}_${i}`, type: 'function' as const, function: { name: t.name, arguments: t.arguments } }));
  const finish = reply.finishReason ?? (toolCalls.length ? 'tool_calls' : 'stop');
  return { id, created, model, toolCalls, finish };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** What the server reports for this answer; null: nothing. */
async function usageOf(reply: ScriptedReply, req: RecordedRequest, opts: ServerOptions): Promise<Usage | null> {
  if (reply.usage === 'omit' || opts.usage === 'omit') return null;
  if (reply.usage) return reply.usage;
  if (opts.usage !== 'counted') return { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
  const prompt = await countRequest(req.body);
  const completion = await countAnswer(reply);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** The SSE frames of one streamed answer, in the order the API sends them. */
function streamFrames(reply: ScriptedReply, req: RecordedRequest, usage: Usage | null): string[] {
  const c = completion(reply, req.body.model ?? 'scripted');
  const frames: string[] = [];
  // Asked for usage, OpenAI sends `usage: null` on every chunk but the usage-only last one.
  const asked = req.body.stream_options?.include_usage === true;
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    frames.push(`data: ${JSON.stringify({ id: c.id, object: 'chat.completion.chunk', created: c.created, model: c.model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...(asked ? { usage: null } : {}) })}\n\n`);
  chunk({ role: 'assistant', content: '' });
  for (const p of pieces(reply.content ?? '')) chunk({ content: p });
  c.toolCalls.forEach((t, index) => {
    chunk({ tool_calls: [{ index, id: t.id, type: 'function', function: { name: t.function.name, arguments: '' } }] });
    for (const p of pieces(t.function.arguments, 5)) chunk({ tool_calls: [{ index, function: { arguments: p } }] });
  });
  chunk({}, c.finish);
  if (asked && usage) {
    frames.push(`data: ${JSON.stringify({ id: c.id, object: 'chat.completion.chunk', created: c.created, model: c.model, choices: [], usage })}\n\n`);
  }
  frames.push('data: [DONE]\n\n');
  return frames;
}

async function sendStream(res: ServerResponse, reply: ScriptedReply, req: RecordedRequest, opts: ServerOptions): Promise<void> {
  const usage = await usageOf(reply, req, opts);
  const frames = opts.server && opts.server !== 'openai' ? answerFrames(opts.server, opts.variant, reply, req, callIdFor(opts.server), usage) : streamFrames(reply, req, usage);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', ...reply.headers });
  for (let i = 0; i < frames.length; i++) {
    if (i === reply.cutAfterFrames) {
      // Let the frames reach the client first: a reset would discard what is still buffered.
      await new Promise((r) => setTimeout(r, 20));
      return void res.socket?.destroy();
    }
    if (i === reply.stallAfterFrames) {
      if (!reply.keepAliveMs) return; // the client's abort closes the socket
      const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(': OPENROUTER PROCESSING\n\n')), reply.keepAliveMs);
      res.on('close', () => clearInterval(timer));
      return;
    }
    if (reply.frameDelayMs) await new Promise((r) => setTimeout(r, reply.frameDelayMs));
    if (res.destroyed) return;
    res.write(frames[i]);
  }
  res.end();
}

async function sendCompletion(res: ServerResponse, reply: ScriptedReply, req: RecordedRequest, opts: ServerOptions): Promise<void> {
  const c = completion(reply, req.body.model ?? 'scripted');
  const usage = await usageOf(reply, req, opts);
  sendJson(res, 200, {
    id: c.id,
    object: 'chat.completion',
    created: c.created,
    model: c.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: reply.content ?? null, refusal: null, ...(c.toolCalls.length ? { tool_calls: c.toolCalls } : {}) },
        logprobs: null,
        finish_reason: c.finish,
      },
    ],
    ...(usage ? { usage } : {}),
  });
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startScriptedLlm(script: ScriptedReply[] | Responder = [], opts: ServerOptions = {}): Promise<ScriptedLlm> {
  const queue: ScriptedReply[] = Array.isArray(script) ? [...script] : [];
  let responder: Responder | null = Array.isArray(script) ? null : script;
  const requests: RecordedRequest[] = [];

  const server = createServer(async (req, res) => {
    const raw = await readBody(req);
    let body: RecordedRequest['body'];
    try {
      body = raw ? JSON.parse(raw) : {};
    } catch {
      return sendJson(res, 400, { error: { message: 'body is not JSON', type: 'invalid_request_error' } });
    }
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const recorded: RecordedRequest = { method: req.method ?? 'GET', path: url.pathname, headers: req.headers, body };
    requests.push(recorded);
    if (req.method === 'GET' && url.pathname === '/v1/models') {
      return sendJson(res, 200, { object: 'list', data: opts.models ?? [{ id: 'scripted', object: 'model', created: 0, owned_by: 'test' }] });
    }
    const side = opts.server ? sideRoute(opts.server, opts.variant, recorded.method, url.pathname, body) : null;
    if (side) return sendJson(res, side.status, side.body);
    if (req.method !== 'POST' || url.pathname !== '/v1/chat/completions') {
      return sendJson(res, 404, { error: { message: `no route ${req.method} ${url.pathname}`, type: 'invalid_request_error' } });
    }
    // The real server's documented refusal comes before any scripted answer is used.
    const refused = opts.server ? refusal(opts.server, opts.variant, body) : null;
    if (refused) return sendJson(res, refused.status, refused.body);
    const reply = queue.shift() ?? (responder ? await responder(recorded) : undefined);
    if (!reply) return sendJson(res, 500, { error: { message: 'scripted LLM: no reply left in the script', type: 'server_error' } });
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
    if (res.destroyed) return;
    if (reply.status && reply.status >= 400) {
      for (const [k, v] of Object.entries(reply.headers ?? {})) res.setHeader(k, v);
      return sendJson(res, reply.status, reply.errorBody ?? { error: { message: `scripted error ${reply.status}`, type: 'server_error' } });
    }
    if (reply.jsonBody !== undefined) return sendJson(res, 200, reply.jsonBody);
    if (body.stream) await sendStream(res, reply, recorded, opts);
    else await sendCompletion(res, reply, recorded, opts);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    get completions() {
      return requests.filter((r) => r.path === '/v1/chat/completions');
    },
    enqueue: (...replies) => queue.push(...replies),
    respondWith: (fn) => (responder = fn),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The last user message of a recorded request, as text. */
export function userPrompt(req: RecordedRequest): string {
  const users = (req.body.messages ?? []).filter((m) => m.role === 'user');
  const last = users[users.length - 1]?.content;
  return typeof last === 'string' ? last : JSON.stringify(last ?? '');
}
