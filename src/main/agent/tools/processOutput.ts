// process_output: what a background process printed. By default only what is new since this
// chat (or connection) last read it; `since`, `tail` and `grep` ask for something else.
import { z } from 'zod';
import { InvalidArgumentError } from '../../errors';
import { defineTool, type ToolResult } from './types';
import { OUTPUT_CAP_BYTES, describeProcess, processData, processManager, processSchema } from './processArgs';

const schema = z.object({
  id: z.string().min(1).describe('The process id (proc-N).'),
  since: z.number().int().min(0).optional().describe('Byte offset to read from (0: from the start); a previous result gives next_since. Default: where you last read.'),
  tail: z.number().int().min(1).max(10_000).optional().describe('Only the last N lines (of the whole output unless since is given).'),
  grep: z.string().min(1).optional().describe('Only lines matching this regular expression (in the whole output unless since is given).'),
});

export const processOutputTool = defineTool({
  name: 'process_output',
  title: 'Read a background process’s output',
  effect: 'read',
  permission: null,
  correlated: false,
  idempotent: false,
  openWorld: false,
  summary: (args) => `${args.id}${args.grep ? ` /${args.grep}/` : ''}${args.tail ? ` last ${args.tail} lines` : ''}`,
  outputSchema: processSchema.extend({
    next_since: z.number().int().describe('Pass as since to continue from here.'),
    omitted_bytes: z.number().int(),
  }),
  description:
    'Read the output of a background process (one started with run_in_background). Without arguments: only what is new since you last read it. ' +
    `tail: the last N lines; grep: only matching lines; since: from a byte offset. At most ${OUTPUT_CAP_BYTES / 1024} KB come back (the newest); the full log is under .loupe/outputs/processes/.`,
  schema,
  async run(args, ctx): Promise<ToolResult> {
    let grep: RegExp | undefined;
    if (args.grep) {
      try {
        grep = new RegExp(args.grep);
      } catch (err) {
        throw new InvalidArgumentError(`grep is not a valid regular expression: ${(err as Error).message}`);
      }
    }
    const r = processManager(ctx).output(args.id, { reader: ctx.session.id, since: args.since, tail: args.tail, grep, maxBytes: OUTPUT_CAP_BYTES });
    const head = describeProcess(r.info);
    const notes = [r.omitted ? `(${r.omitted} earlier bytes not shown)` : '', r.lost ? `(${r.lost} bytes are no longer kept: the log stopped at its cap)` : ''].filter(Boolean).join(' ');
    const body = r.text || (args.grep ? '(no matching lines)' : '(no new output)');
    return { ok: true, output: `${head}\n${notes ? `${notes}\n` : ''}${body}`, data: { ...processData(r.info), next_since: r.to, omitted_bytes: r.omitted, lost_bytes: r.lost } };
  },
});
