// The agent loop: ask the model, run the tools it calls, feed the results back, until it
// answers without tools, the user stops it, or the turn limit is hit. Everything it does is an
// event; it never throws for a model or tool failure, it ends the request with a status.
import { randomBytes } from 'node:crypto';
import { AbortedError, LoupeError, toWireError } from '../../errors';
import type { LlmClient } from '../llm/client';
import { DEFAULT_CONTEXT_TOKENS } from '../llm/config';
import { NoModelError } from '../llm/errors';
import { imagePart } from '../llm/images';
import type { ModelFacts } from '../llm/modelFacts';
import type { AssistantTurn, ChatMessage, ChatToolSpec, UserContentPart } from '../llm/types';
import type { EnvironmentFacts } from '../prompts/environment';
import { systemPromptSource, type SystemPromptSource } from '../prompts/systemPrompt';
import type { ToolRegistry } from '../tools/registry';
import type { ToolContext, ToolImage } from '../tools/types';
import { conversationTokens, estimateTokens, toolOutputCap, truncateMiddle } from './budget';
import { compact } from './compaction';
import { TurnLimitError } from './errors';
import { AgentEvents, now, type AgentEventBody, type RunStatus } from './events';
import { PLAN_MODE_PROMPT, type AgentMode } from './planMode';
import { StopReport } from './stopReport';
import { assistantMessage, prepareCall, runToolCalls, type ToolHooks } from './toolCalls';
import type { AgentHooks, HookRun } from '../hooks/agentHooks';
import { UsageTally } from './usage';
import type { SessionUsage, UsageView } from '../../../shared/contract';
import { RequestGrants } from '../../services/permissions/grants';
import type { DelegatedWork } from '../subagents/types';

export const DEFAULT_MAX_TURNS = 25;
/** Compact when the estimate passes this share of the window: the answer needs room too. */
const COMPACT_AT = 0.75;

export interface AgentOptions {
  /** null: no model configured; every request ends at once with LLM_ERROR saying how to connect one. */
  llm: LlmClient | null;
  registry: ToolRegistry;
  /** The tools' context without the signal (each request brings its own). */
  toolContext: Omit<ToolContext, 'signal'>;
  contextTokens?: number;
  maxTurns?: number;
  /** Replaces the built system prompt (tests). */
  systemPrompt?: string;
  /** Builds the system prompt (the workspace's sandbox, rules and instruction files); absent: one from the root and the tools alone. */
  prompt?: SystemPromptSource;
  /** The prompt this session was last told: an unchanged one is not announced again. */
  announcedPrompt?: string;
  /** Extra text for the "no model" message (local servers found, …). */
  noModelHint?: string;
  /** The session's usage so far (a resumed session): its totals, and the meter as it was left. */
  usage?: { session?: SessionUsage; last?: UsageView };
  /** Keeps a plan-mode answer as the session's Markdown artifact; returns its workspace-relative path. */
  savePlan?: (correlationId: string, text: string) => Promise<string>;
  /** The workspace's hooks for this session (docs/architecture.md, "Hooks"); absent: none run. */
  hooks?: AgentHooks;
}

export interface RunOptions {
  signal?: AbortSignal;
  correlationId?: string;
  /** `plan`: the permission layer refuses whatever may write; the answer is the plan. */
  mode?: AgentMode;
  /** The message as sent when it carries more than the prompt (attached files, images). */
  content?: string | UserContentPart[];
  /** Messages the person sent meanwhile with "send now": given to the model at the next tool boundary. */
  steering?: { take(): string[] };
  /** The session's SessionStart hooks, when this is its first request here: what they give the model goes with it. */
  sessionStart?: (run: HookRun) => Promise<string[]>;
  /** What skills and commands in use allow for this request (a command's allowed-tools); a fresh set when absent. */
  grants?: RequestGrants;
  /** The request's children (subagents): uncollected results go to the model before it ends; all are stopped before it says it finished. */
  delegated?: DelegatedWork;
  /**
   * Waits, before the model is asked, for the tools this request should offer (MCP servers still
   * starting or waiting on their card); what it returns goes to the model with the request.
   */
  toolsReady?: (emit: (e: AgentEventBody) => void, signal: AbortSignal) => Promise<string[]>;
}

export interface RunResult {
  status: RunStatus;
  correlationId: string;
  /** The final answer (or the text so far). */
  text: string;
  turns: number;
  error?: { code: string; message: string };
}

interface LoopState {
  turns: number;
  text: string;
  mode: AgentMode;
  steering: RunOptions['steering'];
  delegated: RunOptions['delegated'];
  /** What was under way, for the words a stop ends with. */
  stop: StopReport;
  /** Hook firings of this request, and how many times in a row the Stop hooks sent the model back. */
  hooks: (ToolHooks & { stopBlocks: number }) | null;
  /** The allow rules of the skills and commands in use in this request, and only this one. */
  grants: RequestGrants;
}

export const newCorrelationId = (): string => `req-${new Date().toISOString().slice(0, 10).replace(/-/g, '')}-${randomBytes(4).toString('hex')}`;

export class Agent {
  readonly events = new AgentEvents();
  /** Tokens, context and cost of the session: read it after a request to keep the totals. */
  readonly usage: UsageTally;
  private contextTokens: number;
  /** The conversation was compacted since the server last counted it: that count is no guide now. */
  private countStale = false;
  private readonly maxTurns: number;
  private announced: string | undefined;

  constructor(
    private readonly opts: AgentOptions,
    /** The conversation so far (a resumed session), without the system prompt. */
    public messages: ChatMessage[] = [],
  ) {
    this.contextTokens = opts.contextTokens ?? opts.llm?.config.contextTokens ?? DEFAULT_CONTEXT_TOKENS;
    this.maxTurns = opts.maxTurns ?? DEFAULT_MAX_TURNS;
    this.announced = opts.announcedPrompt;
    this.usage = new UsageTally(opts.usage?.session, opts.usage?.last);
  }

  get sessionId(): string {
    return this.opts.toolContext.session.id;
  }

  async run(prompt: string, opts: RunOptions = {}): Promise<RunResult> {
    const correlationId = opts.correlationId ?? newCorrelationId();
    const signal = opts.signal ?? new AbortController().signal;
    const emit = (e: AgentEventBody) => this.events.emit({ ...e, correlation_id: correlationId, t: now() });
    const mode = opts.mode ?? 'act';
    const run: HookRun = { correlationId, signal, permissionMode: mode === 'plan' ? 'plan' : 'default', emit };
    const state: LoopState = { turns: 0, text: '', mode, steering: opts.steering, delegated: opts.delegated, stop: new StopReport(), hooks: this.opts.hooks ? { hooks: this.opts.hooks, run, stopBlocks: 0 } : null, grants: opts.grants ?? new RequestGrants() };
    emit({ type: 'request_started', session_id: this.sessionId, prompt, ...(mode === 'plan' ? { mode } : {}) });
    const lastBefore = this.usage.last;
    let status: RunStatus = 'done';
    let error: RunResult['error'];
    try {
      if (!this.opts.llm) throw new NoModelError(this.opts.noModelHint);
      const toolNotes = opts.toolsReady ? await opts.toolsReady(emit, signal) : [];
      const started = [...toolNotes, ...(opts.sessionStart ? await opts.sessionStart(run) : [])];
      // UserPromptSubmit: a block keeps the words from the model; what the hooks add goes with them.
      const submitted = this.opts.hooks ? await this.opts.hooks.promptSubmit(prompt, run) : null;
      if (submitted?.blocked || submitted?.stop) {
        emit({ type: 'notice', text: submitted.blocked ? `The prompt was not sent to the model: blocked by ${submitted.blocked}` : `A hook stopped the request: ${submitted.stop}` });
      } else {
        const request: ChatMessage = { role: 'user', content: withNotes(opts.content ?? prompt, [...started, ...(submitted?.notes ?? [])]) };
        this.messages.push(request);
        await this.loop(this.opts.llm, request, correlationId, signal, emit, state);
      }
      if (mode === 'plan' && state.text.trim() && this.opts.savePlan) {
        emit({ type: 'plan', path: await this.opts.savePlan(correlationId, state.text), text: state.text });
      }
    } catch (err) {
      const aborted = signal.aborted || err instanceof AbortedError;
      status = aborted ? 'aborted' : err instanceof TurnLimitError ? 'turn_limit' : 'error';
      error = aborted ? { code: 'ABORTED', message: state.stop.describe() } : toWireError(err);
      if (!aborted && !(err instanceof LoupeError)) this.opts.toolContext.logger.error('agent.crashed', { correlation_id: correlationId, error: err });
      emit({ type: 'error', code: error.code as never, message: error.message });
    }
    // No child outlives its request: each is stopped and its end (and its usage) awaited first.
    await opts.delegated?.settle().catch((err: unknown) => this.opts.toolContext.logger.error('agent.crashed', { correlation_id: correlationId, error: err }));
    const usage = this.usage.last !== lastBefore ? this.usage.last : undefined;
    emit({ type: 'request_finished', status, text: state.text, turns: state.turns, ...(usage ? { usage } : {}) });
    return { status, correlationId, text: state.text, turns: state.turns, ...(error ? { error } : {}) };
  }

  /**
   * `/compact`: the conversation so far summarised now (all but its last exchange), with no
   * question to the model beyond the summary itself. Ends like a request, with its events.
   */
  async compactNow(opts: { signal?: AbortSignal; correlationId?: string; prompt: string }): Promise<RunResult> {
    const correlationId = opts.correlationId ?? newCorrelationId();
    const signal = opts.signal ?? new AbortController().signal;
    const emit = (e: AgentEventBody) => this.events.emit({ ...e, correlation_id: correlationId, t: now() });
    emit({ type: 'request_started', session_id: this.sessionId, prompt: opts.prompt });
    let status: RunStatus = 'done';
    let error: RunResult['error'];
    try {
      if (!this.opts.llm) throw new NoModelError(this.opts.noModelHint);
      const llm = this.opts.llm;
      const facts = await llm.facts(signal, this.opts.contextTokens);
      this.contextTokens = facts.contextWindow;
      const before = conversationTokens(this.messages, []);
      const done = await compact(this.messages, { llm, contextTokens: this.contextTokens, currentPrompt: '', signal, tailChars: 0 });
      if (!done) emit({ type: 'notice', text: 'Nothing to compact yet: the conversation is one exchange long.' });
      else {
        this.messages = done.messages;
        this.countStale = true;
        if (done.call) this.usage.aside(done.call.reported, done.call.estimate, facts);
        emit({ type: 'compacted', mode: done.mode, removed_messages: done.removed, tokens_before: before, tokens_after: conversationTokens(this.messages, []), summary: done.summary });
      }
    } catch (err) {
      const aborted = signal.aborted || err instanceof AbortedError;
      status = aborted ? 'aborted' : 'error';
      error = aborted ? { code: 'ABORTED', message: 'Stopped: the conversation was left as it was.' } : toWireError(err);
      emit({ type: 'error', code: error.code as never, message: error.message });
    }
    emit({ type: 'request_finished', status, text: '', turns: 0 });
    return { status, correlationId, text: '', turns: 0, ...(error ? { error } : {}) };
  }

  private toolSpecs(): ChatToolSpec[] {
    return this.opts.registry.list().map((t) => ({ name: t.name, description: t.description, parameters: this.opts.registry.inputSchema(t) }));
  }

  private async loop(llm: LlmClient, request: ChatMessage, correlationId: string, signal: AbortSignal, emit: (e: AgentEventBody) => void, state: LoopState): Promise<void> {
    const source = this.opts.systemPrompt === undefined ? (this.opts.prompt ?? systemPromptSource({ root: this.opts.toolContext.root, registry: this.opts.registry })) : null;
    const [env, facts] = await Promise.all([source ? source.environment(signal) : null, llm.facts(signal, this.opts.contextTokens)]);
    this.contextTokens = facts.contextWindow;
    const tools = this.toolSpecs();
    // Plan mode is the permission layer's: the gate of this request refuses what may write.
    const permissions = this.opts.toolContext.permissions.inMode(state.mode).withGrants(state.grants);
    const ctx: ToolContext = { ...this.opts.toolContext, permissions, signal, correlationId };
    for (;;) {
      if (state.turns >= this.maxTurns) throw new TurnLimitError(state.turns);
      const system = await this.systemMessage(llm, source, env, emit);
      await this.compactIfNeeded(llm, system, tools, request, facts, signal, emit);
      state.turns++;
      emit({ type: 'turn_started', turn: state.turns });
      // Told, so it plans instead of trying; what it may do is still the gate's to decide.
      const told = state.mode === 'plan' ? { ...system, content: `${system.content}\n\n${PLAN_MODE_PROMPT}` } : system;
      const asked = conversationTokens([told, ...this.messages], tools);
      const turn = await this.ask(llm, [told, ...this.messages], tools, signal, emit, state.stop);
      emit({ type: 'usage', usage: this.usage.call(turn.usage, { prompt: asked, completion: answerTokens(turn) }, facts) });
      this.countStale = false;
      emit({ type: 'turn_completed', turn: state.turns, finish_reason: turn.finishReason, tool_calls: turn.toolCalls.length });
      state.text = turn.content;
      this.messages.push(assistantMessage(turn));
      if (!turn.toolCalls.length) {
        if (turn.finishReason === 'length') throw new LoupeError('LLM_ERROR', 'The answer hit the model’s output limit and was cut. Ask it to continue, or raise the model’s max tokens.');
        // Children it started in the background and never collected: their results first.
        const arrived = (await state.delegated?.collect(signal)) ?? [];
        if (signal.aborted) throw new AbortedError('The request');
        if (arrived.length) {
          for (const text of arrived) this.messages.push({ role: 'user', content: text });
          emit({ type: 'notice', text: `${arrived.length} background agent${arrived.length === 1 ? '' : 's'} finished; the model reads ${arrived.length === 1 ? 'its result' : 'their results'} before it answers.` });
          continue;
        }
        if (await this.stopHooks(turn.content, state, signal, emit)) continue;
        return;
      }
      await this.runTools(turn, correlationId, ctx, emit, state.stop, facts.images, state.hooks ?? undefined);
      if (signal.aborted) throw new AbortedError('The request');
      if (state.hooks?.stop) {
        emit({ type: 'notice', text: `A hook stopped the agent: ${state.hooks.stop}` });
        return;
      }
      // A tool boundary: what the person sent meanwhile reaches the model before its next turn.
      for (const text of state.steering?.take() ?? []) {
        this.messages.push({ role: 'user', content: text });
        emit({ type: 'steer', text });
      }
    }
  }

  /**
   * The Stop hooks, when the model would end its turn: true sends it back to work with their
   * reason. The third block in a row is overruled, so a hook cannot hold the turn open.
   */
  private async stopHooks(text: string, state: LoopState, signal: AbortSignal, emit: (e: AgentEventBody) => void): Promise<boolean> {
    const h = state.hooks;
    if (!h) return false;
    const said = await h.hooks.stop(text, h.stopBlocks, h.run);
    if (signal.aborted) throw new AbortedError('The request');
    if (said.overruled) emit({ type: 'notice', text: `Stop hook overruled: ${said.overruled}` });
    if (said.stop) emit({ type: 'notice', text: `A hook stopped the agent: ${said.stop}` });
    if (!said.block || said.stop) return false;
    h.stopBlocks++;
    this.messages.push({ role: 'user', content: `A Stop hook sent you back to work:\n${said.block}` });
    return true;
  }

  /** The turn's system prompt; announced when it differs from what the session was last told. */
  private async systemMessage(llm: LlmClient, source: SystemPromptSource | null, env: EnvironmentFacts | null, emit: (e: AgentEventBody) => void): Promise<ChatMessage> {
    if (!source || !env) return { role: 'system', content: this.opts.systemPrompt ?? '' };
    const built = await source.build(env, { messages: this.messages, model: { name: llm.config.model, profile: llm.profile.view() } });
    if (built.text !== this.announced) {
      this.announced = built.text;
      emit({ type: 'system_prompt', text: built.text, files: built.files, skipped: built.skipped });
    }
    return { role: 'system', content: built.text };
  }

  private async ask(llm: LlmClient, messages: ChatMessage[], tools: ChatToolSpec[], signal: AbortSignal, emit: (e: AgentEventBody) => void, stop: StopReport): Promise<AssistantTurn> {
    let partial = '';
    stop.streaming();
    try {
      return await llm.streamChat(
        { messages, tools, signal },
        {
          onText: (text) => {
            partial += text;
            emit({ type: 'text_delta', text });
          },
          onReasoning: (text) => emit({ type: 'reasoning_delta', text }),
          onNotice: (text) => emit({ type: 'notice', text }),
          onToolCallStart: (c) => {
            stop.callStreaming(c.name);
            const { title, effect } = this.opts.registry.facts(c.name);
            emit({ type: 'tool_call_streaming', call_id: c.id, tool: c.name, title, effect });
          },
          onToolCallArgs: (c) => emit({ type: 'tool_call_args', call_id: c.id, delta: c.delta }),
          onRetry: (r) => {
            partial = '';
            stop.streaming();
            emit({ type: 'retry', attempt: r.attempt, delay_ms: r.delayMs, reason: r.reason });
          },
        },
      );
    } catch (err) {
      // Keep what the user already saw, so a resumed session reads the same.
      if (signal.aborted && partial) this.messages.push({ role: 'assistant', content: partial });
      if (signal.aborted) stop.streamStopped(partial.length);
      throw err;
    }
  }

  /** `images`: the model takes images, so the images tools returned are shown to it. */
  private async runTools(turn: AssistantTurn, correlationId: string, ctx: ToolContext, emit: (e: AgentEventBody) => void, stop: StopReport, images: boolean, toolHooks?: ToolHooks): Promise<void> {
    const prepared = turn.toolCalls.map((c) => prepareCall(c, this.opts.registry));
    const cap = toolOutputCap(this.contextTokens, prepared.length);
    const results = await runToolCalls(prepared, this.opts.registry, ctx, {
      started: (p) => {
        const facts = this.opts.registry.callFacts(p.call.function.name, p.args);
        stop.callStarted(p.call.id, `${p.call.function.name}${facts.summary ? ` ${facts.summary}` : ''}`, ctx.signal.aborted);
        emit({ type: 'tool_call_started', call_id: p.call.id, tool: p.call.function.name, ...facts, args: p.args });
      },
      output: (p, text) => emit({ type: 'tool_output', call_id: p.call.id, text }),
      finished: (p, r, ms) => {
        stop.callFinished(p.call.id, r, ctx.signal.aborted);
        emit({ type: 'tool_call_finished', call_id: p.call.id, tool: p.call.function.name, ok: r.ok, output: r.output, ...(r.for_person !== undefined && r.for_person !== r.output ? { for_person: r.for_person } : {}), ...(r.data ? { data: r.data } : {}), ...(r.error ? { error: r.error } : {}), duration_ms: ms });
      },
    }, toolHooks);
    // Every call gets its answer, in order, even when stopped: the conversation stays valid to resume.
    prepared.forEach((p, i) => this.messages.push({ role: 'tool', tool_call_id: p.call.id, content: truncateMiddle(results[i].output || (results[i].ok ? '(no output)' : 'Failed.'), cap) }));
    // Tool messages carry text only on most servers: the images follow in one user message.
    const shown = images ? toolImagesMessage(prepared.map((p, i) => ({ id: p.call.id, tool: p.call.function.name, images: results[i].images ?? [] }))) : null;
    if (shown) this.messages.push(shown);
  }

  private async compactIfNeeded(llm: LlmClient, system: ChatMessage, tools: ChatToolSpec[], request: ChatMessage, facts: ModelFacts, signal: AbortSignal, emit: (e: AgentEventBody) => void): Promise<void> {
    // The server's count of the last call, when it gave one, is truer than the estimate.
    const last = this.usage.last && !this.usage.last.estimated && !this.countStale ? this.usage.last.conversation_tokens : 0;
    const before = Math.max(conversationTokens([system, ...this.messages], tools), last);
    if (before <= this.contextTokens * COMPACT_AT) return;
    const prompt = request.role === 'user' && typeof request.content === 'string' ? request.content : '';
    await this.opts.hooks?.preCompact('auto', { signal, emit });
    const done = await compact(this.messages, { llm, contextTokens: this.contextTokens, currentPrompt: prompt, request, signal });
    if (!done) return;
    this.messages = done.messages;
    this.countStale = true;
    if (done.call) this.usage.aside(done.call.reported, done.call.estimate, facts);
    emit({ type: 'compacted', mode: done.mode, removed_messages: done.removed, tokens_before: before, tokens_after: conversationTokens([system, ...this.messages], tools), summary: done.summary });
  }
}

/** The person's message with what hooks added for the model after it. */
function withNotes(content: string | UserContentPart[], notes: string[]): string | UserContentPart[] {
  if (!notes.length) return content;
  const text = notes.join('\n\n');
  return typeof content === 'string' ? `${content}\n\n${text}` : [...content, { type: 'text', text }];
}

/** The images of a turn's tool results as one user message after the results; null when there are none. */
export function toolImagesMessage(calls: { id: string; tool: string; images: ToolImage[] }[]): ChatMessage | null {
  const withImages = calls.filter((c) => c.images.length);
  if (!withImages.length) return null;
  const which = withImages.map((c) => `${c.tool} (call ${c.id}): ${c.images.length} image${c.images.length === 1 ? '' : 's'}`).join('; ');
  const parts: UserContentPart[] = [{ type: 'text', text: `[The images returned by the tool calls above, in order — ${which}.]` }];
  for (const c of withImages) for (const img of c.images) parts.push(imagePart(img.mime_type, img.data));
  return { role: 'user', content: parts };
}

/** Tokens of an answer as Loupe estimates them: its text, reasoning and calls. */
function answerTokens(turn: AssistantTurn): number {
  const calls = turn.toolCalls.reduce((n, c) => n + c.function.name.length + c.function.arguments.length + 16, 0);
  return estimateTokens(turn.content.length + (turn.reasoning?.length ?? 0) + calls + 8);
}
