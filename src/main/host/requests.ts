// A session's requests: sending, queueing and steering messages, editing one (a fork), stopping.
// Each request goes to the session's runner (Loupe's loop, a child session, a hosted agent), and
// whatever the runner emits is kept in the session's transcript and streamed to the chat the same
// way, so every runner is shown, saved and stopped alike (docs/architecture.md, "Sessions and
// their runners").
import type { ChatEvent, ChatMode, Params } from '../../shared/contract';
import { InvalidArgumentError, toWireError } from '../errors';
import { newCorrelationId } from '../agent/loop/agentLoop';
import { now, type AgentEvent, type RunStatus } from '../agent/loop/events';
import type { ToolRegistry } from '../agent/tools/registry';
import type { RequestGrants } from '../services/permissions/grants';
import type { RunnerState, SessionRunner } from '../agent/runner/types';
import { titleFrom } from '../services/sessions/sessionStore';
import { checkAttachments, resolveAttachments } from './attachments';
import { forkAt, shiftIndexes, switchTo } from './branches';
import type { ChatSessions, LiveSession, RunningRequest, WorkspaceChats } from './chatSessions';
import type { DeltaBatcher } from './deltaBatcher';
import { checkedEntries, keepEntry } from './transcript';
import { notesText, personNotes } from './personNotes';
import type { UserContentPart } from '../agent/llm/types';
import { expandPlan, slashPlan, type SlashPlan } from './slashCommands';
import { builtinReply } from './builtinCommands';

/** What a request is asked to do: the person's words, the mode, and the plan it executes. */
export interface RequestSpec {
  text: string;
  mode: ChatMode;
  /** The correlation id of a plan-mode request whose plan this one executes. */
  plan?: string;
  /** Files, folders, a selection or images sent with the words (checked when the request starts). */
  attachments?: unknown;
  /** Values a slash command asks for by name. */
  inputs?: Record<string, string>;
}

export const modeOf = (m: unknown): ChatMode => {
  if (m === undefined || m === 'act' || m === 'plan') return m ?? 'act';
  throw new InvalidArgumentError(`mode must be "act" or "plan" (got ${JSON.stringify(m)}).`);
};
export const textOf = (t: unknown): string => {
  if (typeof t !== 'string' || !t.trim()) throw new InvalidArgumentError('Type a message first.');
  return t;
};
const inputsOf = (v: unknown): Record<string, string> | undefined => {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v) || Object.values(v).some((x) => typeof x !== 'string')) throw new InvalidArgumentError('inputs must map names to text.');
  return v as Record<string, string>;
};

export interface RequestsOptions {
  sessions: ChatSessions;
  /** Makes the runner of a session that has none yet. */
  runner: (w: WorkspaceChats, s: LiveSession) => SessionRunner;
  /** Every chat event goes out through it: tokens joined, order kept. */
  deltas: DeltaBatcher;
  /** The tools as they are now in a workspace: a command's shell lines run as its `bash` call. */
  tools: (w: WorkspaceChats) => ToolRegistry;
}

/** A subagent's request: its parent's correlation and stop, and its events sent up its parent's stream. */
export interface ChildRun {
  /** The parent request's: a child's changes are that request's. */
  correlationId: string;
  /** Aborted when the parent's request is stopped, or the child alone. */
  signal: AbortSignal;
  /** Where its events go instead of a stream of their own. */
  stream: (event: ChatEvent) => void;
}

export interface Started {
  session_id: string;
  correlation_id: string;
  /** Settles with the request's status once it has ended and its session is saved. */
  finished: Promise<RunStatus>;
}

export class Requests {
  constructor(private readonly opts: RequestsOptions) {}

  private get sessions(): ChatSessions {
    return this.opts.sessions;
  }

  private runnerOf(w: WorkspaceChats, s: LiveSession): SessionRunner {
    return (s.runner ??= this.opts.runner(w, s));
  }

  async send(p: Params<'chat.send'>): Promise<Started> {
    const inputs = inputsOf(p?.inputs);
    const spec: RequestSpec = { text: textOf(p?.text), mode: modeOf(p?.mode), ...(typeof p?.plan === 'string' ? { plan: p.plan } : {}), attachments: p?.attachments, ...(inputs ? { inputs } : {}) };
    const w = this.sessions.wsFor(p?.session_id);
    if (p.session_id) return this.start(w, await this.sessions.session(w, p.session_id), spec);
    // A new session is made only for a request its runner can take (no model: said first).
    const s = this.sessions.create(w, typeof p?.agent === 'string' ? p.agent : undefined);
    try {
      return await this.start(w, s, spec);
    } catch (err) {
      if (!s.record.requests.length && !s.running) await this.sessions.delete(s.record.id).catch(() => undefined);
      throw err;
    }
  }

  /** While the agent works the message waits in the session's queue; otherwise it is sent now. */
  async enqueue(p: Params<'chat.enqueue'>): Promise<{ id: string; correlation_id?: string }> {
    const text = textOf(p?.text);
    const mode = modeOf(p?.mode);
    const w = this.sessions.wsFor(p.session_id);
    const s = await this.sessions.session(w, p.session_id);
    if (!s.running) return { id: '', correlation_id: (await this.start(w, s, { text, mode })).correlation_id };
    return { id: s.queue.add(text, mode).id };
  }

  async queueEdit(p: Params<'chat.queueEdit'>): Promise<void> {
    (await this.sessions.session(this.sessions.wsFor(p.session_id), p.session_id)).queue.edit(p.id, textOf(p.text));
  }

  async queueRemove(p: Params<'chat.queueRemove'>): Promise<void> {
    (await this.sessions.session(this.sessions.wsFor(p.session_id), p.session_id)).queue.remove(p.id);
  }

  /** "Send now": at the next tool boundary of the running request, or at once when none runs. */
  async sendNow(p: Params<'chat.sendNow'>): Promise<{ correlation_id?: string }> {
    const w = this.sessions.wsFor(p.session_id);
    const s = await this.sessions.session(w, p.session_id);
    if (s.running) {
      s.queue.steer(p.id);
      return {};
    }
    const item = s.queue.take(p.id)!;
    try {
      return { correlation_id: (await this.start(w, s, { text: item.text, mode: item.mode })).correlation_id };
    } catch (err) {
      s.queue.putBack(item);
      throw err;
    }
  }

  /** Edit and resend: the conversation forks before that request; the old branch is kept. */
  async edit(p: Params<'chat.edit'>): Promise<Started> {
    const spec: RequestSpec = { text: textOf(p?.text), mode: modeOf(p?.mode) };
    const w = this.sessions.wsFor(p.session_id);
    const s = await this.sessions.session(w, p.session_id);
    idle(s);
    // Said before the fork: a runner that cannot take the request leaves the conversation as it was.
    await this.runnerOf(w, s).ready({ images: false });
    forkAt(s.record, p.correlation_id, this.sessions.entries(w, s));
    return this.start(w, s, spec);
  }

  /** Runs a subagent's task as its session's request (its runner is set by the caller). */
  child(w: WorkspaceChats, s: LiveSession, text: string, run: ChildRun): Promise<Started> {
    return this.start(w, s, { text, mode: 'act' }, run);
  }

  async switchBranch(p: Params<'chat.switchBranch'>) {
    const w = this.sessions.wsFor(p.session_id);
    const s = await this.sessions.session(w, p.session_id);
    idle(s);
    switchTo(s.record, p.branch_id, this.sessions.entries(w, s));
    // The other version's messages may speak of files as they were on its branch.
    s.record.pending_notes = ["The person switched this conversation to another version of it (an edited message's other branch); what earlier messages say about files may not match the disk."];
    s.record.entries = checkedEntries(s.record.entries);
    await w.services.sessions.save(s.record);
    return this.sessions.view(s.record.id);
  }

  private async start(w: WorkspaceChats, s: LiveSession, spec: RequestSpec, child?: ChildRun): Promise<Started> {
    idle(s);
    // A subagent's session works for its parent only: the person talks to the parent.
    if (s.record.parent_session_id && !child) throw new InvalidArgumentError(`Session ${s.record.id} is a subagent's (of ${s.record.parent_session_id}); it takes no messages. Write in its parent's session.`);
    // A slash command or skill by its name: checked (and its missing inputs asked for) before anything is kept.
    // A subagent's prompt is the model's words, never the person's command.
    const slash = spec.plan || child ? null : await slashPlan(w.services, spec.text, spec.inputs);
    if (slash?.kind === 'builtin' && slash.name !== 'plan' && slash.name !== 'compact') return this.builtin(w, s, spec, slash);
    const runner = this.runnerOf(w, s);
    let prompt = spec.text;
    let correlationId = child?.correlationId ?? newCorrelationId();
    let mode = spec.mode;
    if (slash?.kind === 'builtin' && slash.name === 'plan') {
      if (!slash.args) throw new InvalidArgumentError('Say what to plan after /plan (in the app, /plan alone switches the composer to plan mode).');
      prompt = slash.args;
      mode = 'plan';
    }
    const compact = slash?.kind === 'builtin' && slash.name === 'compact';
    if (spec.plan) {
      // The plan's changes carry its correlation id, so they are found, tested and undone with it.
      const planned = s.record.requests.find((r) => r.correlation_id === spec.plan && r.mode === 'plan');
      const plan = planned ? await w.services.sessions.readPlan(s.record.id, spec.plan) : null;
      if (!plan) throw new InvalidArgumentError(`No saved plan for request ${spec.plan} in this session.`);
      prompt = `${spec.text}\n\n${plan}`;
      correlationId = spec.plan;
      mode = 'act';
    }
    const wanted = checkAttachments(spec.attachments);
    // Refused before anything is kept (no model, a denied file, an image for a text-only model): the request never starts.
    const readiness = await runner.ready({ images: wanted.some((a) => a.kind === 'image') });
    const attachOpts = { images: readiness.images, model: readiness.model ?? '', session: s.files };
    let attached = await resolveAttachments(w.services, prompt, wanted, attachOpts);
    // What the person changed since the model's last answer (an undo, a rollback, another version of
    // the conversation) goes before their words: the history alone would say otherwise.
    const last = s.record.requests.at(-1);
    const head = await (await w.services.modlog.git())?.head();
    const notes = [...(s.record.pending_notes ?? []), ...(last ? await personNotes(w.services.modlog, s.record.id, last.ended_at ?? last.started_at, last.started_at) : [])];
    if (head && last?.git_head && last.git_head !== head) notes.push(`The person switched the git branch from ${last.git_head} to ${head}: files may have changed with it.`);
    idle(s);
    delete s.record.pending_notes;
    if (!s.record.requests.length && s.record.title === 'New session') s.record.title = titleFrom(spec.text);

    const sessionId = s.record.id;
    const deltas = this.opts.deltas;
    // A subagent's events go up its parent's stream; a session's own, to its chat.
    const push = child ? child.stream : (event: ChatEvent) => deltas.push(sessionId, event);
    const startedAt = new Date().toISOString();
    // Where this prompt lands in the messages: an edit of it later forks there.
    let messageIndex: number | undefined = s.record.messages.length;
    let saved: Promise<void> = Promise.resolve();
    // What the chat shows is kept beside the messages, so reopening the session shows it again.
    const entries = this.sessions.entries(w, s);
    keepEntry(entries, { type: 'user_message', text: spec.text, correlation_id: correlationId, ...(mode === 'plan' ? { mode } : {}), ...(attached.views.length && slash?.kind !== 'expand' ? { attachments: attached.views } : {}) });
    const told = notes.length ? notesText(notes) : null;
    if (told) {
      const notice = { type: 'notice' as const, text: `Told the agent: ${notes.join(' ')}`, correlation_id: correlationId, t: Date.now() };
      keepEntry(entries, notice);
      deltas.push(sessionId, notice);
    }
    const state: RunnerState = { messages: s.record.messages, usage: s.record.usage as RunnerState['usage'], announcedPrompt: s.prompt?.text };
    const emit = (event: Parameters<Parameters<SessionRunner['run']>[2]>[0]) => {
      // A subagent's event, on its way up: kept with this conversation and passed on, never this request's own.
      if (event.agent_id) {
        keepEntry(entries, event);
        push(event);
        return;
      }
      if (event.type === 'system_prompt') s.prompt = { text: event.text, files: event.files, skipped: event.skipped };
      if (event.type === 'compacted') {
        shiftIndexes(s.record.requests, event.removed_messages);
        messageIndex = messageIndex === undefined || messageIndex < event.removed_messages ? undefined : messageIndex - event.removed_messages + 1;
      }
      if (event.type === 'request_finished' && event.status === 'aborted') {
        // Stopping a request never stops its background processes: say which still run.
        const left = w.services.processes.running(sessionId);
        if (left.length) {
          const notice = { type: 'notice' as const, text: `Stopped. Still running in the background: ${left.map((l) => `${l.process_id} (${l.command})`).join(', ')}. Stop them in the Processes pane or with process_kill.`, correlation_id: event.correlation_id, t: event.t };
          keepEntry(entries, notice);
          push(notice);
        }
      }
      keepEntry(entries, event);
      if (event.type === 'request_finished') {
        // Settled before anyone hears it is over, so an immediate next message is accepted;
        // the snapshot for the file is taken synchronously by save().
        s.record.messages = state.messages;
        s.record.usage = state.usage;
        s.record.requests.push({ correlation_id: correlationId, prompt: spec.text, started_at: startedAt, ended_at: new Date().toISOString(), ...(head ? { git_head: head } : {}), status: event.status, ...(mode === 'plan' ? { mode } : {}), ...(messageIndex !== undefined ? { message_index: messageIndex } : {}) });
        s.running = null;
        saved = w.services.sessions.save(s.record).catch(() => undefined);
      }
      push(event);
    };
    const abort = new AbortController();
    if (child) {
      if (child.signal.aborted) abort.abort();
      else child.signal.addEventListener('abort', () => abort.abort(), { once: true });
    }
    let finish!: (status: RunStatus) => void;
    const finished = new Promise<RunStatus>((resolve) => (finish = resolve));
    const run: RunningRequest = { correlationId, abort, done: Promise.resolve() };
    s.running = run;
    run.done = (async () => {
      let status: RunStatus = 'error';
      try {
        let grants: RequestGrants | undefined;
        let sendable = true;
        if (slash?.kind === 'expand') {
          // Its shell lines run and its files are read now, as this request's, before anything is sent.
          const expanded = await this.expand(w, s, slash, { text: spec.text, correlationId, signal: abort.signal, emit }, wanted, attachOpts);
          if (expanded) {
            prompt = expanded.text;
            grants = expanded.grants;
            attached = expanded.attached;
          } else {
            sendable = false;
            status = abort.signal.aborted ? 'aborted' : 'error';
          }
        }
        const content = told ? withNote(told, attached.content) : attached.content;
        if (sendable) status = (await runner.run({ prompt, content, correlationId, mode, signal: abort.signal, steering: { take: () => s.queue.takeSteering() }, ...(grants ? { grants } : {}), ...(compact ? { compact } : {}) }, state, emit)).status;
        await saved;
      } finally {
        if (s.running === run) s.running = null;
        finish(status);
      }
      // A stop leaves the queue to the person; otherwise the next message goes.
      if (status !== 'aborted' && !child) this.drain(w, s);
    })();
    return { session_id: sessionId, correlation_id: correlationId, finished };
  }

  /**
   * A command's expansion within its request: null when it could not be sent (a shell line refused
   * or failed, a file refused), after the request was ended with that error and the session saved.
   */
  private async expand(
    w: WorkspaceChats,
    s: LiveSession,
    plan: Extract<SlashPlan, { kind: 'expand' }>,
    r: { text: string; correlationId: string; signal: AbortSignal; emit: (e: AgentEvent) => void },
    wanted: ReturnType<typeof checkAttachments>,
    attachOpts: Parameters<typeof resolveAttachments>[3],
  ): Promise<{ text: string; grants: RequestGrants; attached: Awaited<ReturnType<typeof resolveAttachments>> } | null> {
    try {
      const expanded = await expandPlan(plan, { services: w.services, registry: this.opts.tools(w), files: s.files, sessionId: s.record.id, correlationId: r.correlationId, typed: r.text, signal: r.signal, emit: r.emit });
      // `@path` files join what the person attached, read by the same rules (a refused one refuses the request).
      return { text: expanded.text, grants: expanded.grants, attached: await resolveAttachments(w.services, expanded.text, [...wanted, ...expanded.attach], attachOpts) };
    } catch (err) {
      const e = toWireError(err);
      const aborted = r.signal.aborted;
      const t = now();
      r.emit({ type: 'error', code: aborted ? 'ABORTED' : e.code, message: aborted ? `Stopped before /${plan.name} was sent.` : e.message, correlation_id: r.correlationId, t });
      r.emit({ type: 'request_finished', status: aborted ? 'aborted' : 'error', text: '', turns: 0, correlation_id: r.correlationId, t });
      return null;
    }
  }

  /** Loupe's built-ins that need no model: they answer in the chat and are no request of the model's. */
  private async builtin(w: WorkspaceChats, s: LiveSession, spec: RequestSpec, plan: Extract<SlashPlan, { kind: 'builtin' }>): Promise<Started> {
    const reply = await builtinReply(w, s, plan, { create: () => this.sessions.create(w) });
    const target = reply.session ?? s;
    const correlationId = newCorrelationId();
    const entries = this.sessions.entries(w, target);
    const t = now();
    const events = [
      { type: 'notice' as const, text: reply.text, correlation_id: correlationId, t },
      { type: 'request_finished' as const, status: 'done' as const, text: '', turns: 0, correlation_id: correlationId, t },
    ];
    if (target === s) keepEntry(entries, { type: 'user_message', text: spec.text });
    for (const e of events) {
      keepEntry(entries, e);
      this.opts.deltas.push(target.record.id, e);
    }
    await w.services.sessions.save(target.record).catch(() => undefined);
    return { session_id: target.record.id, correlation_id: correlationId, finished: Promise.resolve('done') };
  }

  /** The next queued message becomes the next request; if it cannot start, it stays queued and the chat says why. */
  private drain(w: WorkspaceChats, s: LiveSession): void {
    if (s.running || !this.sessions.current(w)) return;
    const next = s.queue.take();
    if (!next) return;
    this.start(w, s, { text: next.text, mode: next.mode }).catch((err: unknown) => {
      s.queue.putBack(next);
      const e = toWireError(err);
      this.opts.deltas.push(s.record.id, { type: 'error', code: e.code, message: `The queued message was not sent: ${e.message}`, correlation_id: '', t: Date.now() });
    });
  }

  async stop(sessionId: string): Promise<void> {
    const s = this.sessions.wsFor(sessionId).live.get(sessionId);
    if (!s?.running) return;
    s.running.abort.abort();
    await s.running.done;
  }
}

/** The message with the note before the person's words (a text part first when it carries images). */
function withNote(note: string, content: string | UserContentPart[]): string | UserContentPart[] {
  if (typeof content === 'string') return `${note}\n\n${content}`;
  return [{ type: 'text', text: note }, ...content];
}

function idle(s: LiveSession): void {
  if (s.running) throw new InvalidArgumentError('The agent is still working on the last request in this session. Stop it or wait for it to finish.');
}
