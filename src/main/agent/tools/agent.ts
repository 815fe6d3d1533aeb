// agent: starts a subagent — a child session with its own context, its definition's instructions
// and tools within this agent's own — and returns its final message, the files it changed and
// what it cost; or, in the background, its id at once (docs/architecture.md, "Subagents").
import { z } from 'zod';
import { childrenOf, outcomeResult, outcomeSchema } from './agentArgs';
import { defineTool, type ToolResult } from './types';

const schema = z.object({
  description: z.string().min(1).max(120).describe('What the agent is for, in 3-6 words (shown on its card and its approvals).'),
  prompt: z.string().min(1).describe('The task, complete: the agent sees nothing of this conversation but these words. Say what to answer with.'),
  agent_type: z.string().min(1).optional().describe('Which agent: one of the agent types in the system prompt (default general).'),
  isolation: z.enum(['worktree']).optional().describe('"worktree": it works in a git worktree of its own; its changes wait there for the person to review and apply.'),
  background: z.boolean().optional().describe('Return at once with the agent id and let it work while you go on; collect its result later by that id.'),
});

export const agentTool = defineTool({
  name: 'agent',
  title: 'Start a subagent',
  effect: 'execute',
  permission: null,
  correlated: false,
  idempotent: false,
  openWorld: false,
  delegates: true,
  summary: (args) => `${args.agent_type ?? 'general'}: ${args.description}${args.background ? ' (background)' : ''}`,
  outputSchema: outcomeSchema,
  description:
    'Start a subagent for a self-contained task: it works with its own context and its agent type\'s tools (never more than yours), then returns its final message, the files it changed and its tokens. Several calls in one turn run at the same time.',
  guidance:
    'Delegate searches of a large codebase and independent pieces of work; give each agent everything it needs in the prompt, since it sees nothing else. Its changes are this request\'s, shown and undone with it. Agents are limited in number, depth, turns and tokens: a refusal says which limit.',
  schema,
  async run(args, ctx): Promise<ToolResult> {
    const children = childrenOf(ctx);
    const started = await children.start({ description: args.description, prompt: args.prompt, agentType: args.agent_type, isolation: args.isolation, background: args.background, callId: ctx.callId ?? '' }, ctx.signal);
    if (args.background) {
      // The same shape as an outcome, so a client reads every result of this tool alike.
      const running = { agent_id: started.agentId, agent_type: args.agent_type ?? 'general', description: args.description, status: 'running' as const, text: '', turns: 0, tokens: 0, files: [] };
      return { ok: true, output: `Started agent ${started.agentId} (${args.description}) in the background. Collect its result by this id when you need it; it is stopped when this request ends.`, data: running };
    }
    return outcomeResult(await started.result);
  },
});
