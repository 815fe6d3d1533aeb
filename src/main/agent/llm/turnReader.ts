// One answer read from the server's chunks, however the server bends OpenAI's format:
// reasoning in its own fields or inside the text, tool calls by id or index or written as
// text, errors as events or lines, and streams that end without a finish_reason.
import { ToolCallAssembler, type ToolCallDelta } from './assembler';
import { StreamCutError, type ServerError } from './errors';
import type { EndpointProfile } from './profile';
import { serverMessage } from './serverMessage';
import { readSse } from './sse';
import { recogniseTextualCalls } from './textualCalls';
import { ThinkSplitter } from './thinkSplitter';
import type { AssistantTurn, ReasoningFields, StreamHandlers } from './types';

type Json = Record<string, unknown>;
type Delta = {
  content?: unknown;
  reasoning_content?: unknown;
  reasoning?: unknown;
  reasoning_details?: unknown;
  tool_calls?: ToolCallDelta[];
};
type MakeError = (code: number | undefined, message: string | undefined) => ServerError;

export interface TurnReaderOptions {
  /** The tools the request offered: only these may be read from text. */
  toolNames: string[];
  /** Called whenever content arrives (the idle timer's reset). */
  onContent?: () => void;
}

/** Where a tool call written as text starts (textualCalls.ts reads the forms). */
const CALL_MARKERS = ['<tool_call>', '[TOOL_CALLS]', '<|python_tag|>', '<function='];

/** Where the text may turn into a call: a marker, or its start cut by the stream at the end. */
function heldFrom(text: string): number {
  let at = text.length;
  for (const m of CALL_MARKERS) {
    const i = text.indexOf(m);
    if (i !== -1) at = Math.min(at, i);
    for (let n = Math.min(m.length - 1, text.length); n > 0; n--) {
      if (m.startsWith(text.slice(-n))) {
        at = Math.min(at, text.length - n);
        break;
      }
    }
  }
  return at;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * Content as a string, or as a list of typed parts (Mistral's reasoning models send
 * [{type:'thinking', thinking:[…]}, {type:'text', text}]): the text, and the thinking apart.
 */
function contentParts(content: unknown): { text: string; thinking: string } {
  if (!Array.isArray(content)) return { text: str(content), thinking: '' };
  let text = '';
  let thinking = '';
  const flat = (v: unknown): string => (typeof v === 'string' ? v : Array.isArray(v) ? v.map(flat).join('') : v && typeof v === 'object' ? str((v as Json).text) : '');
  for (const part of content as Json[]) {
    if (!part || typeof part !== 'object') text += str(part);
    else if (part.type === 'thinking' || part.type === 'reasoning') thinking += flat(part.thinking ?? part.reasoning ?? part.text);
    else text += str(part.text);
  }
  return { text, thinking };
}

function codeOf(e: unknown): number | undefined {
  const c = e && typeof e === 'object' ? ((e as Json).code ?? (e as Json).status) : undefined;
  const n = typeof c === 'string' ? Number(c) : c;
  return typeof n === 'number' && Number.isInteger(n) ? n : undefined;
}

export class TurnReader {
  private content = '';
  /** How much of `content` was passed on to onText. */
  private shown = 0;
  private shownReasoning = '';
  private readonly fields: { reasoning_content: string; reasoning: string; details: Json[] } = { reasoning_content: '', reasoning: '', details: [] };
  private readonly calls: ToolCallAssembler;
  private readonly think: ThinkSplitter;
  private finishReason = '';
  private usage: AssistantTurn['usage'];

  constructor(
    private readonly profile: EndpointProfile,
    private readonly handlers: StreamHandlers,
    private readonly opts: TurnReaderOptions,
  ) {
    this.calls = new ToolCallAssembler(handlers);
    this.think = new ThinkSplitter(profile.thinkOpensInPrompt && !profile.reasoningSeparated);
  }

  /** Reads an SSE body to the end. */
  async read(body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, makeError: MakeError): Promise<AssistantTurn> {
    let done = false;
    try {
      for await (const ev of readSse(body)) {
        if (ev.kind === 'comment') continue;
        if (ev.kind === 'error') {
          let parsed: unknown = ev.data;
          try {
            parsed = JSON.parse(ev.data);
          } catch {
            // plain text: the message itself
          }
          throw makeError(codeOf((parsed as Json)?.error ?? parsed), serverMessage(parsed) ?? ev.data);
        }
        const data = ev.data.trim();
        if (data === '[DONE]') {
          done = true;
          continue;
        }
        let chunk: Json;
        try {
          chunk = JSON.parse(data) as Json;
        } catch {
          continue; // an empty or broken keep-alive frame
        }
        if (chunk.error) throw makeError(codeOf(chunk.error), serverMessage(chunk));
        this.chunk(chunk, makeError);
      }
    } catch (err) {
      if ((err as { code?: string }).code === 'LLM_ERROR' || (err as Error).name === 'AbortError') throw err;
      // The connection broke under the stream: whatever came may be missing its end.
      throw new StreamCutError((err as Error).message || String(err));
    }
    if (!this.finishReason) {
      // No finish_reason: an answer that arrived whole is kept; a cut one is worth another try.
      if (!this.delivered()) throw new StreamCutError('the stream ended before any answer');
      if (!done && this.callsUnfinished()) throw new StreamCutError('the stream ended inside a tool call');
    }
    return this.finish();
  }

  /** A whole (non-streamed) completion object. */
  whole(body: unknown): AssistantTurn {
    const choice = ((body as Json)?.choices as Json[] | undefined)?.[0];
    const message = (choice?.message ?? {}) as Delta;
    const calls = Array.isArray(message.tool_calls) ? message.tool_calls.map((c, index) => ({ index, ...c })) : undefined;
    this.chunk({ choices: [{ delta: { ...message, tool_calls: calls }, finish_reason: choice?.finish_reason ?? 'stop' }], usage: (body as Json)?.usage }, () => {
      throw new Error('unreachable');
    });
    return this.finish();
  }

  private chunk(chunk: Json, makeError: MakeError): void {
    const u = chunk.usage as Json | undefined;
    if (u && typeof u.prompt_tokens === 'number') {
      this.usage = { prompt_tokens: u.prompt_tokens, completion_tokens: Number(u.completion_tokens) || 0, total_tokens: Number(u.total_tokens) || 0 };
      this.handlers.onUsage?.(this.usage);
    }
    const choice = (chunk.choices as Json[] | undefined)?.[0];
    if (!choice) return;
    const delta = (choice.delta ?? choice.message ?? {}) as Delta;
    let got = false;
    const rc = str(delta.reasoning_content);
    const r = str(delta.reasoning);
    if (rc) this.fields.reasoning_content += rc;
    if (r) this.fields.reasoning += r;
    if (rc || r) {
      got = true;
      this.separated();
      this.showReasoning(rc || r);
    }
    if (Array.isArray(delta.reasoning_details) && delta.reasoning_details.length) {
      got = true;
      this.separated();
      for (const d of delta.reasoning_details) this.addDetail(d as Json);
      if (!rc && !r) this.showReasoning(delta.reasoning_details.map((d) => str((d as Json).text) || str((d as Json).summary)).join(''));
    }
    const { text, thinking } = contentParts(delta.content);
    if (thinking) {
      got = true;
      this.separated();
      this.showReasoning(thinking);
    }
    if (text) {
      got = true;
      this.text(text);
    }
    if (Array.isArray(delta.tool_calls) && delta.tool_calls.length) {
      got = true;
      this.calls.add(delta.tool_calls);
    }
    const finish = typeof choice.finish_reason === 'string' ? choice.finish_reason : '';
    if (finish === 'error') throw makeError(undefined, 'the stream ended with finish_reason "error" and no message');
    if (finish) {
      got = true;
      this.finishReason = finish;
    }
    if (got) this.opts.onContent?.();
  }

  /**
   * The server sent reasoning in its own field: it parsed the think block out, even one its
   * template opened, so the text is the answer.
   */
  private separated(): void {
    this.profile.reasoningSeparated = true;
    this.think.notInThink();
  }

  private text(text: string): void {
    const wasLonely = this.think.lonelyClose;
    const piece = this.think.push(text);
    if (!wasLonely && this.think.lonelyClose) {
      // The template opened the think block in the prompt: all the text so far was reasoning.
      this.profile.thinkOpensInPrompt = true;
      if (this.content.trim()) this.handlers.onNotice?.('The text so far was the model’s reasoning (its template opens the think block in the prompt); from now on it is shown apart.');
      this.shownReasoning += this.content;
      this.content = '';
      this.shown = 0;
    }
    if (piece.reasoning) {
      this.profile.thinkInText = true;
      this.showReasoning(piece.reasoning);
    }
    this.addContent(piece.content);
  }

  private addContent(text: string): void {
    if (!text) return;
    // No blank lines between a think block and the answer.
    const t = this.content || !this.shownReasoning ? text : text.replace(/^\s+/, '');
    if (!t) return;
    this.content += t;
    this.release(false);
  }

  /**
   * Passes the text on as it comes, except from a call marker (`<tool_call>`, …) on, with tools
   * offered: that may be a call written as text, which is run rather than shown.
   */
  private release(all: boolean): void {
    let limit = this.content.length;
    if (!all && this.opts.toolNames.length) limit = heldFrom(this.content);
    if (limit <= this.shown) return;
    const piece = this.content.slice(this.shown, limit);
    this.shown = limit;
    this.handlers.onText?.(piece);
  }

  private showReasoning(text: string): void {
    if (!text) return;
    this.shownReasoning += text;
    this.handlers.onReasoning?.(text);
  }

  private addDetail(d: Json): void {
    if (!d || typeof d !== 'object') return;
    const last = this.fields.details[this.fields.details.length - 1];
    // Streamed pieces of one reasoning text share its index: keep them as one entry.
    if (last && d.type === 'reasoning.text' && last.type === 'reasoning.text' && d.index === last.index && typeof d.text === 'string') {
      last.text = str(last.text) + d.text;
      if (d.signature) last.signature = d.signature;
      return;
    }
    this.fields.details.push({ ...d });
  }

  private delivered(): boolean {
    return Boolean(this.content.trim() || this.shownReasoning.trim() || this.calls.count);
  }

  private callsUnfinished(): boolean {
    return this.calls.result().some((c) => {
      try {
        JSON.parse(c.function.arguments || '{}');
        return false;
      } catch {
        return true;
      }
    });
  }

  private finish(): AssistantTurn {
    const rest = this.think.flush();
    if (rest.reasoning) this.showReasoning(rest.reasoning);
    this.addContent(rest.content);
    let toolCalls = this.calls.result();
    let content = this.content;
    if (!toolCalls.length && this.opts.toolNames.length) {
      const found = recogniseTextualCalls(content, this.opts.toolNames);
      if (found) {
        toolCalls = found.calls;
        content = found.rest;
        this.profile.textualToolCalls = true;
        this.shown = this.content.length;
        this.handlers.onNotice?.(`The model wrote ${found.calls.length === 1 ? 'a tool call' : `${found.calls.length} tool calls`} as text (${found.calls.map((c) => c.function.name).join(', ')}); recognised and run like a real call.`);
      }
    }
    if (!toolCalls.length) this.release(true);
    if (!content.trim() && !toolCalls.length && this.shownReasoning.trim()) {
      content = this.shownReasoning.trim();
      this.handlers.onNotice?.('The answer arrived only as reasoning; it is shown as the answer.');
      this.handlers.onText?.(content);
    }
    const reasoningFields: ReasoningFields = {};
    if (this.fields.reasoning_content) reasoningFields.reasoning_content = this.fields.reasoning_content;
    if (this.fields.reasoning) reasoningFields.reasoning = this.fields.reasoning;
    if (this.fields.details.length) reasoningFields.reasoning_details = this.fields.details;
    const finishReason = this.finishReason || (toolCalls.length ? 'tool_calls' : 'stop');
    return {
      content,
      toolCalls,
      finishReason,
      ...(this.usage ? { usage: this.usage } : {}),
      ...(this.shownReasoning ? { reasoning: this.shownReasoning } : {}),
      ...(Object.keys(reasoningFields).length ? { reasoningFields } : {}),
    };
  }
}
