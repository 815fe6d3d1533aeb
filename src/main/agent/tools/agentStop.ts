// agent_stop: stops a subagent of this request and returns what it did until then.
import { z } from 'zod';
import { AGENT_ID_ARG, FOLLOWS_CHILD, childrenOf, describeOutcome } from './agentArgs';
import { defineTool, type ToolResult } from './types';

const schema = z.object({
  id: AGENT_ID_ARG,
});

export const agentStopTool = defineTool({
  name: 'agent_stop',
  title: 'Stop a subagent',
  ...FOLLOWS_CHILD,
  description: 'Stop a subagent of this request (it and whatever it runs) and return what it had done: its last words, the files it changed, its tokens.',
  schema,
  async run(args, ctx): Promise<ToolResult> {
    const o = await childrenOf(ctx).stop(args.id);
    return { ok: true, output: describeOutcome(o), data: { ...o } };
  },
});
