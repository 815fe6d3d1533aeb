// How each real OpenAI-compatible server bends the wire format, and the refusals each one
// documents, for the scripted server (scriptedLlm.ts `{ server }`). Every quirk and refusal
// below is modelled on the server's own documentation, source or issue tracker, cited beside it.
// A dialect turns one scripted reply into SSE frames and may refuse a request before answering.
import type { RecordedRequest, ScriptedReply } from './scriptedLlm';

export type ServerKind = 'openai' | 'deepseek' | 'mistral' | 'gemini' | 'ollama' | 'vllm' | 'llamacpp' | 'lmstudio' | 'openrouter' | 'litellm';

export interface ServerOptions {
  server?: ServerKind;
  /**
   * A version or configuration of that server with other quirks:
   * ollama 'legacy' (tool-call deltas without index, before 0.4.7);
   * vllm 'no-reasoning-parser' (reasoning inside <think> in the content);
   * openrouter 'gemini-3' (the upstream model wants reasoning_details back);
   * openrouter 'shared-index' (an upstream that sends parallel calls at one index under one id);
   * litellm 'name-every-delta' (a backend that repeats the tool name on every piece);
   * deepseek 'repeat-id' (the call's id repeated on every piece);
   * llamacpp 'think-in-prompt' (a chat template that opens <think> in the generation prompt),
   * 'before-apply-template' (a llama-server older than POST /apply-template).
   */
  variant?: string;
  /** How usage is reported when asked for (scriptedLlm.ts): fixed 10/5/15 (default), counted with a real tokenizer, or never. */
  usage?: 'fixed' | 'counted' | 'omit';
  /** The entries /v1/models answers with (context windows, modalities, prices as servers send them). */
  models?: Record<string, unknown>[];
}

export interface Refusal {
  status: number;
  body: unknown;
}

/** One SSE frame, or a pause. */
export type Frame = string;

type Msg = NonNullable<RecordedRequest['body']['messages']>[number] & Record<string, unknown>;
type Call = { id: string; name: string; arguments: string };

const sse = (obj: unknown): Frame => `data: ${JSON.stringify(obj)}\n\n`;

let seq = 0;
const alnum9 = (): string => {
  const s = `k${(++seq).toString(36)}Q${Math.random().toString(36).slice(2)}`.replace(/[^a-zA-Z0-9]/g, '');
  return (s + 'ZZZZZZZZZ').slice(0, 9);
};

/** Splits text into a few chunks of uneven size, as a real stream arrives. */
export function pieces(text: string, size = 7): string[] {
  const out: string[] = [];
  for (let i = 0, n = 0; i < text.length; n++) {
    const len = size + (n % 3);
    out.push(text.slice(i, i + len));
    i += len;
  }
  return out;
}

function toolCallsOf(msgs: Msg[]): { msg: Msg; index: number; call: { id: string; function: { name: string; arguments: unknown }; [k: string]: unknown } }[] {
  const out: { msg: Msg; index: number; call: { id: string; function: { name: string; arguments: unknown }; [k: string]: unknown } }[] = [];
  msgs.forEach((m, index) => {
    if (m.role === 'assistant') for (const c of (m.tool_calls ?? []) as never[]) out.push({ msg: m, index, call: c });
  });
  return out;
}

/** Python's json.loads message for the first parse failure, near enough for a test. */
function pythonJsonError(text: string): string | null {
  try {
    const v = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? null : "'str' object has no attribute 'items'";
  } catch {
    const open = text.lastIndexOf('"');
    return open >= 0 ? `Unterminated string starting at: line 1 column ${open + 1} (char ${open})` : 'Expecting value: line 1 column 1 (char 0)';
  }
}

// ---- refusals --------------------------------------------------------------------------------

export function refusal(kind: ServerKind, variant: string | undefined, body: RecordedRequest['body']): Refusal | null {
  const msgs = (body.messages ?? []) as Msg[];
  switch (kind) {
    case 'deepseek': {
      // Two calls answered under one id are refused: "Duplicate value for 'tool_call_id'"
      // (HKUDS/nanobot#3943, seen with DeepSeek and GLM).
      for (const [i, m] of msgs.entries()) {
        const ids = ((m.tool_calls ?? []) as { id: string }[]).map((c) => c.id);
        const twice = ids.find((id, k) => ids.indexOf(id) !== k);
        if (twice) return { status: 400, body: { error: { message: `Duplicate value for 'tool_call_id' of ${twice} in message[${i}]`, type: 'invalid_request_error', param: null, code: 'invalid_request_error' } } };
      }
      const answered = msgs.filter((m) => m.role === 'tool').map((m) => m.tool_call_id);
      const again = answered.find((id, k) => answered.indexOf(id) !== k);
      if (again) return { status: 400, body: { error: { message: `Duplicate value for 'tool_call_id' of ${again}`, type: 'invalid_request_error', param: null, code: 'invalid_request_error' } } };
      // Thinking mode with tool calls: "the reasoning_content must be passed back to the API",
      // answered 400 otherwise. https://api-docs.deepseek.com/guides/thinking_mode#tool-calls
      // (error text as reported in continuedev/continue#10193, QwenLM/qwen-code#3578).
      const bad = toolCallsOf(msgs).find((c) => typeof c.msg.reasoning_content !== 'string');
      if (bad) {
        return {
          status: 400,
          body: {
            error: {
              message: `Missing \`reasoning_content\` field in the assistant message at message index ${bad.index}. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls`,
              type: 'invalid_request_error',
              param: null,
              code: 'invalid_request_error',
            },
          },
        };
      }
      return null;
    }
    case 'mistral': {
      // Mistral validates with pydantic extra="forbid": any field it does not know is a 422
      // "Extra inputs are not permitted", stream_options included (dnakov/anon-kode#53,
      // vybestack/llxprt-code#114; shape from mistralai/platform-docs-public#7).
      const top = ['model', 'messages', 'temperature', 'top_p', 'max_tokens', 'stream', 'stop', 'random_seed', 'response_format', 'tools', 'tool_choice', 'presence_penalty', 'frequency_penalty', 'n', 'prediction', 'parallel_tool_calls', 'safe_prompt'];
      const detail: { type: string; loc: (string | number)[]; msg: string; input: unknown }[] = [];
      for (const k of Object.keys(body)) if (!top.includes(k)) detail.push({ type: 'extra_forbidden', loc: ['body', k], msg: 'Extra inputs are not permitted', input: body[k] });
      const allowed: Record<string, string[]> = { system: ['role', 'content'], user: ['role', 'content', 'name'], assistant: ['role', 'content', 'tool_calls', 'prefix'], tool: ['role', 'content', 'tool_call_id', 'name'] };
      msgs.forEach((m, i) => {
        for (const k of Object.keys(m)) if (!(allowed[m.role] ?? []).includes(k)) detail.push({ type: 'extra_forbidden', loc: ['body', 'messages', i, m.role, k], msg: 'Extra inputs are not permitted', input: m[k] });
      });
      // Tool call ids must be Mistral's own 9 characters [a-zA-Z0-9].
      for (const { call } of toolCallsOf(msgs)) {
        if (!/^[a-zA-Z0-9]{9}$/.test(call.id)) return { status: 400, body: { object: 'error', message: `Tool call id was ${call.id} but must be a-z, A-Z, 0-9, with a length of 9.`, type: 'invalid_request_message_tool_call_id', param: null, code: '3280' } };
      }
      if (detail.length) return { status: 422, body: { object: 'error', message: { detail }, type: 'invalid_request_error', param: null, code: null } };
      return null;
    }
    case 'gemini': {
      // Gemini 3 on the OpenAI endpoint: the thought signature of every function call must come
      // back in extra_content.google.thought_signature, else 400 INVALID_ARGUMENT; errors come as a
      // JSON list. https://ai.google.dev/gemini-api/docs/thought-signatures,
      // https://ai.google.dev/gemini-api/docs/openai (body as in TokenRhythm/opensquilla#225).
      const bad = toolCallsOf(msgs).find((c) => !((c.call.extra_content as { google?: { thought_signature?: string } } | undefined)?.google?.thought_signature));
      if (bad) {
        return {
          status: 400,
          body: [
            {
              error: {
                code: 400,
                message: `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${bad.call.function.name}\` , position ${bad.index + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
                status: 'INVALID_ARGUMENT',
              },
            },
          ],
        };
      }
      return null;
    }
    case 'ollama': {
      // Ollama's OpenAI layer unmarshals history arguments and answers 400 when they are not
      // JSON (ollama/ollama openai/openai.go FromChatRequest: "invalid tool call arguments").
      for (const { call } of toolCallsOf(msgs)) {
        if (typeof call.function.arguments === 'string' && pythonJsonError(call.function.arguments)) {
          return { status: 400, body: { error: { message: 'invalid tool call arguments', type: 'invalid_request_error', param: null, code: null } } };
        }
      }
      return null;
    }
    case 'vllm': {
      // vLLM json.loads every historical tool call's arguments before the chat template: a
      // malformed one is a 400 on every later request (vllm-project/vllm#43995, PR #48922).
      for (const { call } of toolCallsOf(msgs)) {
        const why = typeof call.function.arguments === 'string' ? pythonJsonError(call.function.arguments) : null;
        if (why) return { status: 400, body: { error: { message: why, type: 'BadRequestError', param: null, code: 400 } } };
      }
      return null;
    }
    case 'llamacpp': {
      // llama-server parses history arguments for the template: "Failed to parse tool call
      // arguments as JSON" (OpenHands/software-agent-sdk#2887).
      for (const { call } of toolCallsOf(msgs)) {
        if (typeof call.function.arguments === 'string' && pythonJsonError(call.function.arguments)) {
          return { status: 500, body: { error: { code: 500, message: `Failed to parse tool call arguments as JSON: [json.exception.parse_error.101] parse error: syntax error while parsing value`, type: 'server_error' } } };
        }
      }
      return null;
    }
    case 'openrouter': {
      // Gemini 3 through OpenRouter: reasoning_details must be passed back on tool-call turns,
      // else the upstream 400 arrives in error.metadata.raw.
      // https://openrouter.ai/docs/use-cases/reasoning-tokens#preserving-reasoning-blocks,
      // https://openrouter.ai/docs/api/reference/errors-and-debugging
      if (variant !== 'gemini-3') return null;
      const bad = toolCallsOf(msgs).find((c) => !Array.isArray(c.msg.reasoning_details) || !c.msg.reasoning_details.length);
      if (bad) {
        const raw = JSON.stringify({ error: { code: 400, message: `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${bad.call.function.name}\` , position ${bad.index + 1}.`, status: 'INVALID_ARGUMENT' } });
        return { status: 400, body: { error: { code: 400, message: 'Provider returned error', metadata: { raw, provider_name: 'Google AI Studio' } } } };
      }
      return null;
    }
    case 'litellm': {
      // LiteLLM's ollama_chat transform json.loads history arguments; a bad one is a 500
      // "litellm.APIConnectionError: Extra data" (BerriAI/litellm#33678).
      for (const { call } of toolCallsOf(msgs)) {
        if (typeof call.function.arguments === 'string' && pythonJsonError(call.function.arguments)) {
          return { status: 500, body: { error: { message: 'litellm.APIConnectionError: Extra data: line 1 column 29 (char 28)', type: null, param: null, code: '500' } } };
        }
      }
      return null;
    }
    default:
      return null;
  }
}

// ---- answers ---------------------------------------------------------------------------------

interface Frames {
  frames: Frame[];
}

function chunker(model: string, id: string, created: number, out: Frames, extra: Record<string, unknown> = {}) {
  return (delta: Record<string, unknown>, finish: string | null | undefined = null, more: Record<string, unknown> = {}) =>
    out.frames.push(
      sse({
        id,
        object: 'chat.completion.chunk',
        created,
        model,
        ...extra,
        choices: [{ index: 0, delta, logprobs: null, ...(finish === undefined ? {} : { finish_reason: finish }) }],
        ...more,
      }),
    );
}

/** Content as the server writes it, reasoning-in-text and textual tool calls included. */
function contentText(reply: ScriptedReply, calls: Call[]): string {
  let text = reply.content ?? '';
  if (reply.reasoning && reply.thinkInContent === 'tags') text = `<think>\n${reply.reasoning}\n</think>\n\n${text}`;
  if (reply.reasoning && reply.thinkInContent === 'close-only') text = `${reply.reasoning}\n</think>\n\n${text}`;
  // Models whose calls the server's parser misses write them as text: Hermes/Qwen tags
  // (ollama/ollama#12174), Qwen3-Coder's XML-ish form (continuedev/continue#13057), fenced JSON.
  if (reply.textualToolCalls === 'qwen3-xml') {
    text += calls.map((c) => `\n\n<function=${c.name}>\n${Object.entries(JSON.parse(c.arguments) as Record<string, unknown>).map(([k, v]) => `<parameter=${k}>\n${String(v)}\n</parameter>`).join('\n')}\n</function>\n</tool_call>`).join('');
  }
  if (reply.textualToolCalls === 'tagged') text += calls.map((c) => `\n<tool_call>\n${JSON.stringify({ name: c.name, arguments: JSON.parse(c.arguments) })}\n</tool_call>`).join('');
  if (reply.textualToolCalls === 'fenced') text += `\n\`\`\`json\n${JSON.stringify(calls.length === 1 ? { name: calls[0].name, arguments: JSON.parse(calls[0].arguments) } : calls.map((c) => ({ name: c.name, arguments: JSON.parse(c.arguments) })), null, 2)}\n\`\`\``;
  return text;
}

export function answerFrames(kind: ServerKind, variant: string | undefined, reply: ScriptedReply, req: RecordedRequest, callIds: (i: number) => string, usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number } | null = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 }): Frame[] {
  const model = req.body.model ?? 'scripted';
  const id = `chatcmpl-${kind}-${++seq}`;
  const created = Math.floor(Date.now() / 1000);
  const out: Frames = { frames: [] };
  const noFinish = reply.noFinishReason === true;
  // Gemini's endpoint sends finish_reason null on every chunk (jakobdylanc/llmcord#84); others omit it.
  const chunk = chunker(model, id, created, out, kind === 'openrouter' ? { provider: 'Google' } : {});
  const calls: Call[] = (reply.toolCalls ?? []).map((t, i) => ({ id: t.id ?? callIds(i), name: t.name, arguments: t.arguments }));
  const textual = !!reply.textualToolCalls;
  const realCalls = textual ? [] : calls;

  // OpenRouter keeps the connection alive with SSE comments (https://openrouter.ai/docs/api/reference/streaming).
  if (kind === 'openrouter') out.frames.push(': OPENROUTER PROCESSING\n\n');
  chunk({ role: 'assistant', content: '' });

  // Reasoning in the server's own field, when it has one and the reply is not writing it in the text.
  if (reply.reasoning && !reply.thinkInContent) {
    for (const p of pieces(reply.reasoning, 11)) {
      if (kind === 'openrouter') chunk({ content: '', reasoning: p, reasoning_details: [{ type: 'reasoning.text', text: p, format: 'google-gemini-v1', index: 0 }] });
      // Ollama's OpenAI layer calls it `reasoning` (https://docs.ollama.com/capabilities/thinking).
      else if (kind === 'ollama') chunk({ content: '', reasoning: p });
      // Mistral's reasoning models send typed content parts (https://docs.mistral.ai/capabilities/reasoning/).
      else if (kind === 'mistral') chunk({ content: [{ type: 'thinking', thinking: [{ type: 'text', text: p }] }] });
      // DeepSeek, vLLM with a reasoning parser, llama-server (--reasoning-format deepseek), LM Studio.
      else chunk({ content: null, reasoning_content: p });
    }
  }
  const text = contentText(reply, calls);
  for (const p of pieces(text)) chunk({ content: p });

  if (realCalls.length) toolCallFrames(kind, variant, realCalls, chunk);

  // Gemini 3 through OpenRouter: an encrypted reasoning block that must come back.
  if (kind === 'openrouter' && variant === 'gemini-3' && realCalls.length) {
    chunk({ content: '', reasoning_details: [{ type: 'reasoning.encrypted', data: `sig-${id}`, format: 'google-gemini-v1', index: 1, id: realCalls[0].id }] });
  }

  if (reply.streamError) {
    const e = reply.streamError;
    if (kind === 'llamacpp') {
      // llama-server before the fix sent errors as an `error:` SSE field at HTTP 200, which spec
      // parsers drop (ggml-org/llama.cpp#16104, PR #16109; coddy-project/coddy-agent#106).
      out.frames.push(`error: ${JSON.stringify({ code: e.code, message: e.message, type: e.type ?? 'invalid_request_error' })}\n\n`);
      out.frames.push('data: [DONE]\n\n');
      return out.frames;
    }
    // OpenRouter's mid-stream error: a data event with `error` and finish_reason "error"
    // (https://openrouter.ai/docs/api/reference/errors-and-debugging#error-during-streaming).
    out.frames.push(sse({ id, object: 'chat.completion.chunk', created, model, provider: 'Google', error: { code: e.code, message: e.message, ...(e.metadata ? { metadata: e.metadata } : {}) }, choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error' }] }));
    return out.frames;
  }

  const finish = reply.finishReason ?? (realCalls.length ? (kind === 'gemini' ? 'stop' : 'tool_calls') : 'stop');
  if (!noFinish) chunk({}, finish);
  else if (kind === 'gemini') chunk({}, null);
  if (usage) reportUsage(kind, out.frames, usage, req.body.stream_options?.include_usage === true, { id, created, model });
  out.frames.push('data: [DONE]\n\n');
  return out.frames;
}

type Usage = { prompt_tokens: number; completion_tokens: number; total_tokens: number };

/**
 * Where each server puts the usage of a streamed answer (`asked`: the request had
 * stream_options.include_usage). A reader must take the last report, never add them up.
 */
function reportUsage(kind: ServerKind, frames: Frame[], usage: Usage, asked: boolean, c: { id: string; created: number; model: string }): void {
  const data = frames.map((f, i) => (f.startsWith('data: {') ? i : -1)).filter((i) => i >= 0);
  const edit = (i: number, add: (chunk: Record<string, unknown>) => void) => {
    const chunk = JSON.parse(frames[i].slice('data: '.length)) as Record<string, unknown>;
    add(chunk);
    frames[i] = sse(chunk);
  };
  const last = data.at(-1);
  const separate = (extra: Record<string, unknown> = {}) => frames.push(sse({ id: c.id, object: 'chat.completion.chunk', created: c.created, model: c.model, choices: [], usage: { ...usage, ...extra } }));
  switch (kind) {
    case 'mistral':
      // On the last chunk, beside finish_reason, asked or not (it refuses stream_options anyway).
      if (last !== undefined) edit(last, (ch) => (ch.usage = usage));
      return;
    case 'deepseek':
      // "No separate usage-only chunk is emitted: the statistics ride on the last content chunk";
      // asked, every other chunk has `usage: null` (api-docs.deepseek.com/api/create-chat-completion).
      // prompt_tokens includes the cache hits (adolfousier/opencrabs#1128).
      for (const i of data) {
        if (i === last) edit(i, (ch) => (ch.usage = { ...usage, prompt_cache_hit_tokens: Math.floor(usage.prompt_tokens / 2), prompt_cache_miss_tokens: usage.prompt_tokens - Math.floor(usage.prompt_tokens / 2) }));
        else if (asked) edit(i, (ch) => (ch.usage = null));
      }
      return;
    case 'gemini':
      // Usage so far on every chunk, the last one the whole (ogx-ai/ogx#5122: a client that adds
      // them up overcounts; envoyproxy/ai-gateway#1503: no separate usage chunk).
      if (!asked) return;
      data.forEach((i, n) => {
        const completion = Math.round((usage.completion_tokens * (n + 1)) / data.length);
        edit(i, (ch) => (ch.usage = i === last ? usage : { prompt_tokens: usage.prompt_tokens, completion_tokens: completion, total_tokens: usage.prompt_tokens + completion }));
      });
      return;
    case 'llamacpp':
      // A usage-only chunk with its timings, asked or not (ggml-org/llama.cpp#15444, #16048).
      frames.push(
        sse({
          choices: [],
          created: c.created,
          id: c.id,
          model: c.model,
          object: 'chat.completion.chunk',
          usage,
          timings: { cache_n: 0, prompt_n: usage.prompt_tokens, prompt_ms: 180.025, predicted_n: usage.completion_tokens, predicted_ms: 875.429 },
        }),
      );
      return;
    case 'openrouter':
      // Always a usage-only chunk, with the cost in credits and the token details
      // (openrouter.ai/docs/use-cases/usage-accounting).
      separate({ cost: 0.000123, is_byok: false, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } });
      return;
    default:
      // OpenAI's shape (vLLM, Ollama, LM Studio, LiteLLM follow it): a usage-only chunk when asked.
      if (asked) separate();
  }
}

function toolCallFrames(kind: ServerKind, variant: string | undefined, calls: Call[], chunk: (delta: Record<string, unknown>, finish?: string | null) => void): void {
  calls.forEach((c, index) => {
    switch (kind) {
      case 'gemini':
        // No index, the whole call in one delta, and the thought signature beside it
        // (THU-MAIC/OpenMAIC#1556, open-webui/computer#224).
        return chunk({ tool_calls: [{ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments }, extra_content: { google: { thought_signature: `sig-${c.id}` } } }] });
      case 'mistral':
        // One delta per call, Mistral's 9-character ids (openclaw/openclaw#130532).
        return chunk({ tool_calls: [{ id: c.id, function: { name: c.name, arguments: c.arguments }, index }] });
      case 'ollama':
        // Every call whole in one delta; since 0.4.7 all at index 0 (ollama/ollama#15457), before
        // that without index at all (ollama/ollama#7881).
        return chunk({ tool_calls: [{ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments }, ...(variant === 'legacy' ? {} : { index: 0 }) }] });
      case 'litellm':
        if (variant === 'name-every-delta') {
          // A backend that repeats the name on every piece (NousResearch/hermes-agent#8259).
          chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] });
          for (const p of pieces(c.arguments, 5)) chunk({ tool_calls: [{ index, function: { name: c.name, arguments: p } }] });
          return;
        }
        // ollama_chat through LiteLLM: arguments as an object, every call at index 0
        // (BerriAI/litellm#33678, PR #37792).
        return chunk({ tool_calls: [{ index: 0, id: c.id, type: 'function', function: { name: c.name, arguments: JSON.parse(c.arguments) } }] });
      case 'openrouter':
        if (variant === 'shared-index') {
          // "Some mystery engine from OpenRouter uses the same index and ID across parallel tool
          // requests" (skye-harris/hass_local_openai_llm#92).
          chunk({ tool_calls: [{ index: 0, id: calls[0].id, type: 'function', function: { name: c.name, arguments: '' } }] });
          for (const p of pieces(c.arguments, 5)) chunk({ tool_calls: [{ index: 0, function: { arguments: p } }] });
          return;
        }
        return defaultCall(c, index, chunk, false);
      case 'deepseek':
        // DeepSeek (and Qwen) repeat the whole id on every piece (langchain4j/langchain4j#4544).
        return defaultCall(c, index, chunk, variant === 'repeat-id');
      default:
        return defaultCall(c, index, chunk, false);
    }
  });
}

/** OpenAI's shape: the id and name once, then the arguments in pieces (`idEveryPiece`: the id on each). */
function defaultCall(c: Call, index: number, chunk: (delta: Record<string, unknown>, finish?: string | null) => void, idEveryPiece: boolean): void {
  chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] });
  for (const p of pieces(c.arguments, 5)) chunk({ tool_calls: [{ index, ...(idEveryPiece ? { id: c.id } : {}), function: { arguments: p } }] });
}

// ---- routes beside the chat endpoint -------------------------------------------------------

/**
 * llama-server renders a conversation with the model's chat template on POST /apply-template
 * and answers `{prompt}`, without inference (ggml-org/llama.cpp#11489, January 2025). Templates
 * like DeepSeek-R1's and QwQ's end the generation prompt with `<think>\n` ('think-in-prompt');
 * 'before-apply-template' is a llama-server from before that route (a 404). Null: no such route.
 */
export function sideRoute(kind: ServerKind, variant: string | undefined, method: string, path: string, body: RecordedRequest['body']): Refusal | null {
  if (kind !== 'llamacpp' || method !== 'POST' || path !== '/apply-template' || variant === 'before-apply-template') return null;
  const turns = ((body.messages ?? []) as Msg[]).map((m) => `<|im_start|>${m.role}\n${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}<|im_end|>\n`);
  return { status: 200, body: { prompt: `${turns.join('')}<|im_start|>assistant\n${variant === 'think-in-prompt' ? '<think>\n' : ''}` } };
}

/** Ids as each server makes them. */
export function callIdFor(kind: ServerKind): (i: number) => string {
  const n = ++seq;
  if (kind === 'mistral') return () => alnum9();
  if (kind === 'gemini') return (i) => `function-call-${n}${i}${Math.floor(Math.random() * 1e9)}`;
  return (i) => `call_${n}_${i}`;
}
