// agent_wait: waits for a subagent of this request to finish and returns its result.
import { z } from 'zod';
import { AGENT_ID_ARG, FOLLOWS_CHILD, childrenOf, outcomeResult } from './agentArgs';
import { defineTool, type ToolResult } from './types';

const MAX_WAIT_MS = 600_000;

const schema = z.object({
  id: AGENT_ID_ARG,
  timeout_ms: z.number().int().min(1).max(MAX_WAIT_MS).optional().describe('Give up waiting after this long (it keeps running); default: until it ends.'),
});

export const agentWaitTool = defineTool({
  name: 'agent_wait',
  title: 'Wait for a subagent',
  ...FOLLOWS_CHILD,
  description: 'Wait for a subagent started in the background to finish, and return its final message, the files it changed and its tokens.',
  schema,
  async run(args, ctx): Promise<ToolResult> {
    return outcomeResult(await childrenOf(ctx).wait(args.id, ctx.signal, args.timeout_ms));
  },
});
