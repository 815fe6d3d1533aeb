// An agent on a real temp workspace, with the real tool registry, talking through the real
// openai client to the scripted server. Events are collected for assertions.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { LlmClient } from '../../src/main/agent/llm/client';
import { Agent, type AgentOptions } from '../../src/main/agent/loop/agentLoop';
import type { AgentEvent } from '../../src/main/agent/loop/events';
import { createToolContext } from '../../src/main/agent/tools/context';
import { AgentHooks } from '../../src/main/agent/hooks/agentHooks';
import type { UserSettings } from '../../src/main/services/settings/userSettings';
import { testServices } from '../support/services';
import { createToolRegistry } from '../../src/main/agent/tools/registry';
import type { ApprovalQueue } from '../../src/main/services/permissions/approvalQueue';
import { startScriptedLlm, type ScriptedLlm, type ServerOptions } from '../support/scriptedLlm';
import type { LlmConfig } from '../../src/main/agent/llm/config';
import { git, tempDir, writeTree } from '../support/tmp';
import { testTrust } from '../support/trust';

export interface AgentHarness {
  root: string;
  llm: ScriptedLlm;
  agent: Agent;
  queue: ApprovalQueue;
  /** The workspace's services the tools use (processes, modlog…). */
  services: ReturnType<typeof testServices>;
  events: AgentEvent[];
  of<T extends AgentEvent['type']>(type: T): Extract<AgentEvent, { type: T }>[];
  cleanup(): Promise<void>;
}

export interface AgentHarnessOptions extends Partial<Omit<AgentOptions, 'llm' | 'toolContext'>> {
  files?: Record<string, string>;
  git?: boolean;
  /** How the approval queue behaves when nobody answers. */
  unattended?: 'wait' | 'deny';
  /** The user's "sandbox" setting; unset, commands run inside the sandbox where one works. */
  sandbox?: 'auto' | 'off';
  /** How the scripted server speaks (its usage reports, its /models). */
  server?: ServerOptions;
  /** More of the model's settings (the model table's row, a context window). */
  config?: Partial<LlmConfig>;
  /** The workspace's hooks run around this agent's requests, as the app's sessions have them. */
  withHooks?: boolean;
  /** The environment the workspace's services see (HOME for `~/.claude/settings.json`). */
  env?: NodeJS.ProcessEnv;
  /** The user's settings to use (a test that writes hooks or approvals there); default: a fresh config folder. */
  user?: UserSettings;
}

export async function agentHarness(opts: AgentHarnessOptions = {}): Promise<AgentHarness> {
  const { dir, cleanup } = await tempDir('loupe-agent-');
  const root = path.join(dir, 'ws');
  await mkdir(root);
  if (opts.git) git(root, 'init', '-q');
  await writeTree(root, opts.files ?? {});
  const llm = await startScriptedLlm([], opts.server);
  const client = new LlmClient({ baseURL: llm.baseURL, apiKey: 'k', model: 'scripted', ...opts.config }, { retry: { baseDelayMs: 5, maxDelayMs: 50 } });
  const user = testTrust({ sandbox: opts.sandbox });
  const services = testServices(root, { user: opts.user ?? user.store, asker: { kind: opts.unattended === 'wait' ? 'person' : 'deny' }, ...(opts.env ? { env: opts.env } : {}) });
  const queue = services.queue;
  const { signal: _s, ...toolContext } = createToolContext(services, { corrector: null });
  const { server: _server, config: _config, withHooks, user: _user, env: _env, ...agentOpts } = opts;
  const hooks = withHooks ? new AgentHooks(services.hooks, { root, sessionId: toolContext.session.id }) : undefined;
  const agent = new Agent({ llm: client, registry: opts.registry ?? createToolRegistry(), toolContext, systemPrompt: 'You are a test agent.', ...(hooks ? { hooks } : {}), ...agentOpts });
  const events: AgentEvent[] = [];
  agent.events.on((e) => events.push(e));
  return {
    root,
    llm,
    agent,
    queue,
    services,
    events,
    of: <T extends AgentEvent['type']>(type: T) => events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type),
    cleanup: async () => {
      await llm.close();
      user.cleanup();
      await cleanup();
    },
  };
}

/** The tool messages of a recorded request, by call id. */
export function toolMessages(body: { messages?: { role: string; content: unknown; tool_call_id?: string }[] }): Record<string, string> {
  return Object.fromEntries((body.messages ?? []).filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, String(m.content)]));
}

export const call = (id: string, name: string, args: unknown) => ({ id, name, arguments: typeof args === 'string' ? args : JSON.stringify(args) });
