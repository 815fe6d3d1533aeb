// The agent loop: ask the model, run the tools it calls, feed the results back, until it
// answers without tools, the user stops it, or the turn limit is hit. Everything it does is an
// event; it never throws for a model or tool failure, it ends the request with a status.
import { randomBytes } from 'node:crypto';
import { AbortedError, LoupeError, toWireError } from '../../errors';
import type { LlmClient } from '../llm/client';
import { DEFAULT_CONTEXT_TOKENS } from '../llm/config';
import { NoModelError } from '../llm/errors';
import type { AssistantTurn, ChatMessage, ChatToolSpec } from '../llm/types';
import type { EnvironmentFacts } from '../prompts/environment';
import { systemPromptSource, type SystemPromptSource } from '../prompts/systemPrompt';
import type { ToolRegistry } from '../tools/registry';
import type { ToolContext } from '../tools/types';
import { conversationTokens, toolOutputCap, truncateMiddle } from './budget';
import { compact } from './compaction';
import { TurnLimitError } from './errors';
import { AgentEvents, now, type AgentEventBody, type RunStatus } from './events';
import { assistantMessage, prepareCall, runToolCalls } from './toolCalls';

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
}

export interface RunResult {
  status: RunStatus;
  correlationId: string;
  /** The final answer (or the text so far). */
  text: string;
  turns: number;
  error?: { code: string; message: string };
}

export const newCorrelationId = (): string => `req-${new Date().toISOString().slice(0, 10).replace(/-/g, '')}-${randomBytes(4).toString('hex')}`;

export class Agent {
  readonly events = new AgentEvents();
  private readonly contextTokens: number;
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
  }

  get sessionId(): string {
    return this.opts.toolContext.session.id;
  }

  async run(prompt: string, opts: { signal?: AbortSignal; correlationId?: string } = {}): Promise<RunResult> {
    const correlationId = opts.correlationId ?? newCorrelationId();
    const signal = opts.signal ?? new AbortController().signal;
    const emit = (e: AgentEventBody) => this.events.emit({ ...e, correlation_id: correlationId, t: now() });
    const state = { turns: 0, text: '' };
    emit({ type: 'request_started', session_id: this.sessionId, prompt });
    this.messages.push({ role: 'user', content: prompt });
    let status: RunStatus = 'done';
    let error: RunResult['error'];
    try {
      if (!this.opts.llm) throw new NoModelError(this.opts.noModelHint);
      await this.loop(this.opts.llm, prompt, correlationId, signal, emit, state);
    } catch (err) {
      const aborted = signal.aborted || err instanceof AbortedError;
      status = aborted ? 'aborted' : err instanceof TurnLimitError ? 'turn_limit' : 'error';
      error = aborted ? { code: 'ABORTED', message: 'Stopped by the user.' } : toWireError(err);
      if (!aborted && !(err instanceof LoupeError)) this.opts.toolContext.logger.error('agent.crashed', { correlation_id: correlationId, error: err });
      emit({ type: 'error', code: error.code as never, message: error.message });
    }
    emit({ type: 'request_finished', status, text: state.text, turns: state.turns });
    return { status, correlationId, text: state.text, turns: state.turns, ...(error ? { error } : {}) };
  }

  private toolSpecs(): ChatToolSpec[] {
    return this.opts.registry.list().map((t) => ({ name: t.name, description: t.description, parameters: this.opts.registry.inputSchema(t) }));
  }

  private async loop(llm: LlmClient, prompt: string, correlationId: string, signal: AbortSignal, emit: (e: AgentEventBody) => void, state: { turns: number; text: string }): Promise<void> {
    const source = this.opts.systemPrompt === undefined ? (this.opts.prompt ?? systemPromptSource({ root: this.opts.toolContext.root, registry: this.opts.registry })) : null;
    const env = source ? await source.environment(signal) : null;
    const tools = this.toolSpecs();
    const ctx: ToolContext = { ...this.opts.toolContext, signal, correlationId };
    for (;;) {
      if (state.turns >= this.maxTurns) throw new TurnLimitError(state.turns);
      const system = await this.systemMessage(llm, source, env, emit);
      await this.compactIfNeeded(llm, system, tools, prompt, signal, emit);
      state.turns++;
      emit({ type: 'turn_started', turn: state.turns });
      const turn = await this.ask(llm, [system, ...this.messages], tools, signal, emit);
      emit({ type: 'turn_completed', turn: state.turns, finish_reason: turn.finishReason, tool_calls: turn.toolCalls.length });
      state.text = turn.content;
      this.messages.push(assistantMessage(turn));
      if (!turn.toolCalls.length) {
        if (turn.finishReason === 'length') throw new LoupeError('LLM_ERROR', 'The answer hit the model’s output limit and was cut. Ask it to continue, or raise the model’s max tokens.');
        return;
      }
      await this.runTools(turn, correlationId, ctx, emit);
      if (signal.aborted) throw new AbortedError('The request');
    }
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

  private async ask(llm: LlmClient, messages: ChatMessage[], tools: ChatToolSpec[], signal: AbortSignal, emit: (e: AgentEventBody) => void): Promise<AssistantTurn> {
    let partial = '';
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
            const { title, effect } = this.opts.registry.facts(c.name);
            emit({ type: 'tool_call_streaming', call_id: c.id, tool: c.name, title, effect });
          },
          onToolCallArgs: (c) => emit({ type: 'tool_call_args', call_id: c.id, delta: c.delta }),
          onUsage: (usage) => emit({ type: 'usage', usage }),
          onRetry: (r) => {
            partial = '';
            emit({ type: 'retry', attempt: r.attempt, delay_ms: r.delayMs, reason: r.reason });
          },
        },
      );
    } catch (err) {
      // Keep what the user already saw, so a resumed session reads the same.
      if (signal.aborted && partial) this.messages.push({ role: 'assistant', content: partial });
      throw err;
    }
  }

  private async runTools(turn: AssistantTurn, correlationId: string, ctx: ToolContext, emit: (e: AgentEventBody) => void): Promise<void> {
    const prepared = turn.toolCalls.map((c) => prepareCall(c, this.opts.registry, correlationId));
    const cap = toolOutputCap(this.contextTokens, prepared.length);
    const results = await runToolCalls(prepared, this.opts.registry, ctx, {
      started: (p) => emit({ type: 'tool_call_started', call_id: p.call.id, tool: p.call.function.name, ...this.opts.registry.callFacts(p.call.function.name, p.args), args: p.args }),
      output: (p, text) => emit({ type: 'tool_output', call_id: p.call.id, text }),
      finished: (p, r, ms) =>
        emit({ type: 'tool_call_finished', call_id: p.call.id, tool: p.call.function.name, ok: r.ok, output: r.output, ...(r.data ? { data: r.data } : {}), ...(r.error ? { error: r.error } : {}), duration_ms: ms }),
    });
    // Every call gets its answer, in order, even when stopped: the conversation stays valid to resume.
    prepared.forEach((p, i) => this.messages.push({ role: 'tool', tool_call_id: p.call.id, content: truncateMiddle(results[i].output || (results[i].ok ? '(no output)' : 'Failed.'), cap) }));
  }

  private async compactIfNeeded(llm: LlmClient, system: ChatMessage, tools: ChatToolSpec[], prompt: string, signal: AbortSignal, emit: (e: AgentEventBody) => void): Promise<void> {
    const before = conversationTokens([system, ...this.messages], tools);
    if (before <= this.contextTokens * COMPACT_AT) return;
    const done = await compact(this.messages, { llm, contextTokens: this.contextTokens, currentPrompt: prompt, signal });
    if (!done) return;
    this.messages = done.messages;
    emit({ type: 'compacted', mode: done.mode, removed_messages: done.removed, tokens_before: before, tokens_after: conversationTokens([system, ...this.messages], tools) });
  }
}
