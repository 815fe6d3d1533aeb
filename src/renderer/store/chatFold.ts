// The chat's one fold: live loop events and a reopened session's kept entries both become the
// rendered conversation through applyChatEvent, so a reload draws what was drawn live.
import type { ChatEvent, ChatTranscriptEntry, ToolEffect } from '../../shared/contract';

/** `failed`: the call worked but the command it ran exited non-zero (`exitCode` says how). */
export type ToolStatus = 'running' | 'done' | 'error' | 'failed';

export type ChatItem =
  /** correlationId: the request it started (known once the host accepted it), for "Undo changes from here". */
  | { kind: 'user'; id: string; text: string; correlationId?: string }
  | { kind: 'assistant'; id: string; text: string; streaming: boolean }
  /** The model's reasoning: shown collapsed, apart from the answer. */
  | { kind: 'reasoning'; id: string; text: string; streaming: boolean }
  /** title, effect and summary: what the tool says of itself and of this call (summary: once the arguments are complete). */
  | { kind: 'tool'; id: string; tool: string; title: string; effect: ToolEffect; summary: string; args: unknown; argsText: string; status: ToolStatus; output: string; error?: string; errorCode?: string; data?: Record<string, unknown>; durationMs?: number; exitCode?: number }
  | { kind: 'error'; id: string; code: string; message: string }
  /** `retry`: the model request is being retried; the next retry updates this line instead of adding one. */
  | { kind: 'note'; id: string; text: string; retry?: boolean };

/** Live tool output kept per card: the tail, so a chatty command cannot grow the store forever. */
export const TOOL_OUTPUT_CAP = 200_000;

let seq = 0;
export const nextId = (p: string) => `${p}-${++seq}`;

/** A reopened session: its kept entries through the same fold as the live events. */
export function foldTranscript(entries: ChatTranscriptEntry[], items: ChatItem[] = []): ChatItem[] {
  return entries.reduce(applyChatEvent, items);
}

/**
 * Applies one loop event (or the person's message) to the rendered conversation. Pure, and the
 * only fold: the live stream and a reopened session's entries both go through it.
 */
export function applyChatEvent(items: ChatItem[], e: ChatEvent | ChatTranscriptEntry): ChatItem[] {
  const last = items[items.length - 1];
  const updateTool = (id: string, f: (t: Extract<ChatItem, { kind: 'tool' }>) => Extract<ChatItem, { kind: 'tool' }>) => {
    const i = items.findIndex((x) => x.kind === 'tool' && x.id === id);
    if (i < 0) return null;
    const next = items.slice();
    next[i] = f(items[i] as Extract<ChatItem, { kind: 'tool' }>);
    return next;
  };
  const settle = (list: ChatItem[]) => list.map((x) => ((x.kind === 'assistant' || x.kind === 'reasoning') && x.streaming ? { ...x, streaming: false } : x));
  switch (e.type) {
    case 'user_message':
      return [...settle(items), { kind: 'user', id: nextId('u'), text: e.text, ...(e.correlation_id ? { correlationId: e.correlation_id } : {}) }];
    case 'request_started': {
      // Live, the person's message was drawn before the host named its request.
      const id = 'correlation_id' in e ? e.correlation_id : undefined;
      const at = id ? items.findLastIndex((x) => x.kind === 'user') : -1;
      const user = at >= 0 ? items[at] : null;
      if (!user || user.kind !== 'user' || user.correlationId) return items;
      const next = items.slice();
      next[at] = { ...user, correlationId: id };
      return next;
    }
    case 'text_delta':
      if (last?.kind === 'assistant' && last.streaming) return [...items.slice(0, -1), { ...last, text: last.text + e.text }];
      return [...settle(items), { kind: 'assistant', id: nextId('a'), text: e.text, streaming: true }];
    case 'reasoning_delta':
      if (last?.kind === 'reasoning' && last.streaming) return [...items.slice(0, -1), { ...last, text: last.text + e.text }];
      return [...settle(items), { kind: 'reasoning', id: nextId('r'), text: e.text, streaming: true }];
    case 'notice':
      return [...items, { kind: 'note', id: nextId('n'), text: e.text }];
    case 'tool_call_streaming':
      return [...settle(items), { kind: 'tool', id: e.call_id, tool: e.tool, title: e.title, effect: e.effect, summary: '', args: undefined, argsText: '', status: 'running', output: '' }];
    case 'tool_call_args':
      return updateTool(e.call_id, (t) => ({ ...t, argsText: t.argsText + e.delta })) ?? items;
    case 'tool_call_started':
      return (
        updateTool(e.call_id, (t) => ({ ...t, tool: e.tool, title: e.title, effect: e.effect, summary: e.summary, args: e.args, status: 'running' })) ?? [
          ...settle(items),
          { kind: 'tool', id: e.call_id, tool: e.tool, title: e.title, effect: e.effect, summary: e.summary, args: e.args, argsText: '', status: 'running', output: '' },
        ]
      );
    case 'tool_output':
      return updateTool(e.call_id, (t) => ({ ...t, output: (t.output + e.text).slice(-TOOL_OUTPUT_CAP) })) ?? items;
    case 'tool_call_finished': {
      // A command that ran and exited non-zero is a success of the tool and a failure of the command.
      const exit = typeof e.data?.exit_code === 'number' ? e.data.exit_code : undefined;
      return (
        updateTool(e.call_id, (t) => ({
          ...t,
          status: !e.ok ? 'error' : exit ? 'failed' : 'done',
          ...(exit !== undefined ? { exitCode: exit } : {}),
          output: e.output,
          data: e.data,
          // A session saved before results were kept knows no duration.
          durationMs: Number.isFinite(e.duration_ms) ? e.duration_ms : undefined,
          ...(e.error ? { error: `${e.error.code}: ${e.error.message}`, errorCode: e.error.code } : {}),
        })) ?? items
      );
    }
    case 'retry': {
      // Whatever streamed in the failed attempt is void.
      const kept = items.filter((x) => !((x.kind === 'assistant' || x.kind === 'reasoning') && x.streaming));
      const text = `The model request failed (${e.reason}); retry ${e.attempt} in ${(e.delay_ms / 1000).toFixed(1)} s…`;
      // Retries of one failure are one line that counts up, not a line each.
      const prevRetry = kept[kept.length - 1];
      if (prevRetry?.kind === 'note' && prevRetry.retry) return [...kept.slice(0, -1), { ...prevRetry, text }];
      return [...kept, { kind: 'note', id: nextId('n'), text, retry: true }];
    }
    case 'compacted':
      return [...items, { kind: 'note', id: nextId('n'), text: `Conversation compacted: ${e.removed_messages} older messages ${e.mode === 'summary' ? 'summarised' : 'dropped'}.` }];
    case 'error':
      return [
        ...settle(items).map((x) => (x.kind === 'tool' && x.status === 'running' ? { ...x, status: 'error' as const, error: e.code === 'ABORTED' ? 'Stopped.' : x.error } : x)),
        e.code === 'ABORTED' ? { kind: 'note', id: nextId('n'), text: 'Stopped.' } : { kind: 'error', id: nextId('e'), code: e.code, message: e.message },
      ];
    case 'request_finished':
      return settle(items);
    default:
      return items;
  }
}

