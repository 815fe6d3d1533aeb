// Loupe's own loop as a session's runner: each request gets an Agent over the session's
// conversation, the workspace's tools (its MCP servers' included, as they are at each use) and
// the model as the settings say it when the request starts.
import type { WorkspaceServices } from '../../services/workspaceServices';
import type { FileSession } from '../../services/files/readTracker';
import type { Logger } from '../../services/log/logger';
import { LlmEditCorrector } from '../edit/corrector';
import { LlmClient } from '../llm/client';
import type { LlmConfig } from '../llm/config';
import { createJsonChat } from '../llm/jsonChat';
import { Agent } from '../loop/agentLoop';
import { sessionUsageFrom } from '../loop/usage';
import { workspacePromptSource } from '../prompts/workspacePrompt';
import { toolContextOf } from '../tools/context';
import type { ToolRegistry } from '../tools/registry';
import type { EditorBuffers } from '../tools/types';
import type { RunnerReadiness, RunnerRequest, RunnerResult, RunnerState, SessionRunner } from './types';
import { now, type AgentEvent, type AgentEventBody } from '../loop/events';
import { AgentHooks } from '../hooks/agentHooks';
import type { PermissionGate } from '../../services/permissions/permissionGate';
import type { ChildrenFactory } from '../subagents/types';

export interface LoupeRunnerOptions {
  services: WorkspaceServices;
  /** The session's read tracking: what its tools have read, for read-before-edit. */
  files: FileSession;
  /** The tools as they are now (Loupe's and the workspace's MCP servers'). */
  tools: () => ToolRegistry;
  /** The model as the settings and the environment say it now; null when none is connected. */
  model: () => Promise<LlmConfig | null>;
  /** Throws the "no model" error, saying which local servers were found. */
  noModel: () => Promise<never>;
  logger: Logger;
  maxTurns?: number;
  /** Keeps a plan-mode answer as the session's Markdown artifact; returns its workspace-relative path. */
  savePlan: (correlationId: string, text: string) => Promise<string>;
  /** The gate its tools ask (a subagent's is its parent's, narrowed); default: the workspace's. */
  permissions?: PermissionGate;
  /** A subagent's part of the system prompt: who started it, its definition's instructions. */
  role?: string;
  /** Makes each request's children (subagents); absent or null: this session starts none, and is not offered the tools that would. */
  children?: ChildrenFactory;
  /** This session is a subagent: its hooks fire SubagentStart and SubagentStop instead of SessionStart and Stop, and no SessionEnd. */
  agent?: { type: string; transcriptPath: string };
  /** The person's editor's copy of files (an ACP client's), read instead of the disk where it differs. */
  buffers?: EditorBuffers;
}

export class LoupeRunner implements SessionRunner {
  readonly agent = 'loupe';
  /** The model client `ready` made, used by the request that follows it. */
  private prepared: { config: LlmConfig; llm: LlmClient } | null = null;
  private readonly hooks: AgentHooks;
  /** SessionStart has fired for this session in this process (its first request here). */
  private started = false;
  /** The MCP servers this session's model was last told are not running, with why: told again only when that changes. */
  private toldMissing = new Map<string, string>();

  constructor(private readonly opts: LoupeRunnerOptions) {
    // A subagent's hooks name the session whose request it serves, and the subagent itself.
    const agent = opts.agent ? { agent_id: opts.files.id, agent_type: opts.agent.type, agent_transcript_path: opts.agent.transcriptPath } : undefined;
    this.hooks = new AgentHooks(opts.services.hooks, { root: opts.services.root, sessionId: opts.files.writer.sessionId, ...(agent ? { agent } : {}) });
  }

  private async client(): Promise<{ config: LlmConfig; llm: LlmClient }> {
    const config = (await this.opts.model()) ?? (await this.opts.noModel());
    return { config, llm: new LlmClient(config) };
  }

  async ready(opts: { images: boolean }): Promise<RunnerReadiness> {
    this.prepared = await this.client();
    // The server's /models is asked only when an image needs its answer.
    const facts = opts.images ? await this.prepared.llm.facts() : null;
    return { images: facts?.images ?? false, model: this.prepared.config.model };
  }

  async run(request: RunnerRequest, state: RunnerState, emit: (event: AgentEvent) => void): Promise<RunnerResult> {
    const { config, llm } = this.prepared ?? (await this.client());
    this.prepared = null;
    const { services, files } = this.opts;
    // While the model thinks: the first command's snapshot is the one that reads every file.
    services.captures.warm();
    const own = toolContextOf(services, {
      session: files,
      corrector: new LlmEditCorrector(createJsonChat(config), this.opts.logger),
      ...(this.opts.buffers ? { buffers: this.opts.buffers } : {}),
    });
    const permissions = this.opts.permissions ?? own.permissions;
    const offered = this.opts.tools();
    let agent: Agent | null = null;
    const children =
      this.opts.children?.({
        correlationId: request.correlationId,
        mode: request.mode,
        signal: request.signal,
        emit,
        registry: offered,
        permissions: permissions.inMode(request.mode),
        count: (spent) => {
          // The session pays for its children: the meter's totals move, its conversation stays.
          if (!agent) return;
          agent.usage.child(spent);
          if (agent.usage.last) emit({ type: 'usage', usage: agent.usage.last, correlation_id: request.correlationId, t: now() });
        },
      }) ?? null;
    // Without children to start, the tools that start them are not offered.
    const registry = children ? offered : offered.only((t) => !t.delegates);
    const { signal: _own, ...toolContext } = { ...own, permissions, ...(children ? { subagents: children } : {}) };
    const usage = state.usage;
    agent = new Agent(
      {
        llm,
        registry,
        toolContext,
        prompt: workspacePromptSource(services, registry, { role: this.opts.role, ...(children ? { agentTypes: () => children.types() } : {}) }),
        announcedPrompt: state.announcedPrompt,
        maxTurns: this.opts.maxTurns,
        usage: { session: usage?.session === undefined ? undefined : sessionUsageFrom(usage.session), last: usage?.last },
        savePlan: this.opts.savePlan,
        hooks: this.hooks,
      },
      state.messages,
    );
    // A session's first request in this process starts it: a new one, or one saved before (resumed).
    const sessionStart = this.started ? undefined : (run: Parameters<AgentHooks['sessionStart']>[2]) => this.hooks.sessionStart(state.messages.length ? 'resume' : 'startup', config.model, run);
    this.started = true;
    const running = agent;
    const off = running.events.on((event) => {
      if (event.type === 'system_prompt') state.announcedPrompt = event.text;
      // Brought up to date before anyone hears the request is over, so they can save it then.
      if (event.type === 'request_finished') {
        state.messages = running.messages;
        state.usage = { session: running.usage.session, ...(running.usage.last ? { last: running.usage.last } : {}) };
      }
      emit(event);
    });
    try {
      if (request.compact) return await running.compactNow({ signal: request.signal, correlationId: request.correlationId, prompt: request.prompt });
      return await running.run(request.prompt, {
        signal: request.signal,
        correlationId: request.correlationId,
        mode: request.mode,
        content: request.content,
        steering: request.steering,
        ...(sessionStart ? { sessionStart } : {}),
        ...(request.grants ? { grants: request.grants } : {}),
        ...(children ? { delegated: children } : {}),
        toolsReady: (say, signal) => this.serversReady(say, signal),
      });
    } finally {
      off();
    }
  }

  /**
   * A request waits for the MCP servers on their way (a restart, a start card, a slow start), so
   * its model gets their tools; servers that stay down are said to the person and, when that
   * changed since this session last heard, to the model.
   */
  private async serversReady(say: (e: AgentEventBody) => void, signal: AbortSignal): Promise<string[]> {
    const missing = await this.opts.services.mcp.allSettled(signal, (server, why) => say({ type: 'notice', text: `Waiting for the MCP server "${server}" before asking the model (${why})…` }));
    const news = missing.filter((m) => this.toldMissing.get(m.server) !== m.why);
    this.toldMissing = new Map(missing.map((m) => [m.server, m.why]));
    if (!news.length) return [];
    const each = news.map((m) => `"${m.server}" (${m.why.length > 300 ? `${m.why.slice(0, 300)}…` : m.why})`).join(', ');
    say({ type: 'notice', text: `Not offered to the agent: the tools of the MCP server${news.length === 1 ? '' : 's'} ${each}.` });
    return [`The MCP server${news.length === 1 ? '' : 's'} ${each} ${news.length === 1 ? 'is' : 'are'} not running, so ${news.length === 1 ? 'its' : 'their'} tools are not available now.`];
  }

  async dispose(why: 'deleted' | 'closed' = 'closed'): Promise<void> {
    this.prepared = null;
    if (!this.started) return;
    this.started = false;
    if (this.hooks.forAgent) return;
    // Nobody watches a closed session's chat: SessionEnd's hooks run, their answers are in the settings.
    await this.hooks.sessionEnd(why === 'deleted' ? 'clear' : 'other', { emit: () => undefined }).catch((err: unknown) => this.opts.logger.warn('hooks.session_end_failed', { error: err }));
  }
}
