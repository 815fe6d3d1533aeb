// When the conversation outgrows the window, the oldest turns are replaced by a summary the
// model writes of them; if that fails, they are dropped with a marker that says so. The recent
// tail is kept verbatim and always starts at a user or assistant message, so no tool result is
// separated from the call that asked for it.
import { AbortedError } from '../../errors';
import type { LlmClient } from '../llm/client';
import type { ChatMessage } from '../llm/types';
import { CHARS_PER_TOKEN, messageChars, truncateMiddle } from './budget';

export interface Compacted {
  messages: ChatMessage[];
  mode: 'summary' | 'dropped';
  removed: number;
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
      return `${m.role.toUpperCase()}: ${m.content ?? ''}${calls}`;
    })
    .join('\n\n');
  return truncateMiddle(text, maxChars);
}

export interface CompactOptions {
  llm: LlmClient;
  contextTokens: number;
  /** The prompt of the request in progress: it survives compaction word for word. */
  currentPrompt: string;
  signal?: AbortSignal;
}

export async function compact(messages: ChatMessage[], opts: CompactOptions): Promise<Compacted | null> {
  const windowChars = opts.contextTokens * CHARS_PER_TOKEN;
  const cut = tailStart(messages, Math.floor(windowChars * 0.4));
  if (cut <= 0) return null;
  const old = messages.slice(0, cut);
  const tail = messages.slice(cut);
  const promptKept = tail.some((m) => m.role === 'user' && m.content === opts.currentPrompt);
  let head: string;
  let mode: Compacted['mode'] = 'summary';
  try {
    const summary = await opts.llm.complete({
      messages: [
        { role: 'system', content: SUMMARY_PROMPT },
        { role: 'user', content: transcript(old, Math.floor(windowChars * 0.5)) },
      ],
      signal: opts.signal,
    });
    head = `[Earlier conversation compacted to fit the context window. Summary of it:]\n${truncateMiddle(summary, Math.floor(windowChars * 0.15))}`;
  } catch (err) {
    if (err instanceof AbortedError) throw err;
    mode = 'dropped';
    head = `[${old.length} earlier messages were dropped to fit the context window (summarising them failed). Re-read any file you need before editing it.]`;
  }
  if (!promptKept) head += `\n\n[The request being worked on:]\n${opts.currentPrompt}`;
  return { messages: [{ role: 'user', content: head }, ...tail], mode, removed: old.length };
}
