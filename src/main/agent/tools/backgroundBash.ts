// bash with run_in_background: the same permission and sandbox decision as a foreground command,
// then the process manager starts it and the call returns at once, or once wait_for is met (or
// times out), with the output so far. The process outlives the call and the request.
import path from 'node:path';
import type { Authorized } from '../../services/permissions/permissionGate';
import { sandboxPolicy } from './sandboxRun';
import { DEFAULT_WAIT_MS, OUTPUT_CAP_BYTES, describeProcess, describeWait, processData, processManager, type WaitForArg } from './processArgs';
import { correlationOf, type ToolContext, type ToolResult } from './types';

export interface BackgroundArgs {
  command: string;
  description?: string;
  wait_for?: WaitForArg;
  correlation_id?: string;
}

export async function runInBackground(args: BackgroundArgs, cwd: string, auth: Authorized, ctx: ToolContext): Promise<ToolResult> {
  const manager = processManager(ctx);
  const p = await manager.start(
    {
      command: args.command,
      cwd,
      description: args.description,
      sandbox: await sandboxPolicy(ctx, auth.sandbox, args.command, 'bash'),
      ...ctx.session.writer,
      // What it writes is recorded under this request when it ends.
      correlationId: correlationOf(ctx, args) ?? null,
    },
    !!args.wait_for,
  );
  const lines = [`Started ${p.id} in the background (pid ${p.pid}, in ${path.relative(ctx.root, cwd) || 'the workspace root'}).`];
  let waited = null;
  if (args.wait_for) {
    const ms = args.wait_for.timeout ?? DEFAULT_WAIT_MS;
    const { timeout: _t, ...cond } = args.wait_for;
    waited = await manager.wait(p.id, cond, ms, ctx.signal);
    lines.push(describeWait(waited, args.wait_for, ms));
  }
  const out = manager.output(p.id, { reader: ctx.session.id, maxBytes: OUTPUT_CAP_BYTES });
  lines.push(describeProcess(out.info));
  lines.push(`Its output is logged in full at ${out.info.log_path ?? '(no log file)'}; read new output with process_output("${p.id}").`);
  const text = `${lines.join('\n')}\n\n--- output so far${out.omitted ? ` (last ${OUTPUT_CAP_BYTES} bytes)` : ''} ---\n${out.text}`;
  const data = { ...processData(out.info), ...(waited ? { wait: waited } : {}) };
  if (waited?.timed_out) return { ok: false, output: text, data, error: { code: 'TIMEOUT', message: `wait_for was not met within ${args.wait_for!.timeout ?? DEFAULT_WAIT_MS} ms; ${p.id} is still running.` } };
  return { ok: true, output: text, data };
}
