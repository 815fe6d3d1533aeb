// process_list: the workspace's background processes, running first.
import { z } from 'zod';
import { defineTool, type ToolResult } from './types';
import { describeProcess, processManager, processSchema } from './processArgs';

const schema = z.object({});

export const processListTool = defineTool({
  name: 'process_list',
  title: 'List background processes',
  effect: 'read',
  permission: null,
  correlated: false,
  idempotent: true,
  openWorld: false,
  summary: () => 'background processes',
  outputSchema: z.looseObject({ processes: z.array(processSchema) }),
  description: 'List the background processes started with run_in_background in this workspace: id, status (starting, running, ready, exited N, killed), command, ports and where they are reachable.',
  schema,
  async run(_args, ctx): Promise<ToolResult> {
    const all = processManager(ctx).list();
    const alive = (s: string) => (s === 'exited' || s === 'killed' ? 1 : 0);
    const processes = [...all].sort((a, b) => alive(a.status) - alive(b.status));
    const text = processes.length ? processes.map(describeProcess).join('\n') : 'No background processes. Start one with bash run_in_background: true.';
    const forPerson = processes.length ? {} : { for_person: 'No background processes.' };
    return { ok: true, output: text, ...forPerson, data: { processes } };
  },
});
