import type { ChatEvent, ChatSessionSummary, ChatTranscriptItem, TokenUsage, ToolEffect } from '../../shared/contract';
import { errorMessage } from '../host-client';
import type { SliceCreator } from './types';

export type ToolStatus = 'running' | 'done' | 'error';

export type ChatItem =
  | { kind: 'user'; id: string; text: string }
  | { kind: 'assistant'; id: string; text: string; streaming: boolean }
  /** The model's reasoning: shown collapsed, apart from the answer. */
  | { kind: 'reasoning'; id: string; text: string; streaming: boolean }
  /** title, effect and summary: what the tool says of itself and of this call (summary: once the arguments are complete). */
  | { kind: 'tool'; id: string; tool: string; title: string; effect: ToolEffect; summary: string; args: unknown; argsText: string; status: ToolStatus; output: string; error?: string; data?: Record<string, unknown>; durationMs?: number }
  | { kind: 'error'; id: string; code: string; message: string }
  | { kind: 'note'; id: string; text: string };

export interface ChatSlice {
  chatSessions: ChatSessionSummary[];
  chatSessionId: string | null;
  chatItems: ChatItem[];
  /** The request running in the open session. */
  chatRunning: { correlationId: string | null } | null;
  chatUsage: TokenUsage | null;
  /** Tokens used by the open session's requests since it was opened. */
  chatUsageTotal: number;

  resetChat(): void;
  loadChatSessions(): Promise<void>;
  openChatSession(id: string): Promise<void>;
  newChatSession(): Promise<void>;
  renameChatSession(id: string, title: string): Promise<void>;
  deleteChatSession(id: string): Promise<void>;
  sendChat(text: string): Promise<void>;
  stopChat(): Promise<void>;
  chatEvent(sessionId: string, event: ChatEvent): void;
}

/** Live tool output kept per card: the tail, so a chatty command cannot grow the store forever. */
export const TOOL_OUTPUT_CAP = 200_000;
/** How long streamed text may wait to be joined with the next tokens (about a frame). */
export const DELTA_FLUSH_MS = 16;

let seq = 0;
const nextId = (p: string) => `${p}-${++seq}`;

function fromTranscript(items: ChatTranscriptItem[]): ChatItem[] {
  return items.map((i) => {
    if (i.kind === 'user') return { kind: 'user', id: nextId('u'), text: i.text };
    if (i.kind === 'assistant') return { kind: 'assistant', id: nextId('a'), text: i.text, streaming: false };
    if (i.kind === 'reasoning') return { kind: 'reasoning', id: nextId('r'), text: i.text, streaming: false };
    return { kind: 'tool', id: i.call_id, tool: i.tool, title: i.title, effect: i.effect, summary: i.summary, args: i.args, argsText: '', status: i.status, output: i.output };
  });
}

/** Applies one loop event to the rendered conversation (pure: the store test drives it). */
export function applyChatEvent(items: ChatItem[], e: ChatEvent): ChatItem[] {
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
    case 'tool_call_finished':
      return (
        updateTool(e.call_id, (t) => ({
          ...t,
          status: e.ok ? 'done' : 'error',
          output: e.output,
          data: e.data,
          durationMs: e.duration_ms,
          ...(e.error ? { error: `${e.error.code}: ${e.error.message}` } : {}),
        })) ?? items
      );
    case 'retry': {
      // Whatever streamed in the failed attempt is void.
      const kept = items.filter((x) => !((x.kind === 'assistant' || x.kind === 'reasoning') && x.streaming));
      return [...kept, { kind: 'note', id: nextId('n'), text: `The model request failed (${e.reason}); retry ${e.attempt} in ${(e.delay_ms / 1000).toFixed(1)} s…` }];
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

export const createChatSlice: SliceCreator<ChatSlice> = (set, get, { client }) => {
  let pending: { sessionId: string; event: Extract<ChatEvent, { type: 'text_delta' }> } | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    const p = pending;
    pending = null;
    if (p && p.sessionId === get().chatSessionId) set((s) => ({ chatItems: applyChatEvent(s.chatItems, p.event) }));
  };
  const fail = (err: unknown) => set((s) => ({ chatItems: [...s.chatItems, { kind: 'error', id: nextId('e'), code: (err as { code?: string }).code ?? 'INTERNAL', message: errorMessage(err) }] }));
  return {
    chatSessions: [],
    chatSessionId: null,
    chatItems: [],
    chatRunning: null,
    chatUsage: null,
    chatUsageTotal: 0,

    resetChat: () => {
      pending = null;
      set({ chatSessions: [], chatSessionId: null, chatItems: [], chatRunning: null, chatUsage: null, chatUsageTotal: 0 });
    },

    async loadChatSessions() {
      try {
        set({ chatSessions: await client.request('chat.sessions', undefined) });
      } catch {
        // No folder yet: nothing to list.
      }
    },

    async openChatSession(id) {
      try {
        const view = await client.request('chat.session', { id });
        set({
          chatSessionId: id,
          chatItems: fromTranscript(view.items),
          chatRunning: view.running_correlation_id ? { correlationId: view.running_correlation_id } : null,
          chatUsage: null,
          chatUsageTotal: 0,
        });
      } catch (err) {
        fail(err);
      }
    },

    async newChatSession() {
      try {
        const s = await client.request('chat.newSession', undefined);
        set((st) => ({ chatSessionId: s.id, chatItems: [], chatRunning: null, chatUsage: null, chatUsageTotal: 0, chatSessions: [s, ...st.chatSessions.filter((x) => x.id !== s.id)] }));
      } catch (err) {
        fail(err);
      }
    },

    async renameChatSession(id, title) {
      try {
        const s = await client.request('chat.renameSession', { id, title });
        set((st) => ({ chatSessions: st.chatSessions.map((x) => (x.id === id ? s : x)) }));
      } catch (err) {
        fail(err);
      }
    },

    async deleteChatSession(id) {
      try {
        await client.request('chat.deleteSession', { id });
        set((st) => ({ chatSessions: st.chatSessions.filter((x) => x.id !== id), ...(st.chatSessionId === id ? { chatSessionId: null, chatItems: [], chatRunning: null } : {}) }));
      } catch (err) {
        fail(err);
      }
    },

    async sendChat(text) {
      const prompt = text.trim();
      if (!prompt || get().chatRunning) return;
      if (!get().chatSessionId) await get().newChatSession();
      const sessionId = get().chatSessionId;
      if (!sessionId) return;
      set((s) => ({ chatItems: [...s.chatItems, { kind: 'user', id: nextId('u'), text: prompt }], chatRunning: { correlationId: null } }));
      try {
        const r = await client.request('chat.send', { session_id: sessionId, text: prompt });
        // The request may already have finished (events travel ahead of the answer).
        set((s) => (s.chatRunning && s.chatSessionId === r.session_id ? { chatRunning: { correlationId: r.correlation_id } } : {}));
        void get().loadChatSessions(); // the first request names the session
      } catch (err) {
        set({ chatRunning: null });
        fail(err);
      }
    },

    async stopChat() {
      const id = get().chatSessionId;
      if (!id) return;
      try {
        await client.request('chat.stop', { session_id: id });
      } catch (err) {
        fail(err);
      }
    },

    chatEvent(sessionId, event) {
      if (sessionId !== get().chatSessionId) {
        if (event.type === 'request_finished') void get().loadChatSessions();
        return;
      }
      // Tokens arrive one event each: they are joined and applied once a frame, so a fast
      // stream costs one render per frame, not one per token. Anything else flushes first.
      if (event.type === 'text_delta') {
        if (pending && pending.sessionId === sessionId) pending.event = { ...pending.event, text: pending.event.text + event.text };
        else {
          flush();
          pending = { sessionId, event };
          timer = setTimeout(flush, DELTA_FLUSH_MS);
        }
        return;
      }
      flush();
      set((s) => ({
        chatItems: applyChatEvent(s.chatItems, event),
        ...(event.type === 'request_started' ? { chatRunning: { correlationId: event.correlation_id } } : {}),
        ...(event.type === 'request_finished' ? { chatRunning: null } : {}),
        ...(event.type === 'usage' ? { chatUsage: event.usage, chatUsageTotal: s.chatUsageTotal + event.usage.total_tokens } : {}),
      }));
      if (event.type === 'request_finished') void get().loadChatSessions();
    },
  };
};
