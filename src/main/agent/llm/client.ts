// The agent's model: streaming chat completions with tools against any OpenAI-compatible
// endpoint. The openai client's own retries are off so that every retry (429/5xx, a dropped
// connection, a stream cut mid-way) goes through one policy and is reported to the UI.
import OpenAI from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { AbortedError, LoupeError } from '../../errors';
import type { LlmConfig } from './config';
import { LlmError, StreamCutError } from './errors';
import { DEFAULT_RETRY, backoffMs, isRetryable, sleep, type RetryPolicy } from './retry';
import type { AssistantTurn, ChatMessage, ChatToolCall, ChatToolSpec, StreamHandlers } from './types';

export interface ChatRequest {
  messages: ChatMessage[];
  tools?: ChatToolSpec[];
  signal?: AbortSignal;
}

export interface LlmClientOptions {
  retry?: Partial<RetryPolicy>;
  /** Per attempt; a stalled server counts as a failed attempt. */
  timeoutMs?: number;
}

export interface ConnectionTest {
  ok: boolean;
  models: string[];
  latencyMs: number;
  /** What went wrong and what to check, when not ok. */
  error?: string;
}

function describe(err: unknown): string {
  if (err instanceof OpenAI.APIError && err.status) return `HTTP ${err.status}: ${err.message.replace(/\.+$/, '')}`;
  return ((err as Error)?.message ?? String(err)).replace(/\.+$/, '');
}

/** Turns whatever the client threw into LLM_ERROR (or ABORTED) with a next step. */
export function toLlmError(err: unknown, baseURL: string, signal?: AbortSignal): LoupeError {
  if (signal?.aborted || err instanceof OpenAI.APIUserAbortError) return new AbortedError('The model request');
  if (err instanceof LoupeError) return err;
  const status = err instanceof OpenAI.APIError ? err.status : undefined;
  const hint =
    status === 401 || status === 403
      ? ' Check OPENAI_API_KEY (or the API key in Settings).'
      : status === 404
        ? ' Check the model name (LOUPE_MODEL) and that the base URL ends in /v1.'
        : err instanceof OpenAI.APIConnectionError
          ? ` Is the server at ${baseURL} running?`
          : '';
  return new LlmError(`The model request failed: ${describe(err)}.${hint}`, status);
}

class ToolCallAssembler {
  private readonly calls: ChatToolCall[] = [];

  constructor(private readonly handlers: StreamHandlers) {}

  add(deltas: NonNullable<ChatCompletionChunk.Choice['delta']['tool_calls']>): void {
    for (const d of deltas) {
      let call = this.calls[d.index];
      if (!call) {
        call = { id: d.id || `call_${d.index}`, type: 'function', function: { name: d.function?.name ?? '', arguments: '' } };
        this.calls[d.index] = call;
        this.handlers.onToolCallStart?.({ index: d.index, id: call.id, name: call.function.name });
      } else if (d.function?.name) {
        call.function.name += d.function.name;
      }
      const piece = d.function?.arguments;
      if (piece) {
        call.function.arguments += piece;
        this.handlers.onToolCallArgs?.({ index: d.index, id: call.id, delta: piece });
      }
    }
  }

  result(): ChatToolCall[] {
    return this.calls.filter(Boolean);
  }
}

export class LlmClient {
  private readonly client: OpenAI;
  private readonly retry: RetryPolicy;

  constructor(
    readonly config: LlmConfig,
    opts: LlmClientOptions = {},
  ) {
    this.client = new OpenAI({ apiKey: config.apiKey, baseURL: config.baseURL, maxRetries: 0, timeout: opts.timeoutMs ?? 300_000 });
    this.retry = { ...DEFAULT_RETRY, ...opts.retry };
  }

  get baseURL(): string {
    return this.client.baseURL;
  }

  /** Streams one answer, retrying transient failures; resolves with the whole turn. */
  async streamChat(req: ChatRequest, handlers: StreamHandlers = {}): Promise<AssistantTurn> {
    return this.withRetries(req.signal, handlers, () => this.streamOnce(req, handlers));
  }

  /** One non-streamed answer without tools (compaction summaries). */
  async complete(req: Omit<ChatRequest, 'tools'>): Promise<string> {
    return this.withRetries(req.signal, {}, async () => {
      const res = await this.client.chat.completions.create({ model: this.config.model, messages: req.messages }, { signal: req.signal });
      const content = res.choices[0]?.message?.content;
      if (!content) throw new LlmError('The model returned an empty answer.');
      return content;
    });
  }

  async listModels(signal?: AbortSignal): Promise<string[]> {
    try {
      const ids: string[] = [];
      for await (const m of this.client.models.list({ signal })) ids.push(m.id);
      return ids.sort();
    } catch (err) {
      throw toLlmError(err, this.baseURL, signal);
    }
  }

  /** For a "Test connection" button: reachable, key accepted, and is the model there? */
  async testConnection(signal?: AbortSignal): Promise<ConnectionTest> {
    const started = performance.now();
    try {
      const models = await this.listModels(signal);
      const latencyMs = Math.round(performance.now() - started);
      if (models.length && !models.includes(this.config.model)) {
        return { ok: false, models, latencyMs, error: `The endpoint answers but has no model "${this.config.model}". Pick one of: ${models.slice(0, 20).join(', ')}.` };
      }
      return { ok: true, models, latencyMs };
    } catch (err) {
      return { ok: false, models: [], latencyMs: Math.round(performance.now() - started), error: (err as Error).message };
    }
  }

  private async withRetries<T>(signal: AbortSignal | undefined, handlers: StreamHandlers, attempt: () => Promise<T>): Promise<T> {
    for (let n = 1; ; n++) {
      try {
        return await attempt();
      } catch (err) {
        if (signal?.aborted) throw new AbortedError('The model request');
        if (n > this.retry.maxRetries || !isRetryable(err)) throw toLlmError(err, this.baseURL, signal);
        const delayMs = backoffMs(n, this.retry, err);
        handlers.onRetry?.({ attempt: n, delayMs: Math.round(delayMs), reason: describe(err) });
        await sleep(delayMs, signal);
      }
    }
  }

  private async streamOnce(req: ChatRequest, handlers: StreamHandlers): Promise<AssistantTurn> {
    const tools = req.tools?.length ? req.tools.map((t) => ({ type: 'function' as const, function: t })) : undefined;
    const stream = await this.client.chat.completions.create(
      { model: this.config.model, messages: req.messages, stream: true, stream_options: { include_usage: true }, ...(tools ? { tools } : {}) },
      { signal: req.signal },
    );
    const calls = new ToolCallAssembler(handlers);
    const turn: AssistantTurn = { content: '', toolCalls: [], finishReason: '' };
    try {
      for await (const chunk of stream) {
        if (chunk.usage) {
          turn.usage = { prompt_tokens: chunk.usage.prompt_tokens, completion_tokens: chunk.usage.completion_tokens, total_tokens: chunk.usage.total_tokens };
          handlers.onUsage?.(turn.usage);
        }
        const choice = chunk.choices[0];
        if (!choice) continue;
        const text = choice.delta?.content;
        if (text) {
          turn.content += text;
          handlers.onText?.(text);
        }
        if (choice.delta?.tool_calls) calls.add(choice.delta.tool_calls);
        if (choice.finish_reason) turn.finishReason = choice.finish_reason;
      }
    } catch (err) {
      // An error event inside the stream is the server's answer; anything else broke the stream.
      if (req.signal?.aborted || (err instanceof OpenAI.APIError && !(err instanceof OpenAI.APIConnectionError))) throw err;
      throw new StreamCutError(describe(err));
    }
    // No finish_reason means the connection closed early: the answer may be missing its end.
    if (!turn.finishReason) throw new StreamCutError('no finish_reason before the stream ended');
    turn.toolCalls = calls.result();
    return turn;
  }
}
