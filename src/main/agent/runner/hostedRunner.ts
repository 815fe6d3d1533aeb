// Another agent as a session's runner (docs/architecture.md, "Hosted agents"): OpenCode, Gemini
// CLI, Claude Code or Codex, run over the Agent Client Protocol in Loupe's sandbox. Loupe is its
// client. Its stream becomes the chat's events; its questions become cards in the one approval
// queue, answered first by Loupe's own rules; and every change it makes becomes a modification of
// the request: writes it sends through `fs/write_text_file` are written through the modification
// log, and everything else it writes itself (most agents do) is found by the command snapshots
// around each of its tool calls and around the whole turn, attributed to `acp:<name>`. Stop sends
// `session/cancel` and, after a short grace, ends the agent's whole process group.
import { RequestError, type ContentBlock, type PromptResponse, type ReadTextFileRequest, type ReadTextFileResponse, type RequestPermissionRequest, type RequestPermissionResponse, type SessionNotification, type SessionConfigOption, type WriteTextFileRequest } from '@agentclientprotocol/sdk';
import type { ChatEventBody, UsageView } from '../../../shared/contract';
import type { WorkspaceServices } from '../../services/workspaceServices';
import type { Logger } from '../../services/log/logger';
import type { AgentDecl } from '../../services/config/agentsConfig';
import { readyAgent } from '../../services/config/agentsConfig';
import type { AgentProcess } from '../../services/hostedAgents/agentProcess';
import type { CaptureHandle, CaptureRequest, CaptureResult } from '../../services/snapshots/commandCapture';
import { resolveInWorkspace } from '../../services/workspace/pathGuard';
import { detectBlocked } from '../../services/sandbox/blocked';
import { linesTouched } from '../../services/modlog/unifiedDiff';
import { PermissionDeniedError } from '../../services/permissions/errors';
import { ConcurrentChangeError } from '../../services/modlog/errors';
import { sha256 } from '../../services/files/hash';
import { languageOf } from '../../services/workspace/language';
import { toWireError } from '../../errors';
import { now, type AgentEvent, type RunStatus } from '../loop/events';
import { emptySessionUsage, sessionUsageFrom } from '../loop/usage';
import type { RunnerReadiness, RunnerRequest, RunnerResult, RunnerState, SessionRunner } from './types';
import { askingMode, diffOf, effectOf, mergeCall, newCall, optionFor, outputOf, queryOf, relTo, statusOf, summaryOf, type CallState } from './acpCalls';
import { readInside } from '../../services/files/safeOpen';

export interface HostedRunnerOptions {
  services: WorkspaceServices;
  /** The agent's name (its entry in `agents`). */
  agent: string;
  /** The Loupe session this runner works for. */
  sessionId: string;
  /** The agent's own session id, kept in Loupe's session record so a later run resumes it. */
  agentSession: { get(): string | undefined; set(id: string): void };
  logger: Logger;
  /** Between `session/cancel` and ending the process group on Stop (default 1.5 s). */
  graceMs?: number;
}

/** One request under way: what the handlers need to attribute what the agent does. */
interface Turn {
  correlationId: string;
  mode: RunnerRequest['mode'];
  emit: (e: ChatEventBody) => void;
  calls: Map<string, CallState>;
  /** When each call started (for its duration). */
  startedAt: Map<string, number>;
  finished: Set<string>;
  captures: Map<string, { req: CaptureRequest; handle: Promise<CaptureHandle> }>;
  /** Hosts the sandbox refused before the turn, and those a tool call of it named. */
  refusedBefore: Set<string>;
  attributed: Set<string>;
  /** Modification ids its `fs/write_text_file` calls made, per tool call. */
  writes: Map<string, string[]>;
  text: string;
  usage?: UsageView;
  /** Updates are handled one after another, in order (a call's end waits for its snapshot). */
  chain: Promise<void>;
  signal: AbortSignal;
}

const WRITE_KINDS = new Set(['edit', 'delete', 'move']);

export class HostedRunner implements SessionRunner {
  readonly agent: string;
  private proc: AgentProcess | null = null;
  private acpSession: string | null = null;
  private modes: { ids: string[]; viaConfig: string | null } = { ids: [], viaConfig: null };
  private turn: Turn | null = null;
  private decl: AgentDecl | null = null;
  private disposed = false;
  /**
   * Client writes and snapshot ends, one at a time: the agent may report a call completed before
   * Loupe has answered its `fs/write_text_file`, and a snapshot that ends while that write is on
   * disk but not yet in the log would record it a second time.
   */
  private io: Promise<unknown> = Promise.resolve();

  constructor(private readonly opts: HostedRunnerOptions) {
    this.agent = opts.agent;
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const job = this.io.then(fn);
    this.io = job.catch(() => undefined);
    return job;
  }

  private get services(): WorkspaceServices {
    return this.opts.services;
  }

  private get tool(): string {
    return `acp:${this.agent}`;
  }

  private get label(): string {
    return this.decl?.entry.label ?? readyAgent(this.agent)?.label ?? this.agent;
  }

  async ready(): Promise<RunnerReadiness> {
    this.decl = await this.services.hostedAgents.check(this.agent);
    return { images: Boolean(this.proc?.init?.agentCapabilities?.promptCapabilities?.image), model: this.label };
  }

  /** The agent's program, started (and its session opened) if it is not running. */
  private async connect(signal: AbortSignal): Promise<AgentProcess> {
    if (this.proc?.alive && this.acpSession) return this.proc;
    const decl = (this.decl ??= await this.services.hostedAgents.check(this.agent, signal));
    const proc = await this.services.hostedAgents.start(decl, this.services.root, this.handlers(), signal);
    try {
      const kept = this.opts.agentSession.get();
      let opened: { sessionId: string; modes?: { availableModes: { id: string }[] } | null; configOptions?: SessionConfigOption[] | null } | null = null;
      if (kept && proc.init?.agentCapabilities?.loadSession) {
        // Its history is replayed as updates while no turn runs: they are not this request's.
        opened = await proc.loadSession(kept, this.services.root, [], signal).then(
          (r) => ({ sessionId: kept, ...r }),
          () => null,
        );
      }
      opened ??= await proc.newSession(this.services.root, [], signal);
      this.acpSession = opened.sessionId;
      this.opts.agentSession.set(opened.sessionId);
      const modeOption = opened.configOptions?.find((o) => o.category === 'mode' && o.type === 'select');
      this.modes = opened.modes?.availableModes.length
        ? { ids: opened.modes.availableModes.map((m) => m.id), viaConfig: null }
        : modeOption && modeOption.type === 'select'
          ? { ids: modeOption.options.flatMap((o) => ('value' in o ? [o.value] : o.options.map((g) => g.value))), viaConfig: modeOption.id }
          : { ids: [], viaConfig: null };
    } catch (err) {
      await proc.stop(0);
      throw err;
    }
    this.proc = proc;
    return proc;
  }

  /** Puts the agent in the mode for this request: its plan mode for a plan, else the one that asks before acting. */
  private async setMode(proc: AgentProcess, mode: RunnerRequest['mode']): Promise<void> {
    const id = mode === 'plan' && this.modes.ids.includes('plan') ? 'plan' : askingMode(this.modes.ids, this.decl?.entry.mode);
    if (!id || !this.acpSession) return;
    try {
      if (this.modes.viaConfig) await proc.setConfigOption(this.acpSession, this.modes.viaConfig, id);
      else await proc.setMode(this.acpSession, id);
    } catch (err) {
      this.opts.logger.warn('agents.set_mode_failed', { agent: this.agent, mode: id, error: err });
    }
  }

  async run(request: RunnerRequest, state: RunnerState, emitRaw: (event: AgentEvent) => void): Promise<RunnerResult> {
    const correlationId = request.correlationId;
    const emit = (e: ChatEventBody) => emitRaw({ ...e, correlation_id: correlationId, t: now() } as AgentEvent);
    emit({ type: 'request_started', session_id: this.opts.sessionId, prompt: request.prompt, ...(request.mode === 'plan' ? { mode: request.mode } : {}) });
    const turn: Turn = { correlationId, mode: request.mode, emit, calls: new Map(), startedAt: new Map(), finished: new Set(), captures: new Map(), refusedBefore: new Set(), attributed: new Set(), writes: new Map(), text: '', chain: Promise.resolve(), signal: request.signal };
    let status: RunStatus;
    let error: { code: string; message: string } | undefined;
    // Whatever the agent writes during the turn that no tool call's snapshot caught.
    const whole = this.services.captures.begin({ tool: this.tool, command: this.label, sessionId: this.opts.sessionId, correlationId, reason: `${this.label}'s turn`, signal: request.signal });
    let stopTimer: NodeJS.Timeout | undefined;
    try {
      const proc = await this.connect(request.signal);
      for (const r of proc.network().refused) turn.refusedBefore.add(r.host);
      await this.setMode(proc, request.mode);
      this.turn = turn;
      emit({ type: 'turn_started', turn: 1 });
      const onAbort = () => {
        if (this.acpSession) proc.cancel(this.acpSession);
        // A turn that does not end after the cancel ends with the process group.
        stopTimer = setTimeout(() => void this.endProcess(), this.opts.graceMs ?? 1500);
      };
      if (request.signal.aborted) onAbort();
      else request.signal.addEventListener('abort', onAbort, { once: true });
      let res: PromptResponse | null = null;
      try {
        res = await proc.prompt(this.acpSession!, promptBlocks(request, Boolean(proc.init?.agentCapabilities?.promptCapabilities?.image)));
      } finally {
        request.signal.removeEventListener('abort', onAbort);
      }
      await turn.chain;
      status = statusOf(res.stopReason, request.signal.aborted);
      const u = (res as PromptResponse & { usage?: { inputTokens?: number; outputTokens?: number; totalTokens?: number } }).usage;
      if (u && !turn.usage) this.usageFrom(turn, state, u.inputTokens ?? 0, u.outputTokens ?? 0, null, null);
      if (res.stopReason === 'refusal') error = { code: 'AGENT_UNAVAILABLE', message: `${this.label} refused to go on.` };
    } catch (err) {
      await turn.chain.catch(() => undefined);
      if (request.signal.aborted) status = 'aborted';
      else {
        const e = toWireError(err);
        error = { code: e.code, message: e.message };
        status = 'error';
      }
    } finally {
      this.turn = null;
    }
    // Calls the agent left open: their snapshots end now.
    for (const [id, c] of turn.calls) if (!turn.finished.has(id)) await this.finishCall(turn, { ...c, status: status === 'aborted' ? 'failed' : c.status === 'pending' || c.status === 'in_progress' ? 'completed' : c.status });
    if (status === 'aborted') {
      await this.endProcess();
      clearTimeout(stopTimer);
    }
    const rest = await this.exclusive(async () => (await whole).end());
    const own = (this.proc?.network().refused ?? []).filter((r) => !turn.refusedBefore.has(r.host) && !turn.attributed.has(r.host));
    if (own.length) emit({ type: 'notice', text: `The sandbox refused ${this.label}'s own connections to ${own.map((r) => r.host).join(', ')}: not in agents.${this.agent}.network.hosts.` });
    if (rest.files.length) emit({ type: 'notice', text: `${this.label} also changed ${rest.files.map((f) => f.file).join(', ')} outside its tool calls (recorded as ${rest.group_id}).` });
    if (error) emit({ type: 'error', code: error.code as never, message: error.message });
    if (status === 'aborted') emit({ type: 'error', code: 'ABORTED', message: `Stopped. ${this.label} was cancelled and its processes ended.` });
    if (turn.usage) state.usage = { session: turn.usage.session, last: turn.usage };
    emit({ type: 'request_finished', status, text: turn.text, turns: 1, ...(turn.usage ? { usage: turn.usage } : {}) });
    return { status, text: turn.text, turns: 1, ...(error ? { error } : {}) };
  }

  /** Ends the agent's process group; the next request starts it again (and resumes its session where it can). */
  private async endProcess(): Promise<void> {
    const p = this.proc;
    this.proc = null;
    this.acpSession = null;
    await p?.stop(300);
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    await this.endProcess();
  }

  // ---- what the agent asks of Loupe ----------------------------------------------------------

  private handlers() {
    return {
      update: (n: SessionNotification) => {
        const turn = this.turn;
        if (!turn || n.sessionId !== this.acpSession) return;
        // A call's "before" is taken as its first update arrives, not when the chain reaches it: the
        // agent does not wait for Loupe, and a call handled late would already have run.
        const u = n.update;
        if ((u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update') && !turn.captures.has(u.toolCallId)) this.before(turn, u.toolCallId, u.title ?? 'tool');
        turn.chain = turn.chain.then(() => this.onUpdate(turn, n)).catch((err: unknown) => this.opts.logger.warn('agents.update_failed', { agent: this.agent, error: err }));
      },
      permission: (p: RequestPermissionRequest, signal: AbortSignal) => this.onPermission(p, signal),
      readTextFile: (p: ReadTextFileRequest) => this.onRead(p),
      writeTextFile: (p: WriteTextFileRequest) => this.onWrite(p),
    };
  }

  private async onUpdate(turn: Turn, n: SessionNotification): Promise<void> {
    const u = n.update;
    switch (u.sessionUpdate) {
      case 'agent_message_chunk':
        if (u.content.type === 'text' && u.content.text) {
          turn.text += u.content.text;
          turn.emit({ type: 'text_delta', text: u.content.text });
        }
        return;
      case 'agent_thought_chunk':
        if (u.content.type === 'text' && u.content.text) turn.emit({ type: 'reasoning_delta', text: u.content.text });
        return;
      case 'tool_call': {
        const c = newCall(u);
        turn.calls.set(c.id, c);
        this.startCall(turn, c);
        if (c.status === 'completed' || c.status === 'failed') await this.finishCall(turn, c);
        return;
      }
      case 'tool_call_update': {
        const had = turn.calls.get(u.toolCallId);
        const c = had ? mergeCall(had, u) : mergeCall(newCall({ toolCallId: u.toolCallId, title: u.title ?? 'tool', kind: u.kind ?? 'other' }), u);
        turn.calls.set(c.id, c);
        if (!had) this.startCall(turn, c);
        else if (!turn.finished.has(c.id) && (c.title !== had.title || summaryOf(c, this.services.root) !== summaryOf(had, this.services.root))) {
          // Its card follows what the call now says it is (a title that said "bash" says the command once it runs).
          turn.emit({ type: 'tool_call_started', call_id: c.id, tool: this.tool, title: cardTitle(c, this.services.root), effect: effectOf(c.kind), summary: summaryOf(c, this.services.root), args: c.rawInput ?? {} });
        }
        if ((c.status === 'completed' || c.status === 'failed') && !turn.finished.has(c.id)) await this.finishCall(turn, c);
        return;
      }
      case 'plan':
        if (u.entries.length) turn.emit({ type: 'notice', text: `${this.label}'s plan: ${u.entries.map((e) => `${e.status === 'completed' ? '☑' : e.status === 'in_progress' ? '▸' : '☐'} ${e.content}`).join(' · ')}` });
        return;
      case 'usage_update': {
        this.usageFrom(turn, null, null, null, u.used, u.size, u.cost?.currency === 'USD' ? u.cost.amount : undefined);
        return;
      }
      default:
        return;
    }
  }

  /** What the call writes itself (most agents do) is found between two snapshots of the work tree; this takes the first. */
  private before(turn: Turn, id: string, title: string): void {
    turn.startedAt.set(id, performance.now());
    const req: CaptureRequest = { tool: this.tool, command: title, sessionId: this.opts.sessionId, correlationId: turn.correlationId, reason: title, signal: turn.signal };
    turn.captures.set(id, { req, handle: this.services.captures.begin(req) });
  }

  private startCall(turn: Turn, c: CallState): void {
    if (!turn.captures.has(c.id)) this.before(turn, c.id, c.title);
    turn.emit({ type: 'tool_call_started', call_id: c.id, tool: this.tool, title: cardTitle(c, this.services.root), effect: effectOf(c.kind), summary: summaryOf(c, this.services.root), args: c.rawInput ?? {} });
  }

  private async finishCall(turn: Turn, c: CallState): Promise<void> {
    turn.finished.add(c.id);
    const root = this.services.root;
    const held = turn.captures.get(c.id);
    // What it wrote is named as the call reads now (a title that said only "bash" at first says the command by its end).
    if (held) Object.assign(held.req, { command: c.kind === 'execute' ? summaryOf(c, root) : `${this.agent} ${c.kind} ${summaryOf(c, root)}`, reason: c.title });
    const capture: CaptureResult | null = held ? await this.exclusive(() => held.handle.then((h) => h.end())).catch(() => null) : null;
    const output = outputOf(c);
    // A refusal is the call's when the call names that host: the agent also reaches out on its own
    // (update checks, telemetry), at any time, and its updates may arrive after the call ran.
    const named = `${c.title}\n${JSON.stringify(c.rawInput ?? {})}`;
    const refused = (this.proc?.network().refused ?? []).filter((r) => named.includes(r.host));
    for (const r of refused) turn.attributed.add(r.host);
    const sandboxed = this.proc?.spec.launch !== null && this.proc?.spec.launch !== undefined;
    const blocked = refused.length ? refused.map((r) => `network access to ${r.host}`).join('; ') : sandboxed ? detectBlocked(output, { network: Boolean(this.decl?.entry.network?.hosts.length) }) : null;
    const written = turn.writes.get(c.id) ?? [];
    const modIds = [...written, ...(capture?.files.map((f) => f.modification_id) ?? [])];
    const diff = diffOf(c, root);
    const ok = c.status === 'completed' && !blocked;
    const data: Record<string, unknown> = {
      agent: this.agent,
      kind: c.kind,
      title: c.title,
      ...(c.locations.length ? { locations: c.locations.map((l) => relTo(root, l)) } : {}),
      ...(diff ? { git_diff: diff } : {}),
      ...(modIds.length ? { modification_id: capture?.group_id && !written.length ? capture.group_id : modIds[0], modification_ids: modIds } : {}),
      ...(capture?.group_id ? { changes: { group_id: capture.group_id, files: capture.files } } : {}),
      ...(sandboxed ? { sandboxed: true } : {}),
      ...(refused.length ? { network: { reached: [], refused } } : {}),
      ...(blocked ? { blocked } : {}),
    };
    const error = blocked ? { code: 'SANDBOX_BLOCKED' as const, message: `Blocked by the sandbox: ${blocked}.` } : c.status === 'failed' ? { code: 'AGENT_UNAVAILABLE' as const, message: output.split('\n')[0]?.slice(0, 300) || `${this.label}'s ${c.title} failed.` } : undefined;
    turn.emit({ type: 'tool_call_finished', call_id: c.id, tool: this.tool, ok, output, data, ...(error ? { error } : {}), duration_ms: performance.now() - (turn.startedAt.get(c.id) ?? performance.now()) });
  }

  /** The usage meter from what the agent reported: tokens of the turn, or the context used and its size. */
  private usageFrom(turn: Turn, state: RunnerState | null, prompt: number | null, completion: number | null, used: number | null, size: number | null, cost?: number): void {
    const prev = turn.usage;
    const session = prev?.session ?? sessionUsageFrom(state?.usage?.session ?? this.lastSession ?? emptySessionUsage());
    const p = prompt ?? prev?.prompt_tokens ?? 0;
    const c = completion ?? prev?.completion_tokens ?? 0;
    const counted = prompt !== null || completion !== null;
    const next: UsageView = {
      prompt_tokens: p,
      completion_tokens: c,
      total_tokens: p + c,
      estimated: false,
      conversation_tokens: used ?? prev?.conversation_tokens ?? p + c,
      context_window: size ?? prev?.context_window ?? 0,
      context_window_source: 'server',
      ...(cost !== undefined ? { cost_usd: cost } : {}),
      session: counted ? { ...session, prompt_tokens: session.prompt_tokens + p, completion_tokens: session.completion_tokens + c, total_tokens: session.total_tokens + p + c, calls: session.calls + 1 } : session,
    };
    turn.usage = next;
    this.lastSession = next.session;
    turn.emit({ type: 'usage', usage: next });
  }

  private lastSession: UsageView['session'] | undefined;

  /** The call a write belongs to: the latest open call that edits, else the latest open one. */
  private openCall(turn: Turn): CallState | undefined {
    const open = [...turn.calls.values()].filter((c) => !turn.finished.has(c.id));
    return open.reverse().find((c) => WRITE_KINDS.has(c.kind)) ?? open[0];
  }

  /**
   * `session/request_permission`: Loupe's rules answer first (a deny rule denies; an allow rule of
   * the person's allows), otherwise a card in the approval queue names the agent and what it asks,
   * with the options it offers. Loupe answers the agent once: "always" becomes Loupe's own rule, so
   * the agent keeps asking and Loupe's rules keep answering.
   */
  private async onPermission(p: RequestPermissionRequest, signal: AbortSignal): Promise<RequestPermissionResponse> {
    const turn = this.turn;
    const reject = (): RequestPermissionResponse => {
      const o = optionFor(p.options, 'reject');
      return o ? { outcome: { outcome: 'selected', optionId: o.optionId } } : { outcome: { outcome: 'cancelled' } };
    };
    const allow = optionFor(p.options, 'allow');
    if (!turn || !allow) return reject();
    const root = this.services.root;
    const known = turn.calls.get(p.toolCall.toolCallId);
    const c = known ? mergeCall(known, p.toolCall) : mergeCall(newCall({ toolCallId: p.toolCall.toolCallId, title: p.toolCall.title ?? 'tool', kind: p.toolCall.kind ?? 'other' }), p.toolCall);
    const query = queryOf(c, root) ?? { kind: 'bash' as const, command: c.title };
    const diff = diffOf(c, root);
    const firstDiff = c.content.find((b) => b.type === 'diff');
    const edit = firstDiff && firstDiff.type === 'diff' ? { path: relTo(root, firstDiff.path), before: firstDiff.oldText ?? null, after: firstDiff.newText, language: languageOf(firstDiff.path) } : undefined;
    const ac = new AbortController();
    const stop = () => ac.abort();
    signal.addEventListener('abort', stop, { once: true });
    turn.signal.addEventListener('abort', stop, { once: true });
    try {
      await this.services.permissions.forCall({ call_id: c.id, correlation_id: turn.correlationId, session_id: this.opts.sessionId }).inMode(turn.mode).agentQuestion(this.label, {
        query,
        tool: this.tool,
        summary: `${this.label}: ${askedFor(c, root)}`,
        ...(diff ? { diff } : {}),
        ...(edit ? { edit } : {}),
        details: `${this.label} asks before it acts. It offers: ${p.options.map((o) => o.name).join(' · ')}. Allow answers "${allow.name}"; Deny answers "${optionFor(p.options, 'reject')?.name ?? 'cancel'}".`,
        signal: ac.signal,
      });
      return { outcome: { outcome: 'selected', optionId: allow.optionId } };
    } catch (err) {
      if (!(err instanceof PermissionDeniedError)) this.opts.logger.warn('agents.permission_failed', { agent: this.agent, error: err });
      return reject();
    } finally {
      signal.removeEventListener('abort', stop);
      turn.signal.removeEventListener('abort', stop);
    }
  }

  /** A path the agent names, inside the workspace (links resolved), or a refusal it can read. */
  private async inside(p: string): Promise<{ abs: string; rel: string }> {
    try {
      return await resolveInWorkspace(this.services.root, p);
    } catch (err) {
      throw RequestError.invalidParams({ path: p }, `${p} is outside the workspace ${this.services.root}: ${(err as Error).message}`);
    }
  }

  /** `fs/read_text_file` (not offered, since reads happen in its sandbox; answered all the same under Loupe's read rules). */
  private async onRead(p: ReadTextFileRequest): Promise<ReadTextFileResponse> {
    const { abs, rel } = await this.inside(p.path);
    const d = await this.services.engine.decide({ kind: 'read', path: rel });
    if (d.action !== 'allow') throw RequestError.invalidParams({ path: p.path }, `Loupe's read rules do not let ${this.label} read ${rel}: ${d.reason}`);
    // Through real folders only, like every read of the workspace: a link swapped in after the
    // check above is refused, never followed out.
    let text: string;
    try {
      const read = await readInside(this.services.root, abs, { rel });
      if (!read) throw RequestError.resourceNotFound(p.path);
      text = read.buf.toString('utf8');
    } catch (err) {
      if (err instanceof RequestError) throw err;
      throw RequestError.invalidParams({ path: p.path }, `${rel} cannot be read: ${(err as Error).message}`);
    }
    if (p.line == null && p.limit == null) return { content: text };
    const lines = text.split('\n');
    const from = Math.max(0, (p.line ?? 1) - 1);
    return { content: lines.slice(from, p.limit == null ? undefined : from + p.limit).join('\n') };
  }

  /**
   * `fs/write_text_file`: written through the modification log (atomically, staged, in the
   * timeline), attributed to the agent and the tool call it belongs to, under the request.
   */
  private async onWrite(p: WriteTextFileRequest): Promise<void> {
    const turn = this.turn;
    const { abs, rel } = await this.inside(p.path);
    if (rel === '') throw RequestError.invalidParams({ path: p.path }, 'That is the workspace folder itself, not a file.');
    const d = await this.services.engine.decide({ kind: 'edit', path: rel });
    if (d.action === 'deny') throw RequestError.invalidParams({ path: p.path }, `Loupe's rules deny ${this.label} writing ${rel}: ${d.reason}`);
    if (turn?.mode === 'plan') throw RequestError.invalidParams({ path: p.path }, `This request is in plan mode: nothing is written. Put the change in the plan.`);
    const call = turn ? this.openCall(turn) : undefined;
    const content = Buffer.from(p.content, 'utf8');
    // Some agents (OpenCode) write the file themselves and send the same content through the client
    // too: what is already on disk is left to the call's snapshot, which sees the change itself, so
    // the log never holds a line that changed nothing. Read and written under the one lock with
    // the snapshots, and refused by the log if the agent's own write lands in between.
    const record = async (): Promise<string | null> => {
      const before = (await readInside(this.services.root, abs, { rel }))?.buf ?? null;
      if (before && before.equals(content)) return null;
      const res = await this.services.modlog.apply({
        file: rel,
        abs,
        content,
        expectBeforeSha: before ? sha256(before) : null,
        tool: this.tool,
        operation: before ? 'overwrite' : 'create',
        sessionId: this.opts.sessionId,
        ...(turn ? { correlationId: turn.correlationId } : {}),
        reason: call ? call.title : `${this.label} wrote ${rel}`,
        linesChanged: linesTouched(before?.toString('utf8') ?? '', p.content),
      });
      return res.modificationId;
    };
    try {
      const id = await this.exclusive(() => record().catch((err: unknown) => (err instanceof ConcurrentChangeError ? record() : Promise.reject(err))));
      if (id && turn && call) turn.writes.set(call.id, [...(turn.writes.get(call.id) ?? []), id]);
    } catch (err) {
      throw RequestError.internalError({ path: p.path }, `Loupe could not write ${rel}: ${(err as Error).message}`);
    }
  }
}

/** The card's name for a call: its title, or its kind when the title only repeats the path or command the card shows beside it. */
function cardTitle(c: CallState, root: string): string {
  const summary = summaryOf(c, root);
  return c.title === summary || relTo(root, c.title) === summary || relTo(root, `/${c.title}`) === summary ? c.kind : c.title;
}

/** What the agent asks to do, in a line: its title, with the path or command when the title does not say it (a bare absolute path becomes the workspace's name for it). */
function askedFor(c: CallState, root: string): string {
  const summary = summaryOf(c, root);
  const title = c.title.startsWith('/') ? relTo(root, c.title) : c.title;
  return title === summary || title.includes(summary) ? title : `${title} (${summary})`;
}

/** The request as ACP content: the words (with what was attached), and images where the agent takes them. */
function promptBlocks(request: RunnerRequest, images: boolean): ContentBlock[] {
  const content = request.content ?? request.prompt;
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  const out: ContentBlock[] = [];
  for (const part of content) {
    if (part.type === 'text') out.push({ type: 'text', text: part.text });
    else if (images) {
      const m = /^data:([^;]+);base64,(.*)$/s.exec(part.image_url.url);
      if (m) out.push({ type: 'image', mimeType: m[1]!, data: m[2]! });
    }
  }
  return out.length ? out : [{ type: 'text', text: request.prompt }];
}
