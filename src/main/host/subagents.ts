// Subagents (docs/architecture.md, "Subagents"): a request's children. Each is a session of its
// own — its record in the session store with `parent_session_id`, its own transcript — whose
// runner is Loupe's loop on its definition's tools within its parent's, behind its parent's gate
// narrowed the same way. What holds it:
//   - limits: depth, how many one session runs at once, turns, tokens per child and per session
//     (agent/subagents/limits.ts), checked before it starts and after each of its model calls;
//   - its parent's request: the same correlation id (its writes are the request's modifications,
//     attributed to it by `agent_id`), the same Stop (a shared abort), and no child outlives the
//     request (settled before the request says it finished);
//   - its parent's stream: its card (`subagent_started` / `subagent_finished`) and every event it
//     emits, tagged with `agent_id` and `parent_session_id`; its usage counted in the parent's.
import path from 'node:path';
import { LoupeError } from '../errors';
import { SESSIONS_REL } from '../services/sessions/sessionStore';
import type { ChatEvent, SessionUsage } from '../../shared/contract';
import type { LlmConfig } from '../agent/llm/config';
import type { RunStatus } from '../agent/loop/events';
import { emptySessionUsage, sessionUsageFrom } from '../agent/loop/usage';
import { now } from '../agent/loop/events';
import { LoupeRunner } from '../agent/runner/loupeRunner';
import { catalogOf } from '../agent/subagents/catalog';
import { subagentLimits, type SubagentLimits } from '../agent/subagents/limits';
import { childScope, type ChildScope } from '../agent/subagents/scope';
import type { AgentDefinition } from '../services/agents/definitions';
import type { ChildOutcome, ChildrenFactory, ChildrenOfRequest, DelegatedWork, SpawnRequest, StopCause, Subagents } from '../agent/subagents/types';
import { describeOutcome } from '../agent/tools/agentArgs';
import { FileSession } from '../services/files/readTracker';
import type { Logger } from '../services/log/logger';
import type { WorkspaceServices } from '../services/workspaceServices';
import type { ChatSessions, LiveSession, WorkspaceChats } from './chatSessions';
import type { Requests } from './requests';

/** An isolated child's folder: a worktree of the open folder with its own services, attached to the host's sessions. */
export interface Isolation {
  services: WorkspaceServices;
  name: string;
  /** The child's session was made there: the worktree's row shows it. */
  adopt(sessionId: string): void;
}

export interface SubagentHostOptions {
  sessions: ChatSessions;
  requests: Requests;
  /** The model: the settings', or the model a definition names when the person's model table has it. */
  model: (name?: string) => Promise<LlmConfig | null>;
  noModel: () => Promise<never>;
  savePlan: (services: WorkspaceServices, sessionId: string, correlationId: string, text: string) => Promise<string>;
  logger: Logger;
  /** Makes a worktree for an isolated child (the app's worktree sessions); absent: isolation is refused here. */
  isolate?: (name: string) => Promise<Isolation>;
}

/** A child while it runs and after: what its card, its parent and the limits need. */
interface Child {
  id: string;
  type: string;
  description: string;
  /** The session that started it, and the session whose request it serves (they differ for a grandchild). */
  parentSessionId: string;
  topSessionId: string;
  /** The child that started it, when it is a grandchild. */
  parentAgentId?: string;
  w: WorkspaceChats;
  live: LiveSession;
  background: boolean;
  worktree?: string;
  correlationId: string;
  maxTurns: number;
  running: boolean;
  /** Collected by the parent (its result handed over). */
  collected: boolean;
  tokens: number;
  cost?: number;
  /** What it spent as last reported (its session's totals, its own children's included). */
  spent: SessionUsage;
  turns: number;
  text: string;
  stopCause?: StopCause;
  reason?: string;
  controller: AbortController;
  done: Promise<ChildOutcome>;
}

const n = (x: number) => x.toLocaleString('en-US');

export class SubagentHost {
  /** Every child of this host, while it runs and until its parent's request ends. */
  private readonly children = new Map<string, Child>();
  private isolated = 0;
  /** Children being made, per parent session: counted against the limit before they are registered. */
  private readonly slots = new Map<string, number>();

  constructor(private readonly opts: SubagentHostOptions) {}

  /** The limits as the person's settings and the folder's config say them now. */
  async limits(services: WorkspaceServices): Promise<SubagentLimits> {
    const project = await services.project.load();
    return subagentLimits(services.user.subagentLimits(), project.config.subagents, project.trusted !== false);
  }

  /**
   * The factory of a session's children, for its runner: null-returning past the depth limit.
   * `depth`: the session's own (0 for the person's sessions).
   */
  factory(w: WorkspaceChats, s: LiveSession, depth: number, allowedTypes: string[] | null = null): ChildrenFactory {
    return (req) => new RequestChildren(this, w, s, depth, req, allowedTypes);
  }

  /** Stops one child of the session's running request (its card's Stop). */
  async stopAgent(sessionId: string, agentId: string): Promise<void> {
    const c = this.children.get(agentId);
    if (!c || (c.topSessionId !== sessionId && c.parentSessionId !== sessionId)) throw new LoupeError('INVALID_ARGUMENT', `No subagent ${agentId} runs in session ${sessionId}.`);
    this.stopWith(c, 'person', 'Stopped by the person.');
    await c.done;
  }

  /** Running children whose parent is `sessionId`. */
  runningUnder(sessionId: string): Child[] {
    return [...this.children.values()].filter((c) => c.running && c.parentSessionId === sessionId);
  }

  forget(id: string): void {
    this.children.delete(id);
  }

  stopWith(c: Child, cause: StopCause, reason: string): void {
    if (!c.running || c.stopCause) return;
    c.stopCause = cause;
    c.reason = reason;
    c.controller.abort();
  }

  /** Starts a child of `s` for the request `req`. */
  async spawn(parent: RequestChildren, spawn: SpawnRequest, signal: AbortSignal): Promise<Child> {
    const { w, s, depth, req } = parent;
    if (signal.aborted) throw new LoupeError('ABORTED', 'The request was stopped before the agent started.');
    const limits = await this.limits(w.services);
    const topSessionId = s.files.writer.sessionId;
    if (depth + 1 > limits.maxDepth) throw new LoupeError('AGENT_LIMIT', `No subagent here: agents may nest ${limits.maxDepth} deep ("subagents.max_depth"), and this one is at that depth. Do the task yourself.`, { limit: 'max_depth' });
    const top = this.opts.sessions.holder(topSessionId)?.live.get(topSessionId);
    const spentBySession = top?.record.subagent_tokens ?? 0;
    if (spentBySession >= limits.tokensPerSession) {
      throw new LoupeError('AGENT_LIMIT', `This session's subagents have spent ${n(spentBySession)} tokens, its budget ("subagents.tokens_per_session" is ${n(limits.tokensPerSession)}). Do the rest yourself.`, { limit: 'tokens_per_session' });
    }
    const catalog = catalogOf(await w.services.agents.list());
    const definition = catalog.find(spawn.agentType);
    const names = catalog.definitions.map((d) => d.name);
    if (!definition) throw new LoupeError('INVALID_ARGUMENT', `No agent type "${spawn.agentType}". Use one of: ${names.join(', ')}.`);
    if (parent.allowedTypes && !parent.allowedTypes.some((t) => t.toLowerCase() === definition.name.toLowerCase())) {
      throw new LoupeError('PERMISSION_DENIED', `This agent may start only ${parent.allowedTypes.join(', ')}, not ${definition.name}.`, { denied_by: 'agent' });
    }
    const isolation = spawn.isolation ?? definition.isolation;
    if (isolation === 'worktree' && !this.opts.isolate) throw new LoupeError('INVALID_ARGUMENT', 'An agent in a worktree of its own needs the app or `loupe serve` here; run it without isolation.');
    const canDelegate = depth + 2 <= limits.maxDepth;
    const scope = childScope({
      definition,
      parent: req.registry.list(),
      parentAllowed: req.permissions.scope?.tools ?? null,
      parentKinds: req.permissions.scope?.kinds ?? null,
      parentReadOnly: req.permissions.mode === 'plan',
      canDelegate,
    });
    // Counted and held in one step, with no wait between: agents asked for at once cannot all pass the count.
    const sid = s.record.id;
    const running = this.runningUnder(sid);
    const held = this.slots.get(sid) ?? 0;
    if (running.length + held >= limits.maxParallel) {
      throw new LoupeError('AGENT_LIMIT', `This session already runs ${running.length + held} subagents${running.length ? ` (${running.map((c) => c.id).join(', ')})` : ''}, its limit ("subagents.max_parallel" is ${limits.maxParallel}). Wait for one to finish, or do this yourself.`, { limit: 'max_parallel' });
    }
    this.slots.set(sid, held + 1);
    try {
      return await this.make(parent, spawn, signal, { limits, definition, scope, isolation, canDelegate, topSessionId });
    } finally {
      this.slots.set(sid, (this.slots.get(sid) ?? 1) - 1);
    }
  }

  private async make(
    parent: RequestChildren,
    spawn: SpawnRequest,
    signal: AbortSignal,
    k: { limits: SubagentLimits; definition: AgentDefinition; scope: ChildScope; isolation: 'worktree' | undefined; canDelegate: boolean; topSessionId: string },
  ): Promise<Child> {
    const { w, s, depth, req } = parent;
    const { limits, definition, scope, isolation, canDelegate, topSessionId } = k;
    const where = isolation === 'worktree' ? await this.opts.isolate!(`agent-${Date.now().toString(36)}-${++this.isolated}`) : null;
    const tw = where ? this.opts.sessions.attach(where.services) : w;
    // An isolated child works in another folder: the open folder's MCP servers are not its.
    const tools = where ? new Set([...scope.tools].filter((t) => req.registry.get(t)?.permission !== 'mcp')) : scope.tools;
    const live = this.opts.sessions.create(tw);
    const id = live.record.id;
    live.record.title = spawn.description;
    live.record.parent_session_id = s.record.id;
    live.record.agent = { type: definition.name, description: spawn.description, depth: depth + 1 };
    // Its writes are its parent's request's, attributed to it.
    live.files = new FileSession(id, { sessionId: topSessionId, agentId: id });
    where?.adopt(id);
    const who = `the ${definition.name} agent "${spawn.description}"`;
    const base = where ? where.services.permissions.inMode(req.permissions.mode) : req.permissions;
    const gate = base.narrowed({ who, tools, kinds: scope.kinds, readOnly: scope.readOnly });
    const maxTurns = Math.min(definition.maxTurns ?? limits.maxTurns, limits.maxTurns);
    const role = roleText({ description: spawn.description, readOnly: scope.readOnly, instructions: definition.instructions, source: definition.path, worktree: where?.name });
    live.runner = new LoupeRunner({
      services: tw.services,
      files: live.files,
      tools: () => req.registry.only((t) => tools.has(t.name)),
      model: () => this.opts.model(definition.model),
      noModel: () => this.opts.noModel(),
      logger: this.opts.logger,
      maxTurns,
      savePlan: (c, text) => this.opts.savePlan(tw.services, id, c, text),
      permissions: gate,
      role,
      // Its hooks are the subagent events (SubagentStart, SubagentStop), naming the request's session.
      agent: { type: definition.name, transcriptPath: path.join(tw.services.root, SESSIONS_REL, `${id}.json`) },
      ...(canDelegate ? { children: this.factory(tw, live, depth + 1, scope.agentTypes) } : {}),
    });
    const controller = new AbortController();
    const child: Child = {
      id,
      type: definition.name,
      description: spawn.description,
      parentSessionId: s.record.id,
      topSessionId,
      ...(s.files.writer.agentId ? { parentAgentId: s.files.writer.agentId } : {}),
      w: tw,
      live,
      background: !!spawn.background,
      ...(where ? { worktree: where.name } : {}),
      correlationId: req.correlationId,
      maxTurns,
      running: true,
      collected: false,
      tokens: 0,
      spent: emptySessionUsage(),
      turns: 0,
      text: '',
      controller,
      done: Promise.resolve(null as unknown as ChildOutcome),
    };
    this.children.set(id, child);
    const tag = { agent_id: id, parent_session_id: s.record.id };
    const up = (event: ChatEvent) => req.emit({ ...event, agent_id: event.agent_id ?? tag.agent_id, parent_session_id: event.parent_session_id ?? tag.parent_session_id });
    if (signal.aborted) controller.abort();
    else signal.addEventListener('abort', () => controller.abort(), { once: true });
    up({
      type: 'subagent_started',
      call_id: spawn.callId,
      description: spawn.description,
      agent_type: definition.name,
      background: child.background,
      read_only: scope.readOnly,
      tools: [...tools],
      max_turns: maxTurns,
      token_budget: limits.tokensPerAgent,
      ...(where ? { worktree: where.name } : {}),
      correlation_id: req.correlationId,
      t: now(),
    });
    const notes = scope.unknown.length ? `\n\n(Its definition names tools Loupe does not have here, left out: ${scope.unknown.join(', ')}.)` : '';
    child.done = this.run(child, req, spawn.prompt, limits, up, notes);
    return child;
  }

  private async run(c: Child, req: ChildrenOfRequest, prompt: string, limits: SubagentLimits, up: (e: ChatEvent) => void, notes: string): Promise<ChildOutcome> {
    const watch = (event: ChatEvent) => {
      // Its own events (a grandchild's carry their own tags and were counted by their parent).
      if (!event.agent_id) {
        if (event.type === 'turn_started') c.turns = event.turn;
        if (event.type === 'request_finished') c.text = event.text;
        if (event.type === 'usage') this.spent(c, req, event.usage.session, limits);
      }
      up(event);
    };
    let status: RunStatus = 'error';
    try {
      const started = await this.opts.requests.child(c.w, c.live, prompt, { correlationId: req.correlationId, signal: c.controller.signal, stream: watch });
      status = await started.finished;
    } catch (err) {
      c.reason = `It could not start: ${(err as Error).message}`;
    }
    // What it left running in the background stops with it (and is recorded first).
    await c.w.services.processes.stopStartedBy(c.id, `its agent (${c.description}) ended`).catch(() => []);
    c.running = false;
    const outcome = await this.outcome(c, status, notes);
    up({
      type: 'subagent_finished',
      status: outcome.status === 'running' ? 'done' : outcome.status,
      text: outcome.text,
      turns: outcome.turns,
      tokens: outcome.tokens,
      ...(outcome.cost_usd !== undefined ? { cost_usd: outcome.cost_usd } : {}),
      files: outcome.files,
      ...(outcome.stopped_by ? { stopped_by: outcome.stopped_by } : {}),
      ...(outcome.reason ? { reason: outcome.reason } : {}),
      ...(outcome.worktree ? { worktree: outcome.worktree } : {}),
      correlation_id: req.correlationId,
      t: now(),
    });
    return outcome;
  }

  /** Its session's totals moved: the parent pays the difference, and the budgets are checked. */
  private spent(c: Child, req: ChildrenOfRequest, totals: SessionUsage, limits: SubagentLimits): void {
    const now = sessionUsageFrom(totals);
    const was = c.spent;
    const delta: SessionUsage = {
      prompt_tokens: Math.max(0, now.prompt_tokens - was.prompt_tokens),
      completion_tokens: Math.max(0, now.completion_tokens - was.completion_tokens),
      total_tokens: Math.max(0, now.total_tokens - was.total_tokens),
      calls: Math.max(0, now.calls - was.calls),
      estimated_calls: Math.max(0, now.estimated_calls - was.estimated_calls),
      ...(now.cost_usd !== undefined && was.cost_usd !== undefined ? { cost_usd: Math.max(0, now.cost_usd - was.cost_usd) } : {}),
    };
    c.spent = now;
    c.tokens = now.total_tokens;
    c.cost = now.cost_usd;
    if (!delta.total_tokens && !delta.calls) return;
    req.count(delta);
    // The session's budget counts its own children; theirs are inside their totals already.
    if (c.parentSessionId === c.topSessionId) {
      const top = this.opts.sessions.holder(c.topSessionId)?.live.get(c.topSessionId);
      if (top) top.record.subagent_tokens = (top.record.subagent_tokens ?? 0) + delta.total_tokens;
      const spent = top?.record.subagent_tokens ?? 0;
      if (spent > limits.tokensPerSession) {
        for (const other of this.children.values()) {
          if (other.running && other.topSessionId === c.topSessionId) {
            this.stopWith(other, 'session_budget', `Stopped: this session's subagents spent ${n(spent)} tokens, past its budget of ${n(limits.tokensPerSession)} ("subagents.tokens_per_session").`);
          }
        }
      }
    }
    if (c.tokens > limits.tokensPerAgent) this.stopWith(c, 'budget', `Stopped: it spent ${n(c.tokens)} tokens, past its budget of ${n(limits.tokensPerAgent)} ("subagents.tokens_per_agent").`);
  }

  private async outcome(c: Child, status: string, notes: string): Promise<ChildOutcome> {
    const mine = new Set([c.id, ...this.descendantsOf(c.id)]);
    const files = await c.w.services.modlog
      .index()
      .sync()
      .then((fold) => [...new Set(fold.ofCorrelation(c.correlationId).filter((f) => f.entry.agent_id && mine.has(f.entry.agent_id)).map((f) => f.file))].sort())
      .catch(() => [] as string[]);
    let result: ChildOutcome['status'] = status === 'done' ? 'done' : status === 'aborted' || status === 'turn_limit' ? 'stopped' : 'failed';
    let cause = c.stopCause;
    let reason = c.reason;
    if (status === 'turn_limit') {
      cause = 'turns';
      reason = `Stopped at its turn limit (${c.maxTurns} turns) before it finished.`;
    } else if (status === 'aborted' && !cause) {
      cause = 'request';
      reason = 'Stopped: the request was stopped.';
    } else if (result === 'failed' && !reason) {
      const last = c.live.record.entries?.findLast((e) => e.type === 'error');
      reason = last?.type === 'error' ? `It failed: ${last.code}: ${last.message}` : 'It failed.';
    }
    if (result === 'done' && c.stopCause) result = 'stopped';
    return {
      agent_id: c.id,
      agent_type: c.type,
      description: c.description,
      status: result,
      text: `${c.text}${notes}`,
      turns: c.turns,
      tokens: c.tokens,
      ...(c.cost !== undefined ? { cost_usd: c.cost } : {}),
      files,
      ...(result !== 'done' && cause ? { stopped_by: cause } : {}),
      ...(reason ? { reason } : {}),
      ...(c.worktree ? { worktree: c.worktree } : {}),
    };
  }

  private descendantsOf(id: string): string[] {
    const out: string[] = [];
    for (const c of this.children.values()) if (c.parentAgentId === id) out.push(c.id, ...this.descendantsOf(c.id));
    return out;
  }

  /** A child's outcome while it still runs (a wait that timed out). */
  snapshot(c: Child): ChildOutcome {
    return { agent_id: c.id, agent_type: c.type, description: c.description, status: 'running', text: '', turns: c.turns, tokens: c.tokens, ...(c.cost !== undefined ? { cost_usd: c.cost } : {}), files: [], ...(c.worktree ? { worktree: c.worktree } : {}) };
  }
}

/** One request's children, as its tools and its loop see them. */
class RequestChildren implements Subagents, DelegatedWork {
  private readonly mine = new Map<string, Child>();

  constructor(
    private readonly host: SubagentHost,
    readonly w: WorkspaceChats,
    readonly s: LiveSession,
    readonly depth: number,
    readonly req: ChildrenOfRequest,
    /** `Agent(a, b)` in its definition: the types this session may start. */
    readonly allowedTypes: string[] | null,
  ) {}

  async types() {
    const catalog = catalogOf(await this.w.services.agents.list());
    const allowed = this.allowedTypes?.map((t) => t.toLowerCase());
    return catalog.definitions.filter((d) => !allowed || allowed.includes(d.name.toLowerCase())).map((d) => ({ name: d.name, description: d.description, read_only: d.readOnly || this.req.permissions.mode === 'plan' }));
  }

  async start(spawn: SpawnRequest, signal: AbortSignal) {
    const child = await this.host.spawn(this, spawn, signal);
    this.mine.set(child.id, child);
    return { agentId: child.id, result: child.done.then((o) => this.collect1(child, o)) };
  }

  private collect1(c: Child, o: ChildOutcome): ChildOutcome {
    c.collected = true;
    return o;
  }

  private child(id: string): Child {
    const c = this.mine.get(id);
    if (!c) throw new LoupeError('INVALID_ARGUMENT', `No agent ${id} was started by this request. Its agents: ${[...this.mine.keys()].join(', ') || 'none'}.`);
    return c;
  }

  async wait(id: string, signal: AbortSignal, timeoutMs?: number): Promise<ChildOutcome> {
    const c = this.child(id);
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const gaveUp = new Promise<null>((resolve) => {
      if (timeoutMs !== undefined) timer = setTimeout(() => resolve(null), timeoutMs);
      onAbort = () => resolve(null);
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      const o = await Promise.race([c.done, gaveUp]);
      if (o) return this.collect1(c, o);
      if (signal.aborted) throw new LoupeError('ABORTED', 'Stopped while waiting for the agent.');
      return this.host.snapshot(c);
    } finally {
      if (timer) clearTimeout(timer);
      if (onAbort) signal.removeEventListener('abort', onAbort);
    }
  }

  async stop(id: string): Promise<ChildOutcome> {
    const c = this.child(id);
    this.host.stopWith(c, 'agent', 'Stopped by the agent that started it.');
    return this.collect1(c, await c.done);
  }

  async collect(signal: AbortSignal): Promise<string[]> {
    const waiting = [...this.mine.values()].filter((c) => !c.collected);
    if (!waiting.length) return [];
    const out: string[] = [];
    for (const c of waiting) {
      const o = await Promise.race([c.done, new Promise<null>((resolve) => (signal.aborted ? resolve(null) : signal.addEventListener('abort', () => resolve(null), { once: true })))]);
      if (!o) break;
      this.collect1(c, o);
      out.push(`[The background agent ${c.id} (${c.description}) finished. Its result:]\n${describeOutcome(o)}`);
    }
    return out;
  }

  async settle(): Promise<void> {
    for (const c of this.mine.values()) if (c.running) this.host.stopWith(c, 'request', this.req.signal.aborted ? 'Stopped: the request was stopped.' : 'Stopped: the request that started it ended.');
    await Promise.all([...this.mine.values()].map((c) => c.done.catch(() => undefined)));
    for (const c of this.mine.values()) this.host.forget(c.id);
  }
}

/** What a child is told of itself, after the rules: who started it for what, and its definition's words. */
function roleText(r: { description: string; readOnly: boolean; instructions: string; source: string; worktree?: string }): string {
  const lines = [
    '# You are a subagent',
    `Another agent started you for one task ("${r.description}"). Your final message is your whole answer to it: what you found or did, with file paths; it sees nothing else you say or do. Nobody reads your messages as they come, so ask nothing: if something blocks you, say so in your answer.`,
  ];
  if (r.readOnly) lines.push('You only read: every tool call that would change the workspace is refused.');
  if (r.worktree) lines.push(`You work in a git worktree of your own (${r.worktree}); your changes stay there until the person reviews and applies them.`);
  const text = r.instructions.length > 16_000 ? `${r.instructions.slice(0, 16_000)}\n… [cut at 16,000 characters]` : r.instructions;
  if (text) lines.push('', `# Your instructions (${r.source})`, text);
  return lines.join('\n');
}
