// What a session keeps of its conversation for the chat: the loop's events, as they were sent,
// with runs of streamed pieces joined. Folding the kept entries gives what folding the live
// events gave, so a reopened session shows each call's status, error, data and links as they
// were — the chat has one fold for both.
import type { ChatEvent, ChatTranscriptEntry, ToolEffect } from '../../shared/contract';

export interface CallFacts {
  title: string;
  effect: ToolEffect;
  summary: string;
}
import { contentText, type ChatMessage } from '../agent/llm/types';

/** Live tool output kept per call: the tail, as the chat keeps it. */
export const KEPT_OUTPUT_CHARS = 200_000;

/** Events the chat does not draw: nothing to keep. */
const UNDRAWN = new Set<ChatEvent['type']>(['usage', 'turn_started', 'turn_completed', 'request_started', 'system_prompt']);
/** A subagent's card counts its turns and tokens: of its events, only these go undrawn. */
const UNDRAWN_CHILD = new Set<ChatEvent['type']>(['turn_completed', 'request_started', 'system_prompt']);

const agentOf = (e: ChatEvent | ChatTranscriptEntry): string | undefined => ('agent_id' in e ? e.agent_id : undefined);

/** Appends one event (or the person's message) to `list`, joining it with the piece before when both stream into the same place. */
export function keepEntry(list: ChatTranscriptEntry[], event: ChatEvent | ChatTranscriptEntry): void {
  const agent = agentOf(event);
  // The live chat names the person's message's request when it starts (chatFold): so does the
  // kept one; a request with no message waiting for it (a queued one sent next) keeps its prompt as one.
  if (event.type === 'request_started' && !agent && 'correlation_id' in event && event.correlation_id) {
    const at = list.findLastIndex((e) => e.type === 'user_message');
    const user = list[at];
    const mode = event.mode === 'plan' ? { mode: event.mode } : {};
    if (user?.type === 'user_message' && !user.correlation_id) list[at] = { ...user, correlation_id: event.correlation_id, ...mode };
    else if (user?.type !== 'user_message' || user.correlation_id !== event.correlation_id) list.push({ type: 'user_message', text: event.prompt, correlation_id: event.correlation_id, ...mode });
  }
  // A command's expansion belongs to the person's message the same way (a queued one sent next gets one, named `/name`).
  if (event.type === 'command_expanded' && !agent && 'correlation_id' in event && event.correlation_id) {
    const at = list.findLastIndex((e) => e.type === 'user_message');
    const user = list[at];
    if (user?.type === 'user_message' && !user.correlation_id) list[at] = { ...user, correlation_id: event.correlation_id };
    else if (user?.type !== 'user_message' || user.correlation_id !== event.correlation_id) list.push({ type: 'user_message', text: `/${event.name}`, correlation_id: event.correlation_id });
  }
  if ((agent ? UNDRAWN_CHILD : UNDRAWN).has(event.type as ChatEvent['type'])) return;
  // A live event's correlation and time are the stream's; the person's message keeps the request it started.
  // The meter is kept once per session (its last usage), not on every finished request.
  const { correlation_id: _c, t: _t, ...body } = event as ChatEvent;
  if (body.type === 'request_finished') delete body.usage;
  const entry = (event.type === 'user_message' ? event : body) as ChatTranscriptEntry;
  const last = list[list.length - 1];
  // Pieces join only within one agent: children stream side by side.
  if (last && last.type === entry.type && agentOf(last) === agent) {
    if ((entry.type === 'text_delta' || entry.type === 'reasoning_delta') && (last.type === 'text_delta' || last.type === 'reasoning_delta')) {
      list[list.length - 1] = { ...last, text: last.text + entry.text };
      return;
    }
    if (entry.type === 'tool_call_args' && last.type === 'tool_call_args' && last.call_id === entry.call_id) {
      list[list.length - 1] = { ...last, delta: last.delta + entry.delta };
      return;
    }
    if (entry.type === 'tool_output' && last.type === 'tool_output' && last.call_id === entry.call_id) {
      list[list.length - 1] = { ...last, text: (last.text + entry.text).slice(-KEPT_OUTPUT_CHARS) };
      return;
    }
  }
  list.push(entry.type === 'tool_output' ? { ...entry, text: entry.text.slice(-KEPT_OUTPUT_CHARS) } : entry);
}

const parseArgs = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

/**
 * Entries for a session saved before entries were kept: rebuilt from the model's messages, which
 * hold no status, error or data, so every answered call reads as done. `facts`: what the live
 * tool_call_started carries besides the call's name and arguments.
 */
/** `facts`: the registry's title, effect and summary for a call, as the live event carries them. */
export function entriesFromMessages(messages: ChatMessage[], facts: (tool: string, args: unknown) => CallFacts): ChatTranscriptEntry[] {
  const list: ChatTranscriptEntry[] = [];
  const open = new Map<string, string>();
  const finish = (id: string, ok: boolean, output: string) => {
    const tool = open.get(id);
    if (tool === undefined) return;
    open.delete(id);
    list.push({ type: 'tool_call_finished', call_id: id, tool, ok, output, duration_ms: Number.NaN });
  };
  for (const m of messages) {
    if (m.role === 'user') {
      for (const id of [...open.keys()]) finish(id, false, '(no result)');
      keepEntry(list, { type: 'user_message', text: contentText(m.content) });
    } else if (m.role === 'assistant') {
      const reasoning = m.reasoning_content || m.reasoning;
      if (reasoning) keepEntry(list, { type: 'reasoning_delta', text: reasoning });
      if (m.content) keepEntry(list, { type: 'text_delta', text: m.content });
      for (const c of m.tool_calls ?? []) {
        open.set(c.id, c.function.name);
        const args = parseArgs(c.raw_arguments ?? c.function.arguments);
        // What the live event says of the call beside its name (the registry's facts), so both draw alike.
        list.push({ type: 'tool_call_started', call_id: c.id, tool: c.function.name, ...facts(c.function.name, args), args });
      }
    } else if (m.role === 'tool') finish(m.tool_call_id, true, m.content);
  }
  for (const id of [...open.keys()]) finish(id, false, '(no result)');
  if (list.length) list.push({ type: 'request_finished', status: 'done', text: '', turns: 0 });
  return list;
}

const str = (v: unknown) => typeof v === 'string';
const obj = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Fields each kept entry must have for the chat to draw it; a session file may come with a clone. */
const SHAPES: Record<ChatTranscriptEntry['type'], (e: Record<string, unknown>) => boolean> = {
  user_message: (e) =>
    str(e.text) &&
    (e.correlation_id === undefined || str(e.correlation_id)) &&
    (e.mode === undefined || e.mode === 'plan' || e.mode === 'act') &&
    (e.attachments === undefined || (Array.isArray(e.attachments) && e.attachments.every((a) => obj(a) && str((a as Record<string, unknown>).kind) && str((a as Record<string, unknown>).label)))),
  request_started: () => true,
  command_expanded: (e) => str(e.name) && str(e.text) && (e.source === 'built-in' || e.source === 'personal' || e.source === 'repository'),
  system_prompt: () => true,
  turn_started: () => true,
  turn_completed: () => true,
  usage: () => true,
  text_delta: (e) => str(e.text),
  reasoning_delta: (e) => str(e.text),
  notice: (e) => str(e.text),
  tool_call_streaming: (e) => str(e.call_id) && str(e.tool) && str(e.title) && str(e.effect),
  tool_call_args: (e) => str(e.call_id) && str(e.delta),
  tool_call_started: (e) => str(e.call_id) && str(e.tool) && str(e.title) && str(e.effect) && str(e.summary),
  tool_output: (e) => str(e.call_id) && str(e.text),
  tool_call_finished: (e) =>
    str(e.call_id) &&
    str(e.tool) &&
    typeof e.ok === 'boolean' &&
    str(e.output) &&
    (e.for_person === undefined || str(e.for_person)) &&
    (e.data === undefined || obj(e.data)) &&
    (e.error === undefined || (obj(e.error) && str((e.error as Record<string, unknown>).code) && str((e.error as Record<string, unknown>).message) && ((e.error as Record<string, unknown>).for_person === undefined || str((e.error as Record<string, unknown>).for_person)))),
  retry: (e) => typeof e.attempt === 'number' && typeof e.delay_ms === 'number' && str(e.reason),
  steer: (e) => str(e.text),
  plan: (e) => str(e.path) && str(e.text),
  compacted: (e) => (e.mode === 'summary' || e.mode === 'dropped') && typeof e.removed_messages === 'number' && (e.summary === undefined || str(e.summary)),
  error: (e) => str(e.code) && str(e.message),
  hook: (e) => str(e.event) && str(e.source) && str(e.decision) && typeof e.ms === 'number' && str(e.hook) && (e.call_id === undefined || str(e.call_id)) && (e.reason === undefined || str(e.reason)),
  request_finished: () => true,
  subagent_started: (e) => str(e.agent_id) && str(e.description) && str(e.agent_type) && (e.tools === undefined || (Array.isArray(e.tools) && e.tools.every(str))),
  subagent_finished: (e) => str(e.agent_id) && str(e.status) && str(e.text) && (e.files === undefined || (Array.isArray(e.files) && e.files.every(str))),
};

/** An entry's subagent tags, when it has them, are strings. */
const tagsOk = (e: Record<string, unknown>) => (e.agent_id === undefined || str(e.agent_id)) && (e.parent_session_id === undefined || str(e.parent_session_id));

/** The kept entries of a loaded session file, or undefined when it has none worth trusting (then they are rebuilt from the messages). */
export function checkedEntries(value: unknown): ChatTranscriptEntry[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const ok = value.every((e) => obj(e) && Object.hasOwn(SHAPES, (e as { type: unknown }).type as string) && tagsOk(e as Record<string, unknown>) && SHAPES[(e as { type: ChatTranscriptEntry['type'] }).type](e as Record<string, unknown>));
  return ok ? (value as ChatTranscriptEntry[]) : undefined;
}
