// process_kill: stops a background process and everything it started (SIGTERM, or the signal
// asked for; SIGKILL to whatever is left after a grace period).
import { z } from 'zod';
import { defineTool, type ToolResult } from './types';
import { describeProcess, processData, processManager, processSchema } from './processArgs';

const SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT', 'SIGKILL'] as const;

const schema = z.object({
  id: z.string().min(1).describe('The process id (proc-N).'),
  signal: z.enum(SIGNALS).optional().describe('The first signal (default SIGTERM); whatever is still alive 2 s later gets SIGKILL.'),
});

export const processKillTool = defineTool({
  name: 'process_kill',
  title: 'Stop a background process',
  effect: 'execute',
  permission: null,
  correlated: false,
  idempotent: true,
  openWorld: false,
  summary: (args) => `${args.id}${args.signal ? ` ${args.signal}` : ''}`,
  outputSchema: processSchema,
  description: 'Stop a background process and every process it started (the whole family, SIGKILL after a 2 s grace period). Stopping one that already ended changes nothing.',
  schema,
  async run(args, ctx): Promise<ToolResult> {
    const info = await processManager(ctx).kill(args.id, args.signal ?? 'SIGTERM');
    return { ok: true, output: describeProcess(info), data: processData(info) };
  },
});
