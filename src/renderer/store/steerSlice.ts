// Steering the open conversation (docs/architecture.md, "Steering" and "Plan mode"): the mode the
// next message goes in, messages queued while the agent works ("send now" gives one to the model
// at the next tool boundary), edit and resend (a fork; the old branch is kept and can be shown
// again), and "Execute plan".
import type { ChatMode, ChatSessionView, ForkView, QueuedMessageView } from '../../shared/contract';
import { errorMessage } from '../host-client';
import { applyChatEvent, foldTranscript, nextId } from './chatFold';
import type { SliceCreator } from './types';

export interface SteerSlice {
  /** The mode the next message is sent in. */
  chatMode: ChatMode;
  /** Messages waiting while the agent works, as the host keeps them. */
  chatQueued: QueuedMessageView[];
  /** Where edited messages forked the open conversation. */
  chatForks: ForkView[];
  /** An edit was resent: the fork shows once its request is kept (when it ends). */
  chatForksStale: boolean;

  setChatMode(mode: ChatMode): void;
  /** A message while the agent works: it waits (editable, removable) until sent. */
  queueChat(text: string): Promise<void>;
  editQueued(id: string, text: string): Promise<void>;
  removeQueued(id: string): Promise<void>;
  sendNow(id: string): Promise<void>;
  queuedChanged(sessionId: string, messages: QueuedMessageView[]): void;
  /** The queue and forks of a session view just opened or changed. */
  steerFromView(view: ChatSessionView): void;
  /** Edit and resend: the conversation forks before that request and goes on from `text`. */
  editAndResend(correlationId: string, text: string): Promise<void>;
  switchBranch(branchId: string): Promise<void>;
  /** Runs a plan-mode request's plan in act mode; its changes carry the plan's correlation id. */
  executePlan(correlationId: string): Promise<void>;
  /** After a request: the forks as the host now has them. */
  refreshForks(): Promise<void>;
}

export const EXECUTE_PLAN_TEXT = 'Execute the plan.';

export const createSteerSlice: SliceCreator<SteerSlice> = (set, get, { client }) => {
  const fail = (err: unknown) => set((s) => ({ chatItems: [...s.chatItems, { kind: 'error', id: nextId('e'), code: (err as { code?: string }).code ?? 'INTERNAL', message: errorMessage(err) }] }));
  const session = () => get().chatSessionId;
  /** Starts a request the page draws itself (the person's words first), as chat.send does. */
  const start = async (text: string, request: () => Promise<{ session_id: string; correlation_id: string }>) => {
    set((s) => ({ chatItems: applyChatEvent(s.chatItems, { type: 'user_message', text }), chatRunning: { correlationId: null } }));
    try {
      const r = await request();
      set((s) => (s.chatRunning && s.chatSessionId === r.session_id ? { chatRunning: { correlationId: r.correlation_id } } : {}));
    } catch (err) {
      set({ chatRunning: null });
      fail(err);
    }
  };
  return {
    chatMode: 'act',
    chatQueued: [],
    chatForks: [],
    chatForksStale: false,

    setChatMode: (mode) => set({ chatMode: mode }),

    async queueChat(text) {
      const id = session();
      if (!id || !text.trim()) return;
      try {
        await client.request('chat.enqueue', { session_id: id, text: text.trim(), mode: get().chatMode });
      } catch (err) {
        fail(err);
      }
    },

    async editQueued(queueId, text) {
      const id = session();
      if (!id || !text.trim()) return;
      try {
        await client.request('chat.queueEdit', { session_id: id, id: queueId, text: text.trim() });
      } catch (err) {
        fail(err);
      }
    },

    async removeQueued(queueId) {
      const id = session();
      if (!id) return;
      try {
        await client.request('chat.queueRemove', { session_id: id, id: queueId });
      } catch (err) {
        fail(err);
      }
    },

    async sendNow(queueId) {
      const id = session();
      if (!id) return;
      try {
        await client.request('chat.sendNow', { session_id: id, id: queueId });
      } catch (err) {
        fail(err);
      }
    },

    queuedChanged(sessionId, messages) {
      if (sessionId === session()) set({ chatQueued: messages });
    },

    steerFromView: (view) => set({ chatQueued: view.queued ?? [], chatForks: view.forks ?? [] }),

    async editAndResend(correlationId, text) {
      const id = session();
      const prompt = text.trim();
      if (!id || !prompt || get().chatRunning) return;
      // The page shows the conversation up to the edited message; the host forks it the same way.
      const at = get().chatItems.findIndex((x) => x.kind === 'user' && x.correlationId === correlationId);
      if (at >= 0) set((s) => ({ chatItems: s.chatItems.slice(0, at) }));
      set({ chatForksStale: true });
      await start(prompt, () => client.request('chat.edit', { session_id: id, correlation_id: correlationId, text: prompt, mode: get().chatMode }));
    },

    async switchBranch(branchId) {
      const id = session();
      if (!id || get().chatRunning) return;
      try {
        const view = await client.request('chat.switchBranch', { session_id: id, branch_id: branchId });
        set({ chatItems: foldTranscript(view.entries) });
        get().steerFromView(view);
        get().setUndone(view.undone);
      } catch (err) {
        fail(err);
      }
    },

    async executePlan(correlationId) {
      const id = session();
      if (!id || get().chatRunning) return;
      set({ chatMode: 'act' });
      await start(EXECUTE_PLAN_TEXT, () => client.request('chat.send', { session_id: id, text: EXECUTE_PLAN_TEXT, mode: 'act', plan: correlationId }));
    },

    async refreshForks() {
      const id = session();
      if (!id) return;
      try {
        const view = await client.request('chat.session', { id });
        if (view.session.id === session()) set({ chatForks: view.forks ?? [], chatForksStale: false });
      } catch {
        // The forks show at the next open.
      }
    },
  };
};
