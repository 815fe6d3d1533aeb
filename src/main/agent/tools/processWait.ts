// process_wait: waits until a background process is ready (a line matches, a port accepts
// connections) or exits, or the timeout passes; comes back with the output so far either way.
import { z } from 'zod';
import { defineTool, type ToolResult } from './types';
import { DEFAULT_WAIT_MS, MAX_WAIT_MS, OUTPUT_CAP_BYTES, describeProcess, describeWait, processData, processManager, waitForSchema, waitedProcessSchema } from './processArgs';

const schema = z.object({
  id: z.string().min(1).describe('The process id (proc-N).'),
  wait_for: waitForSchema.describe('What to wait for: {"regex": "…"}, {"port": N} or {"exit": true}.'),
  timeout: z.number().int().min(1).max(MAX_WAIT_MS).optional().describe(`Milliseconds (default ${DEFAULT_WAIT_MS}); wait_for.timeout, when given, wins.`),
});

export const processWaitTool = defineTool({
  name: 'process_wait',
  title: 'Wait for a background process',
  effect: 'read',
  permission: null,
  correlated: false,
  idempotent: false,
  openWorld: false,
  summary: (args) => `${args.id} ${JSON.stringify(args.wait_for)}`,
  outputSchema: waitedProcessSchema,
  description: 'Wait until a background process prints a line matching a regex, accepts connections on a port, or exits; after the timeout it returns with the output so far and the process keeps running.',
  schema,
  async run(args, ctx): Promise<ToolResult> {
    const manager = processManager(ctx);
    const ms = args.wait_for.timeout ?? args.timeout ?? DEFAULT_WAIT_MS;
    const { timeout: _t, ...cond } = args.wait_for;
    const wait = await manager.wait(args.id, cond, ms, ctx.signal);
    const out = manager.output(args.id, { reader: ctx.session.id, maxBytes: OUTPUT_CAP_BYTES });
    const rest = `\n${describeProcess(out.info)}\n\n--- new output ---\n${out.text || '(none)'}`;
    const both = { output: describeWait(wait, args.wait_for, ms) + rest, for_person: describeWait(wait, args.wait_for, ms, 'person') + rest, data: { ...processData(out.info), wait } };
    if (wait.timed_out) return { ok: false, ...both, error: { code: 'TIMEOUT', message: `${args.id}: wait_for was not met within ${ms} ms; it is still running.`, for_person: `What it waited for did not happen within ${ms} ms; ${args.id} is still running.` } };
    return { ok: true, ...both };
  },
});
