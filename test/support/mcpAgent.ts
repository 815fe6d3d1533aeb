// The agent of a workspace with its MCP servers' tools among its own, against the scripted model:
// what the tests of server tools called by a model share.
import { LlmClient } from '../../src/main/agent/llm/client';
import type { ModelRow } from '../../src/main/agent/llm/config';
import { Agent } from '../../src/main/agent/loop/agentLoop';
import type { AgentEvent } from '../../src/main/agent/loop/events';
import { createToolContext } from '../../src/main/agent/tools/context';
import { mcpTools } from '../../src/main/agent/tools/mcpTool';
import { createToolRegistry } from '../../src/main/agent/tools/registry';
import type { WorkspaceServices } from '../../src/main/workspace/compose';
import type { ScriptedLlm } from './scriptedLlm';

export type Finished = Extract<AgentEvent, { type: 'tool_call_finished' }>;

export function mcpAgent(s: WorkspaceServices, llm: ScriptedLlm, modelRow?: ModelRow): { agent: Agent; finished: Record<string, Finished>; events: AgentEvent[] } {
  const { signal: _s, ...toolContext } = createToolContext(s, { corrector: null });
  const registry = createToolRegistry().withTools(() => mcpTools(s.mcp));
  const agent = new Agent({ llm: new LlmClient({ baseURL: llm.baseURL, apiKey: 'k', model: 'scripted', ...(modelRow ? { modelRow } : {}) }), registry, toolContext, systemPrompt: 'test' });
  const events: AgentEvent[] = [];
  const finished: Record<string, Finished> = {};
  agent.events.on((e) => {
    events.push(e);
    if (e.type === 'tool_call_finished') finished[e.call_id] = e;
  });
  return { agent, finished, events };
}
