// The chat sessions the host keeps: per workspace (the open folder and any worktree a session
// works in), the live sessions with their records, queues and runners, made from the session
// store on first use. Knows nothing of how a request runs (requests.ts) or of transports.
import type { ChatSessionSummary, ChatSessionView, ChatTranscriptEntry, HostEvents, SystemPromptView } from '../../shared/contract';
import { InvalidArgumentError } from '../errors';
import type { SessionRunner } from '../agent/runner/types';
import type { ChatMessage } from '../agent/llm/types';
import type { ToolRegistry } from '../agent/tools/registry';
import { FileSession } from '../services/files/readTracker';
import type { SessionRecord } from '../services/sessions/sessionStore';
import type { WorkspaceServices } from '../services/workspaceServices';
import { checkedBranches, forksOf, type ChatRecord } from './branches';
import { MessageQueue } from './messageQueue';
import { checkedEntries, entriesFromMessages } from './transcript';
import { undoneRequests } from './undo';
import { LOUPE_AGENT } from '../services/config/agentsConfig';

type Emit = <E extends keyof HostEvents>(event: E, payload: HostEvents[E]) => void;

/** A request under way in a session. */
export interface RunningRequest {
  correlationId: string;
  abort: AbortController;
  /** Settles when the request has ended and its session is saved. */
  done: Promise<void>;
}

export interface LiveSession {
  record: ChatRecord;
  files: FileSession;
  running: RunningRequest | null;
  /** The system prompt as last sent in this session (kept while the host runs). */
  prompt: SystemPromptView | null;
  /** Messages sent while it works (kept while the host runs). */
  queue: MessageQueue;
  /** What does the session's work; made at its first request, disposed with the session. */
  runner: SessionRunner | null;
  /** The model chosen for this session instead of the settings' (kept while the host runs). */
  model?: string;
}

/** The sessions of one workspace, over its own services. */
export class WorkspaceChats {
  readonly live = new Map<string, LiveSession>();
  constructor(readonly services: WorkspaceServices) {}
}

export interface ChatSessionsOptions {
  emit: Emit;
  /** The open workspace's services; throws NO_WORKSPACE when none. */
  services: () => WorkspaceServices;
  /** The tools as they are now in a workspace (for transcripts of sessions saved before entries were kept). */
  tools: (w: WorkspaceChats) => ToolRegistry;
  /** Sends what the chat's batched stream still holds (before a session is shown whole). */
  flush: () => void;
  /** A workspace's sessions were made (the approvals follow its queue). */
  onWorkspace: (w: WorkspaceChats) => void;
}

export class ChatSessions {
  private readonly workspaces = new Map<WorkspaceServices, WorkspaceChats>();

  constructor(private readonly opts: ChatSessionsOptions) {}

  /** The open folder's sessions. */
  ws(): WorkspaceChats {
    const services = this.opts.services();
    let w = this.workspaces.get(services);
    if (!w) {
      w = new WorkspaceChats(services);
      this.workspaces.set(services, w);
      this.opts.onWorkspace(w);
    }
    return w;
  }

  /** Whether `w` is still one of the host's workspaces (a released one's events are not sent). */
  current(w: WorkspaceChats): boolean {
    return this.workspaces.get(w.services) === w;
  }

  /** Whether `w` is the open folder's. */
  isOpenFolder(w: WorkspaceChats): boolean {
    return this.workspaces.get(this.opts.services()) === w;
  }

  all(): WorkspaceChats[] {
    return [...this.workspaces.values()];
  }

  /** The workspace whose live sessions hold `sessionId` (the open folder's or a worktree's), if any. */
  holder(sessionId: string): WorkspaceChats | undefined {
    for (const w of this.workspaces.values()) if (w.live.has(sessionId)) return w;
    return undefined;
  }

  /** The workspace a session's request goes to: the one that holds it, else the open folder. */
  wsFor(sessionId: string | undefined): WorkspaceChats {
    return (sessionId ? this.holder(sessionId) : undefined) ?? this.ws();
  }

  /**
   * Takes another folder's services (a worktree of the open folder) beside the open folder's:
   * its sessions run their own requests over them, and its questions wait in the open folder's queue.
   */
  attach(services: WorkspaceServices): WorkspaceChats {
    let w = this.workspaces.get(services);
    if (!w) {
      w = new WorkspaceChats(services);
      this.workspaces.set(services, w);
    }
    return w;
  }

  /** A session in an attached folder: the latest saved one (made live, so requests find it), or a new one. */
  async sessionIn(services: WorkspaceServices, opts: { fresh?: boolean } = {}): Promise<string> {
    const w = this.attach(services);
    if (!opts.fresh) {
      const live = [...w.live.values()].at(-1);
      if (live) return live.record.id;
      const saved = (await w.services.sessions.list()).sort((a, b) => b.updated_at.localeCompare(a.updated_at))[0];
      if (saved) return (await this.session(w, saved.id)).record.id;
    }
    return this.create(w).record.id;
  }

  /** What the sidebar shows of a session: its title, and whether a request runs. */
  state(sessionId: string): { title: string; running: boolean; requests: number } | null {
    const s = this.holder(sessionId)?.live.get(sessionId);
    return s ? { title: s.record.title, running: s.running !== null, requests: s.record.requests.length } : null;
  }

  /** Requests running now, in every folder held (a remote host stays up while there are any). */
  runningCount(): number {
    let n = 0;
    for (const w of this.workspaces.values()) for (const s of w.live.values()) if (s.running) n++;
    return n;
  }

  /** A new session in `w`, live at once (saved when its first request ends); `agent`: a hosted agent does its work. */
  create(w: WorkspaceChats, agent?: string): LiveSession {
    const record: ChatRecord = w.services.sessions.create<ChatMessage>();
    if (agent && agent !== LOUPE_AGENT) record.hosted_agent = agent;
    const s = this.live(w, record);
    w.live.set(record.id, s);
    return s;
  }

  /** The session, made live from its file on first use. */
  async session(w: WorkspaceChats, id: string): Promise<LiveSession> {
    let s = w.live.get(id);
    if (!s) {
      const record: ChatRecord = await w.services.sessions.load<ChatMessage>(id);
      record.entries = checkedEntries(record.entries);
      record.branches = checkedBranches(record.branches);
      s = w.live.get(id) ?? this.live(w, record);
      w.live.set(id, s);
    }
    return s;
  }

  private live(w: WorkspaceChats, record: ChatRecord): LiveSession {
    const queue = new MessageQueue((messages) => {
      if (this.current(w)) this.opts.emit('chat.queued', { session_id: record.id, messages });
    });
    return { record, files: new FileSession(record.id), running: null, prompt: null, queue, runner: null };
  }

  summary(w: WorkspaceChats, r: SessionRecord): ChatSessionSummary {
    return { id: r.id, title: r.title, created_at: r.created_at, updated_at: r.updated_at, requests: r.requests.length, running: Boolean(w.live.get(r.id)?.running), ...(r.hosted_agent ? { agent: r.hosted_agent } : {}) };
  }

  /** What the chat shows of the session, rebuilt from the messages for a file saved before entries were kept. */
  entries(w: WorkspaceChats, s: LiveSession): ChatTranscriptEntry[] {
    return (s.record.entries ??= entriesFromMessages(s.record.messages, (n, a) => this.opts.tools(w).callFacts(n, a)));
  }

  /** The person's sessions: a subagent's session is shown on its card, not listed. */
  async list(): Promise<ChatSessionSummary[]> {
    const w = this.ws();
    const saved = await w.services.sessions.list();
    const ids = new Set(saved.map((s) => s.id));
    // Sessions made but not yet saved (no request finished) are listed too.
    const unsaved = [...w.live.values()].filter((s) => !ids.has(s.record.id) && !s.record.parent_session_id).map((s) => this.summary(w, s.record));
    return [...unsaved, ...saved.filter((s) => !s.parent_session_id).map(({ parent_session_id: _p, ...s }) => ({ ...s, running: Boolean(w.live.get(s.id)?.running) }))];
  }

  async view(id: string): Promise<ChatSessionView> {
    const w = this.wsFor(id);
    const s = await this.session(w, id);
    const undone = await undoneRequests(w.services.modlog, s.record.id, s.record.requests.map((r) => r.correlation_id)).catch(() => []);
    // The tokens kept so far are sent before this answer and the copy holds exactly them: a
    // client that shows the session from this answer on neither misses nor repeats one.
    this.opts.flush();
    const entries = s.record.entries?.map((e) => ({ ...e })) ?? entriesFromMessages(s.record.messages, (n, a) => this.opts.tools(w).callFacts(n, a));
    const queued = s.queue.list();
    const forks = forksOf(s.record);
    const usage = s.record.usage?.last;
    return {
      session: this.summary(w, s.record),
      entries,
      ...(s.running ? { running_correlation_id: s.running.correlationId } : {}),
      ...(undone.length ? { undone } : {}),
      ...(queued.length ? { queued } : {}),
      ...(forks.length ? { forks } : {}),
      ...(usage ? { usage } : {}),
    };
  }

  async rename(id: string, title: string): Promise<ChatSessionSummary> {
    const w = this.wsFor(id);
    const s = await this.session(w, id);
    if (!title?.trim()) throw new InvalidArgumentError('A session title cannot be empty.');
    s.record.title = title.trim().slice(0, 200);
    await w.services.sessions.save(s.record);
    return this.summary(w, s.record);
  }

  async delete(id: string): Promise<void> {
    const w = this.wsFor(id);
    const s = w.live.get(id);
    if (s?.running) {
      s.running.abort.abort();
      await s.running.done;
    }
    w.live.delete(id);
    await s?.runner?.dispose('deleted');
    await w.services.sessions.delete(id).catch((err) => {
      if (!s) throw err; // never saved: nothing on disk to remove
    });
    // Its subagents' sessions go with it (their changes stay in the log, the request's).
    const children = new Set([...[...w.live.values()].filter((c) => c.record.parent_session_id === id).map((c) => c.record.id), ...(await w.services.sessions.list().catch(() => [])).filter((c) => c.parent_session_id === id).map((c) => c.id)]);
    for (const child of children) await this.delete(child).catch(() => undefined);
  }

  /** Another folder was opened: this one's requests stop, its runners end, its sessions are saved. */
  async release(services: WorkspaceServices): Promise<void> {
    const w = this.workspaces.get(services);
    if (!w) return;
    this.workspaces.delete(services);
    const sessions = [...w.live.values()];
    const running = sessions.flatMap((s) => (s.running ? [s.running] : []));
    for (const r of running) r.abort.abort();
    await Promise.all(running.map((r) => r.done.catch(() => undefined)));
    await Promise.all(sessions.map((s) => s.runner?.dispose().catch(() => undefined)));
    await w.services.sessions.flush();
  }

  async dispose(): Promise<void> {
    await Promise.all([...this.workspaces.keys()].map((services) => this.release(services)));
  }
}
