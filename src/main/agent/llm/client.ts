// The agent's model: streaming chat completions with tools against any OpenAI-compatible
// endpoint. The stream is read here rather than by the openai package, because real servers
// bend the format (see sse.ts, assembler.ts, turnReader.ts); every retry (429/5xx, a dropped
// connection, a stream cut mid-way) goes through one policy and is reported to the UI.
import type OpenAI from 'openai';
import { isOpenAIError } from './openaiErrors';
import { AbortedError, LoupeError } from '../../errors';
import type { LlmConfig } from './config';
import { IdleTimeoutError, LlmError, ServerError } from './errors';
import { getJson } from './detect';
import { modelFacts, readModelList, type ModelFacts, type ServerModelFacts } from './modelFacts';
import { endpointProfile, type EndpointProfile } from './profile';
import { DEFAULT_RETRY, backoffMs, fromHeaders, isRetryable, sleep, type RetryPolicy } from './retry';
import { errorCode, serverMessage, serverMessageFromText } from './serverMessage';
import { templateOpensThink } from './template';
import { splitThink } from './thinkSplitter';
import { TurnReader } from './turnReader';
import type { AssistantTurn, ChatMessage, ChatToolSpec, StreamHandlers, Usage } from './types';
import { toWire } from './wire';

export interface ChatRequest {
  messages: ChatMessage[];
  tools?: ChatToolSpec[];
  signal?: AbortSignal;
}

export interface LlmClientOptions {
  retry?: Partial<RetryPolicy>;
  /** How long the model may send no content (headers included) before the attempt fails. */
  timeoutMs?: number;
}

export interface ConnectionTest {
  ok: boolean;
  models: string[];
  latencyMs: number;
  /** What went wrong and what to check, when not ok. */
  error?: string;
  /** What the model answered the tiny request. */
  reply?: string;
}

/** How long a read of /models is trusted, and how long a failed one keeps Loupe from asking again. */
const MODELS_FRESH_MS = 10 * 60_000;
const MODELS_RETRY_MS = 60_000;
const MODELS_TIMEOUT_MS = 5_000;

export const DEFAULT_IDLE_TIMEOUT_MS = 180_000;

function idleTimeoutFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.LOUPE_LLM_IDLE_TIMEOUT_MS);
  return Number.isFinite(n) && n > 0 ? n : DEFAULT_IDLE_TIMEOUT_MS;
}

function describe(err: unknown): string {
  if (isOpenAIError(err, 'APIError') && err.status) return `HTTP ${err.status}: ${err.message.replace(/\.+$/, '')}`;
  const e = err as Error & { cause?: { code?: string; message?: string } };
  const cause = e?.cause?.code ?? e?.cause?.message;
  return `${e?.message ?? String(err)}${cause && !String(e?.message).includes(cause) ? ` (${cause})` : ''}`.replace(/\.+$/, '');
}

/** Turns whatever the client threw into LLM_ERROR (or ABORTED) with a next step. */
export function toLlmError(err: unknown, baseURL: string, signal?: AbortSignal): LoupeError {
  if (signal?.aborted || isOpenAIError(err, 'APIUserAbortError')) return new AbortedError('The model request');
  if (err instanceof LoupeError) return err;
  const status = isOpenAIError(err, 'APIError') ? err.status : undefined;
  const hint =
    status === 401 || status === 403
      ? ' Check OPENAI_API_KEY (or the API key in Settings).'
      : status === 404
        ? ' Check the model name (LOUPE_MODEL) and that the base URL ends in /v1.'
        : isOpenAIError(err, 'APIConnectionError') || err instanceof TypeError
          ? ` Is the server at ${baseURL} running?`
          : '';
  return new LlmError(`The model request failed: ${describe(err)}.${hint}`, status);
}

function statusHint(status: number, baseURL: string): string {
  if (status === 401 || status === 403) return ' Check OPENAI_API_KEY (or the API key in Settings).';
  if (status === 404) return ` Check the model name (LOUPE_MODEL) and that the base URL (${baseURL}) ends in /v1.`;
  return '';
}

const retryableStatus = (status: number | undefined): boolean => status === 429 || status === 408 || (status !== undefined && status >= 500);

/** An error the server sent: its own message first, then what to do. */
export function serverError(status: number | undefined, message: string | undefined, baseURL: string, retryAfterMs?: number): ServerError {
  const head = status ? `The model server answered HTTP ${status}` : 'The model server reported an error';
  const text = `${head}: ${(message ?? 'no message').replace(/\.+$/, '')}.${status ? statusHint(status, baseURL) : ''}`;
  return new ServerError(text, status, retryableStatus(status), retryAfterMs);
}

export class LlmClient {
  /** The openai client, made on the first call that needs it (see openaiErrors.ts for why). */
  private api: Promise<OpenAI> | null = null;
  private readonly retry: RetryPolicy;
  private readonly idleMs: number;
  private readonly requestTimeoutMs: number;
  readonly profile: EndpointProfile;
  /** Where requests go: as configured, else OPENAI_BASE_URL, else OpenAI's own (as the openai client decides). */
  readonly baseURL: string;

  constructor(
    readonly config: LlmConfig,
    opts: LlmClientOptions = {},
  ) {
    this.idleMs = opts.timeoutMs ?? idleTimeoutFromEnv();
    this.requestTimeoutMs = opts.timeoutMs ?? 300_000;
    this.retry = { ...DEFAULT_RETRY, ...opts.retry };
    this.baseURL = config.baseURL ?? (process.env.OPENAI_BASE_URL || 'https://api.openai.com/v1');
    this.profile = endpointProfile(this.baseURL);
  }

  private client(): Promise<OpenAI> {
    this.api ??= import('openai').then(({ default: OpenAI }) => new OpenAI({ apiKey: this.config.apiKey, baseURL: this.baseURL, maxRetries: 0, timeout: this.requestTimeoutMs }));
    return this.api;
  }

  /** Streams one answer, retrying transient failures; resolves with the whole turn. */
  async streamChat(req: ChatRequest, handlers: StreamHandlers = {}): Promise<AssistantTurn> {
    return this.withRetries(req.signal, handlers, () => this.streamLearning(req, handlers));
  }

  /** One non-streamed answer without tools (compaction summaries); `onUsage` hears what the server reported. */
  async complete(req: Omit<ChatRequest, 'tools'> & { onUsage?: (usage: Usage) => void }): Promise<string> {
    return this.withRetries(req.signal, {}, async () => {
      const res = await (await this.client()).chat.completions.create({ model: this.config.model, messages: toWire(req.messages, this.profile).messages as never }, { signal: req.signal });
      const u = res.usage;
      if (u && typeof u.prompt_tokens === 'number') req.onUsage?.({ prompt_tokens: u.prompt_tokens, completion_tokens: Number(u.completion_tokens) || 0, total_tokens: Number(u.total_tokens) || 0 });
      const raw = res.choices[0]?.message?.content;
      // A summary is the answer, not the model's thinking before it.
      const content = raw ? splitThink(raw, this.profile.thinkOpensInPrompt && !this.profile.reasoningSeparated).content.trim() || raw : raw;
      if (!content) throw new LlmError('The model returned an empty answer.');
      return content;
    });
  }

  async listModels(signal?: AbortSignal): Promise<string[]> {
    try {
      const ids: string[] = [];
      for await (const m of (await this.client()).models.list({ signal })) ids.push(m.id);
      return ids.sort();
    } catch (err) {
      throw toLlmError(err, this.baseURL, signal);
    }
  }

  /**
   * For a "Test connection" button: reachable, key accepted, the model there, and answering: the
   * models are listed, then the model is sent one tiny request. `model` unset: only the listing.
   */
  async testConnection(signal?: AbortSignal, opts: { ask?: boolean } = {}): Promise<ConnectionTest> {
    const started = performance.now();
    let models: string[] = [];
    try {
      models = await this.listModels(signal);
      const latencyMs = Math.round(performance.now() - started);
      if (models.length && !models.includes(this.config.model)) {
        return { ok: false, models, latencyMs, error: `The endpoint answers but has no model "${this.config.model}". Pick one of: ${models.slice(0, 20).join(', ')}.` };
      }
      if (opts.ask === false) return { ok: true, models, latencyMs };
      const reply = await this.complete({ messages: [{ role: 'user', content: 'Reply with the single word: ready' }], signal });
      return { ok: true, models, latencyMs: Math.round(performance.now() - started), reply: reply.slice(0, 200) };
    } catch (err) {
      return { ok: false, models, latencyMs: Math.round(performance.now() - started), error: (err as Error).message };
    }
  }

  /**
   * What the endpoint's /models says of the configured model (null: nothing, or it could not be
   * read). Read once per endpoint and kept a while in its profile; throws only when aborted.
   */
  async serverModel(signal?: AbortSignal): Promise<ServerModelFacts | null> {
    const cached = this.profile.serverModels;
    if (!cached || Date.now() - cached.at > (cached.models.size ? MODELS_FRESH_MS : MODELS_RETRY_MS)) {
      // node:http(s), not fetch: settings.get asks for this while a folder is opening (see detect.ts).
      const body = await getJson(`${this.baseURL.replace(/\/+$/, '')}/models`, MODELS_TIMEOUT_MS, signal, { authorization: `Bearer ${this.config.apiKey}` });
      const models = readModelList(body);
      if (signal?.aborted) throw new AbortedError('The model request');
      this.profile.serverModels = { at: Date.now(), models };
    }
    return this.profile.serverModels?.models.get(this.config.model) ?? null;
  }

  /** What is known now, without asking the server (its /models if read before). */
  cachedFacts(contextTokens?: number): ModelFacts {
    return modelFacts(this.config, this.profile.serverModels?.models.get(this.config.model) ?? null, contextTokens ?? this.config.contextTokens);
  }

  /** The model's window, images and price (modelFacts.ts); `contextTokens` stands in for the settings' window. */
  async facts(signal?: AbortSignal, contextTokens?: number): Promise<ModelFacts> {
    return modelFacts(this.config, await this.serverModel(signal), contextTokens ?? this.config.contextTokens);
  }

  private async withRetries<T>(signal: AbortSignal | undefined, handlers: StreamHandlers, attempt: () => Promise<T>): Promise<T> {
    for (let n = 1; ; n++) {
      try {
        return await attempt();
      } catch (err) {
        if (signal?.aborted) throw new AbortedError('The model request');
        if (n > this.retry.maxRetries || !isRetryable(err)) throw toLlmError(err, this.baseURL, signal);
        const delayMs = backoffMs(n, this.retry, err);
        handlers.onRetry?.({ attempt: n, delayMs: Math.round(delayMs), reason: err instanceof LoupeError ? err.message.replace(/\.+$/, '') : describe(err) });
        await sleep(delayMs, signal);
      }
    }
  }

  /**
   * Once per endpoint: whether its template opens the think block in the prompt (template.ts),
   * so the first answer's reasoning is never read as the answer. Asked again after an abort.
   */
  private learnTemplate(signal?: AbortSignal): Promise<void> {
    this.profile.templateAsked ??= templateOpensThink(this.baseURL, this.config.apiKey, signal).then((opens) => {
      if (opens) this.profile.thinkOpensInPrompt = true;
      if (opens === null && signal?.aborted) this.profile.templateAsked = null;
    });
    return this.profile.templateAsked;
  }

  /** One attempt; a refusal naming an optional field is learned and asked again without it. */
  private async streamLearning(req: ChatRequest, handlers: StreamHandlers): Promise<AssistantTurn> {
    for (;;) {
      const wire = toWire(req.messages, this.profile);
      const sent = new Set([...wire.sent, ...(this.profile.sends('stream_options') ? (['stream_options'] as const) : [])]);
      try {
        return await this.streamOnce(req, wire.messages, handlers);
      } catch (err) {
        const learned = err instanceof ServerError && err.status ? this.profile.learnFromRefusal(err.status, err.message, sent) : null;
        if (!learned) throw err;
        handlers.onNotice?.(`The server refused "${learned}" (${this.baseURL}); asked again without it, and this endpoint will not be sent it again.`);
      }
    }
  }

  private async streamOnce(req: ChatRequest, messages: Record<string, unknown>[], handlers: StreamHandlers): Promise<AssistantTurn> {
    const tools = req.tools?.length ? req.tools.map((t) => ({ type: 'function' as const, function: t })) : undefined;
    const body = {
      model: this.config.model,
      messages,
      stream: true,
      ...(this.profile.sends('stream_options') ? { stream_options: { include_usage: true } } : {}),
      ...(tools ? { tools } : {}),
    };
    // The idle limit covers waiting for headers and every silence between content chunks.
    const idle = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => idle.abort(), this.idleMs);
    };
    const signal = req.signal ? AbortSignal.any([req.signal, idle.signal]) : idle.signal;
    arm();
    // Asked beside the request, and settled before its answer is read.
    const template = this.learnTemplate(req.signal);
    try {
      const res = await fetch(`${this.baseURL.replace(/\/+$/, '')}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${this.config.apiKey}` },
        body: JSON.stringify(body),
        signal,
      });
      if (!res.ok) {
        const text = await res.text().catch(() => '');
        throw serverError(res.status, serverMessageFromText(text) ?? res.statusText, this.baseURL, fromHeaders(res.headers));
      }
      await template;
      const reader = new TurnReader(this.profile, handlers, { toolNames: (req.tools ?? []).map((t) => t.name), onContent: arm });
      const type = res.headers.get('content-type') ?? '';
      if (!type.includes('text/event-stream')) {
        // A 200 that is not a stream: a JSON error body, a whole completion, or SSE mislabelled.
        const text = await res.text();
        if (/^\s*(?:data|event|error)?:/.test(text)) {
          return await reader.read([new TextEncoder().encode(text)], (code, message) => serverError(code, message, this.baseURL));
        }
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          throw serverError(undefined, `an unreadable answer (${type || 'no content type'}): ${text.slice(0, 300)}`, this.baseURL);
        }
        const errorBody = (parsed as { error?: unknown }).error !== undefined || Array.isArray(parsed);
        if (errorBody) throw serverError(errorCode(parsed), serverMessage(parsed), this.baseURL);
        return reader.whole(parsed);
      }
      return await reader.read(res.body as unknown as AsyncIterable<Uint8Array>, (code, message) => serverError(code, message, this.baseURL));
    } catch (err) {
      if (idle.signal.aborted && !req.signal?.aborted) throw new IdleTimeoutError(this.idleMs);
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }
}
