import type { ChatEvent, ChatSessionSummary, CommandInputView, UsageView } from '../../shared/contract';
import { errorMessage, HostRequestError } from '../host-client';
import { applyChatEvent, foldTranscript, nextId, type ChatItem } from './chatFold';
import { rememberedSession, rememberSession } from './lastSession';
import type { SliceCreator } from './types';

export { applyChatEvent, foldTranscript, TOOL_OUTPUT_CAP, type ChatItem, type SubagentItem, type ToolStatus } from './chatFold';

/** How long streamed text may wait to be joined with the next tokens (about a frame). */
export const DELTA_FLUSH_MS = 16;

export interface ChatSlice {
  chatSessions: ChatSessionSummary[];
  chatSessionId: string | null;
  chatItems: ChatItem[];
  /** The request running in the open session. */
  chatRunning: { correlationId: string | null } | null;
  /** The meter: the open session's latest model call, its context and cost, and the session's totals. */
  chatUsage: UsageView | null;

  resetChat(): void;
  loadChatSessions(): Promise<void>;
  /**
   * After a (re)load: the conversation running now, else the one this folder had open, is
   * opened again, live; a running one brings the agent tab to the front.
   */
  resumeChat(): Promise<void>;
  openChatSession(id: string): Promise<void>;
  /** A new session; `agent`: another agent does its work instead of Loupe's own. */
  newChatSession(agent?: string): Promise<void>;
  renameChatSession(id: string, title: string): Promise<void>;
  deleteChatSession(id: string): Promise<void>;
  /**
   * Sends in the chosen mode; while the agent works, queues instead. `/clear`, `/plan` and `/undo`
   * alone act here (a new session, the mode, the undo preview); other commands go to the host.
   * `inputs`: values a command asks for by name.
   */
  sendChat(text: string, opts?: { inputs?: Record<string, string> }): Promise<void>;
  stopChat(): Promise<void>;
  /** Stops one subagent of the open session's running request (its card's Stop). */
  stopAgent(agentId: string): Promise<void>;
  chatEvent(sessionId: string, event: ChatEvent): void;
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
  /**
   * The person's latest choice of session (opened, made, or picked at start): an answer that comes
   * back after a later choice is dropped, so a slow open never takes the chat back from the session
   * the person has since made and is working in.
   */
  let choice = 0;
  /** The built-ins the composer does itself; true when the text was one. */
  const builtinHere = async (prompt: string): Promise<boolean> => {
    if (prompt === '/clear') {
      await get().newChatSession();
      return true;
    }
    if (prompt === '/plan') {
      get().setChatMode('plan');
      return true;
    }
    if (prompt === '/undo' && !get().chatRunning) {
      const last = get().chatItems.findLast((i) => i.kind === 'user' && !i.steer && i.correlationId);
      if (last?.kind === 'user' && last.correlationId) await get().previewUndo(last.correlationId);
      else fail(new Error('Nothing to undo in this session yet.'));
      return true;
    }
    return false;
  };
  const fail = (err: unknown) => set((s) => ({ chatItems: [...s.chatItems, { kind: 'error', id: nextId('e'), code: (err as { code?: string }).code ?? 'INTERNAL', message: errorMessage(err) }] }));
  return {
    chatSessions: [],
    chatSessionId: null,
    chatItems: [],
    chatRunning: null,
    chatUsage: null,

    resetChat: () => {
      pending = null;
      set({ chatSessions: [], chatSessionId: null, chatItems: [], chatRunning: null, chatUsage: null, undone: {}, undoDialog: null, chatQueued: [], chatForks: [] });
    },

    async loadChatSessions() {
      try {
        set({ chatSessions: await client.request('chat.sessions', undefined) });
      } catch {
        // No folder yet: nothing to list.
      }
    },

    async resumeChat() {
      await get().loadChatSessions();
      if (get().chatSessionId) return;
      const sessions = get().chatSessions;
      const remembered = rememberedSession(get().workspace?.root);
      const running = sessions.find((s) => s.running);
      const target = running ?? sessions.find((s) => s.id === remembered);
      if (!target) return;
      await get().openChatSession(target.id);
      if (running && get().chatSessionId === running.id) get().setAgentPanelTab('agent');
    },

    async openChatSession(id) {
      const mine = ++choice;
      try {
        const view = await client.request('chat.session', { id });
        if (mine !== choice) return;
        rememberSession(get().workspace?.root, id);
        set({
          chatSessionId: id,
          chatItems: foldTranscript(view.entries),
          chatRunning: view.running_correlation_id ? { correlationId: view.running_correlation_id } : null,
          chatUsage: view.usage ?? null,
        });
        get().setUndone(view.undone);
        get().steerFromView(view);
      } catch (err) {
        fail(err);
      }
    },

    async newChatSession(agent) {
      const mine = ++choice;
      try {
        const s = await client.request('chat.newSession', agent ? { agent } : undefined);
        if (mine !== choice) return;
        rememberSession(get().workspace?.root, s.id);
        set((st) => ({ chatSessionId: s.id, chatItems: [], chatRunning: null, chatUsage: null, undone: {}, chatQueued: [], chatForks: [], chatSessions: [s, ...st.chatSessions.filter((x) => x.id !== s.id)] }));
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
        if (get().chatSessionId === id) rememberSession(get().workspace?.root, null);
        set((st) => ({ chatSessions: st.chatSessions.filter((x) => x.id !== id), ...(st.chatSessionId === id ? { chatSessionId: null, chatItems: [], chatRunning: null } : {}) }));
      } catch (err) {
        fail(err);
      }
    },

    async sendChat(text, opts = {}) {
      const prompt = text.trim();
      if (!prompt) return;
      if (await builtinHere(prompt)) return;
      // While the agent works the message waits in the queue, shown pending.
      if (get().chatRunning) {
        // A queued message is words only: attachments go with a message sent while the agent waits.
        if (get().chatAttachments.length) return fail(new Error('The agent is working: attachments go with the next message sent once it is done. Wait, or remove them to queue the words alone.'));
        return get().queueChat(prompt);
      }
      if (!get().chatSessionId) await get().newChatSession();
      const sessionId = get().chatSessionId;
      if (!sessionId) return;
      const mode = get().chatMode;
      const attached = get().chatAttachments;
      const views = attached.map((a) => a.view);
      set((s) => ({ chatItems: applyChatEvent(s.chatItems, { type: 'user_message', text: prompt, ...(mode === 'plan' ? { mode } : {}), ...(views.length ? { attachments: views } : {}) }), chatRunning: { correlationId: null } }));
      try {
        const r = await client.request('chat.send', { session_id: sessionId, text: prompt, mode, ...(attached.length ? { attachments: attached.map((a) => a.attachment) } : {}), ...(opts.inputs ? { inputs: opts.inputs } : {}) });
        get().clearAttachments();
        // The request may already have finished (events travel ahead of the answer).
        set((s) => (s.chatRunning && s.chatSessionId === r.session_id ? { chatRunning: { correlationId: r.correlation_id } } : {}));
        void get().loadChatSessions(); // the first request names the session
      } catch (err) {
        const missing = err instanceof HostRequestError ? (err.details?.missing_inputs as CommandInputView[] | undefined) : undefined;
        if (missing?.length) {
          // Not sent: the message waits for the values its command asks for.
          set((s) => ({ chatRunning: null, chatItems: dropLastUser(s.chatItems, prompt) }));
          get().askSlashInputs({ text: prompt, command: String(err instanceof HostRequestError ? (err.details?.command ?? '') : ''), inputs: missing });
          return;
        }
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

    async stopAgent(agentId) {
      const id = get().chatSessionId;
      if (!id) return;
      try {
        await client.request('chat.stopAgent', { session_id: id, agent_id: agentId });
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
        if (pending && pending.sessionId === sessionId && pending.event.agent_id === event.agent_id) pending.event = { ...pending.event, text: pending.event.text + event.text };
        else {
          flush();
          pending = { sessionId, event };
          timer = setTimeout(flush, DELTA_FLUSH_MS);
        }
        return;
      }
      flush();
      // A subagent's events draw its card; the request's own state (running, the meter) is the parent's.
      if (event.agent_id) {
        set((s) => ({ chatItems: applyChatEvent(s.chatItems, event) }));
        return;
      }
      set((s) => ({
        chatItems: applyChatEvent(s.chatItems, event),
        ...(event.type === 'request_started' ? { chatRunning: { correlationId: event.correlation_id } } : {}),
        ...(event.type === 'request_finished' ? { chatRunning: null } : {}),
        ...(event.type === 'usage' ? { chatUsage: event.usage } : {}),
      }));
      if (event.type === 'request_finished') {
        void get().loadChatSessions();
        if (get().chatForks.length || get().chatForksStale) void get().refreshForks();
      }
    },
  };
};

/** The list without the last message of the person that reads `text` (a message that was not sent after all). */
function dropLastUser(items: ChatItem[], text: string): ChatItem[] {
  const at = items.findLastIndex((i) => i.kind === 'user' && i.text === text && !i.correlationId);
  return at < 0 ? items : [...items.slice(0, at), ...items.slice(at + 1)];
}
