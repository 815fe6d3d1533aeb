// When the conversation outgrows the window, the oldest turns are replaced by a summary the
// model writes of them; if that fails, they are dropped with a marker that says so. The recent
// tail is kept verbatim and always starts at a user or assistant message, so no tool result is
// separated from the call that asked for it. The request in progress always survives word for
// word (its images too): in the tail, or after the summary when the tail is its own work.
import { AbortedError } from '../../errors';
import type { LlmClient } from '../llm/client';
import { contentText, type ChatMessage, type Usage } from '../llm/types';
import { CHARS_PER_TOKEN, estimateTokens, messageChars, truncateMiddle } from './budget';

export interface Compacted {
  messages: ChatMessage[];
  mode: 'summary' | 'dropped';
  removed: number;
  /** What replaced the removed messages: the model's summary, or the note that they were dropped. */
  summary: string;
  /** The summary call, for the usage tally: as the server reported it, and as estimated. */
  call?: { reported?: Usage; estimate: { prompt: number; completion: number } };
}

const SUMMARY_PROMPT =
  'You are compacting the early part of a coding session so the work can continue in a smaller context. ' +
  'Summarise it for yourself: the user requests and their status, files read or changed (paths, what changed), ' +
  'commands run and their outcome, decisions made, and what remains to do. Be concise and concrete; no preamble.';

/** The index where the kept tail starts: as late as possible while the tail fits `tailChars`. */
export function tailStart(messages: ChatMessage[], tailChars: number): number {
  let used = 0;
  let cut = messages.length;
  for (let i = messages.length - 1; i >= 0; i--) {
    used += messageChars(messages[i]);
    if (used > tailChars) break;
    if (messages[i].role !== 'tool') cut = i;
  }
  // Always keep the last message (the prompt, or the results the model must answer) in the tail.
  if (cut === messages.length) for (cut = messages.length - 1; cut > 0 && messages[cut].role === 'tool'; cut--);
  return cut;
}

function transcript(messages: ChatMessage[], maxChars: number): string {
  const text = messages
    .map((m) => {
      const calls = m.role === 'assistant' ? (m.tool_calls ?? []).map((c) => `\n[calls ${c.function.name} ${c.function.arguments}]`).join('') : '';
      const images = m.role === 'user' && typeof m.content !== 'string' ? m.content.filter((p) => p.type === 'image_url').length : 0;
      return `${m.role.toUpperCase()}: ${m.role === 'user' ? contentText(m.content) : (m.content ?? '')}${images ? `\n[${images} image${images === 1 ? '' : 's'} attached]` : ''}${calls}`;
    })
    .join('\n\n');
  return truncateMiddle(text, maxChars);
}

export interface CompactOptions {
  llm: LlmClient;
  contextTokens: number;
  /** The prompt of the request in progress: it survives compaction word for word. */
  currentPrompt: string;
  /** That request's message as sent (attachments and images included), when the loop has it. */
  request?: ChatMessage;
  signal?: AbortSignal;
  /** Characters of recent messages kept word for word (default 40% of the window); `/compact` keeps only the last exchange. */
  tailChars?: number;
}

export async function compact(messages: ChatMessage[], opts: CompactOptions): Promise<Compacted | null> {
  const windowChars = opts.contextTokens * CHARS_PER_TOKEN;
  const cut = tailStart(messages, opts.tailChars ?? Math.floor(windowChars * 0.4));
  if (cut <= 0) return null;
  const old = messages.slice(0, cut);
  const tail = messages.slice(cut);
  // No request in progress (a `/compact` between requests): nothing to carry over.
  const request: ChatMessage | null = opts.request ?? (opts.currentPrompt ? { role: 'user', content: opts.currentPrompt } : null);
  const reqText = request?.role === 'user' ? contentText(request.content) : opts.currentPrompt;
  const promptKept = !request || tail.some((m) => m === request || (m.role === 'user' && contentText(m.content) === reqText));
  let head: string;
  let summary: string;
  let mode: Compacted['mode'] = 'summary';
  const asked = transcript(old, Math.floor(windowChars * 0.5));
  let reported: Usage | undefined;
  try {
    const written = await opts.llm.complete({
      messages: [
        { role: 'system', content: SUMMARY_PROMPT },
        { role: 'user', content: asked },
      ],
      signal: opts.signal,
      onUsage: (u) => (reported = u),
    });
    summary = truncateMiddle(written, Math.floor(windowChars * 0.15));
    head = `[Earlier conversation compacted to fit the context window. Summary of it:]\n${summary}`;
  } catch (err) {
    if (err instanceof AbortedError) throw err;
    mode = 'dropped';
    summary = `${old.length} earlier messages were dropped to fit the context window (summarising them failed).`;
    head = `[${summary.replace(/\.$/, '')} Re-read any file you need before editing it.]`;
  }
  const call = mode === 'summary' ? { ...(reported ? { reported } : {}), estimate: { prompt: estimateTokens(SUMMARY_PROMPT.length + asked.length + 32), completion: estimateTokens(summary.length) } } : undefined;
  let first: ChatMessage = { role: 'user', content: head };
  if (!promptKept && request?.role === 'user') {
    // Word for word: the request's own text (and images) after the summary, never a paraphrase.
    const text = `${head}\n\n[The request being worked on:]\n${reqText}`;
    const images = typeof request.content === 'string' ? [] : request.content.filter((p) => p.type === 'image_url');
    first = { role: 'user', content: images.length ? [{ type: 'text', text }, ...images] : text };
  }
  return { messages: [first, ...tail], mode, removed: old.length, summary, ...(call ? { call } : {}) };
}
