// The system prompt's sources for one open workspace: its sandbox as the settings show it, its
// network rules, its read rules (an instruction file the person keeps from the agent is not
// read), and the person's own instructions beside their settings.
import path from 'node:path';
import { describeRule } from '../../services/permissions/types';
import type { WorkspaceServices } from '../../workspace/compose';
import type { ToolRegistry } from '../tools/registry';
import { systemPromptSource, type SystemPromptSource } from './systemPrompt';

export function workspacePromptSource(services: WorkspaceServices, registry: ToolRegistry): SystemPromptSource {
  return systemPromptSource({
    root: services.root,
    registry,
    personalDir: path.dirname(services.user.file),
    sandbox: async () => ({
      status: await services.sandboxStatus(),
      networkAllowed: (await services.engine.rules()).filter((r) => r.kind === 'network' && r.action === 'allow').map((r) => r.pattern),
    }),
    readRefusal: async (rel) => {
      const d = await services.engine.decide({ kind: 'read', path: rel });
      if (d.action === 'allow') return null;
      const by = d.rule ? `the rule ${describeRule(d.rule)}` : 'the default';
      return d.action === 'deny' ? `reading it is denied by ${by}, so it is not read` : `reading it needs approval (${by}), so it is not read`;
    },
  });
}
