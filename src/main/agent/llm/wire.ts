// The conversation as it goes to one endpoint: provider reasoning replayed as it came (the
// fields a server refused left out), Loupe's own bookkeeping removed, and every tool call's
// arguments a JSON object — servers that parse history (vLLM, llama-server, SGLang, Ollama)
// refuse the whole request otherwise, and a session saved before that rule could not resume.
import type { EndpointProfile, OptionalField } from './profile';
import type { ChatMessage } from './types';

export interface WireMessages {
  messages: Record<string, unknown>[];
  /** The optional fields these messages carry, for reading a refusal. */
  sent: Set<OptionalField>;
}

export function isJsonObject(text: string): boolean {
  try {
    const v = JSON.parse(text);
    return !!v && typeof v === 'object' && !Array.isArray(v);
  } catch {
    return false;
  }
}

export function toWire(messages: readonly ChatMessage[], profile: EndpointProfile): WireMessages {
  const sent = new Set<OptionalField>();
  const out = messages.map((m) => {
    if (m.role !== 'assistant') return { ...m } as Record<string, unknown>;
    const { reasoning_content, reasoning, reasoning_details, tool_calls, ...rest } = m;
    const msg: Record<string, unknown> = { ...rest };
    const keep = (field: OptionalField, value: unknown) => {
      if (value === undefined || value === null || !profile.sends(field)) return;
      msg[field] = value;
      sent.add(field);
    };
    keep('reasoning_content', reasoning_content);
    keep('reasoning', reasoning);
    keep('reasoning_details', reasoning_details);
    if (tool_calls?.length) {
      msg.tool_calls = tool_calls.map(({ raw_arguments: _raw, extra_content, ...call }) => {
        const c = isJsonObject(call.function.arguments) ? call : { ...call, function: { ...call.function, arguments: '{}' } };
        if (extra_content && profile.sends('extra_content')) {
          sent.add('extra_content');
          return { ...c, extra_content };
        }
        return c;
      });
    }
    return msg;
  });
  if (sent.size) profile.reasoningReplayed = true;
  return { messages: out, sent };
}
