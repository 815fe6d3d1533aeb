// Fitting the conversation into the model's context window. Tokens are estimated at ~4 chars
// each: cheap, tokenizer-free, and close enough to keep a safety margin meaningful.
import type { ChatMessage, ChatToolSpec } from '../llm/types';

export const CHARS_PER_TOKEN = 4;

export const estimateTokens = (chars: number): number => Math.ceil(chars / CHARS_PER_TOKEN);

/** An image costs a provider about as much as a 1024×1024 picture at high detail (~800 tokens). */
export const IMAGE_TOKENS = 800;

export function messageChars(m: ChatMessage): number {
  const content = m.content ?? '';
  let n = 16; // role and framing
  if (typeof content === 'string') n += content.length;
  else for (const p of content) n += p.type === 'text' ? p.text.length : IMAGE_TOKENS * CHARS_PER_TOKEN;
  if (m.role === 'assistant') {
    for (const c of m.tool_calls ?? []) n += c.function.name.length + c.function.arguments.length + 32 + (c.extra_content ? JSON.stringify(c.extra_content).length : 0);
    // Reasoning a provider wants back is sent back, so it takes room too.
    n += (m.reasoning_content?.length ?? 0) + (m.reasoning?.length ?? 0) + (m.reasoning_details ? JSON.stringify(m.reasoning_details).length : 0);
  }
  return n;
}

export function conversationTokens(messages: ChatMessage[], tools: ChatToolSpec[] = []): number {
  const toolChars = tools.reduce((n, t) => n + t.name.length + t.description.length + JSON.stringify(t.parameters).length, 0);
  return estimateTokens(messages.reduce((n, m) => n + messageChars(m), 0) + toolChars);
}

/**
 * How many characters one tool result may keep: a quarter of the window shared by the calls of
 * the turn, so one huge output cannot push the rest of the conversation out.
 */
export function toolOutputCap(contextTokens: number, callsInTurn: number): number {
  return Math.max(1000, Math.floor((contextTokens * CHARS_PER_TOKEN) / 4 / Math.max(1, callsInTurn)));
}

/** Keeps the head and the tail (errors and summaries tend to be at the end) with a note between. */
export function truncateMiddle(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const note = `\n… [${text.length - maxChars} characters cut to fit the context window; narrow the request (offset/limit, a more specific pattern) to see them] …\n`;
  const keep = Math.max(0, maxChars - note.length);
  const head = Math.ceil(keep * 0.6);
  return text.slice(0, head) + note + text.slice(text.length - (keep - head));
}
