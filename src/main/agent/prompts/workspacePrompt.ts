// The system prompt's sources for one open workspace: its sandbox as the settings show it, its
// network rules, its read rules (an instruction file the person keeps from the agent is not
// read, with the same answer a search gives), and the person's own instructions beside their
// settings.
import path from 'node:path';
import { readRefusal } from '../../services/permissions/readRefusal';
import type { WorkspaceServices } from '../../services/workspaceServices';
import type { ToolRegistry } from '../tools/registry';
import type { AgentTypeView } from '../subagents/types';
import { systemPromptSource, type SystemPromptSource } from './systemPrompt';

export interface WorkspacePromptExtras {
  /** A subagent's part of the prompt (who started it, its definition's instructions). */
  role?: string;
  /** The agent types the session may start. */
  agentTypes?: () => Promise<AgentTypeView[]>;
}

export function workspacePromptSource(services: WorkspaceServices, registry: ToolRegistry, extras: WorkspacePromptExtras = {}): SystemPromptSource {
  return systemPromptSource({
    root: services.root,
    registry,
    ...extras,
    personalDir: path.dirname(services.user.file),
    sandbox: async () => ({
      status: await services.sandboxStatus(),
      networkAllowed: (await services.engine.rules()).filter((r) => r.kind === 'network' && r.action === 'allow').map((r) => r.pattern),
    }),
    readRules: readRefusal(services.engine),
    // A skill only the person may call (`disable-model-invocation`) is not offered to the agent.
    skills: async () => (await services.skills.list()).skills.filter((k) => !k.personOnly).map((k) => ({ name: k.name, description: k.description, scope: k.scope })),
  });
}
