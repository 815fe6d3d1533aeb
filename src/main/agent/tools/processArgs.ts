// What bash's run_in_background and the process_* tools share: the wait_for argument, the
// lookup of the workspace's process manager, and how a process reads for the model.
import { z } from 'zod';
import { LoupeError } from '../../errors';
import type { ProcessManager } from '../../services/processes/processManager';
import type { ProcessInfo, WaitResult } from '../../services/processes/types';
import type { ToolContext } from './types';
import { describeNetwork } from './sandboxRun';

export const DEFAULT_WAIT_MS = 60_000;
export const MAX_WAIT_MS = 600_000;
/** Output handed to the model per call; the newest is kept. */
export const OUTPUT_CAP_BYTES = 30 * 1024;

const timeout = z.number().int().min(1).max(MAX_WAIT_MS).optional().describe(`Milliseconds to wait (default ${DEFAULT_WAIT_MS}, max ${MAX_WAIT_MS}); then it returns with the output so far, the process still running.`);

export const waitForSchema = z.union([
  z.strictObject({ regex: z.string().min(1).describe('A line of its output matches this regular expression (e.g. "Local:.*http://").'), timeout }),
  z.strictObject({ port: z.number().int().min(1).max(65535).describe('This TCP port accepts connections.'), timeout }),
  z.strictObject({ exit: z.literal(true).describe('It exits.'), timeout }),
]);

export type WaitForArg = z.output<typeof waitForSchema>;

/** A background process in a tool's data: the contract's ProcessView, field for field. */
export const processSchema = z.looseObject({
  process_id: z.string(),
  command: z.string(),
  description: z.string().nullable(),
  cwd: z.string().describe("Workspace-relative folder ('' for the root)."),
  pid: z.number().int().nullable(),
  status: z.enum(['starting', 'running', 'ready', 'exited', 'killed']).describe('starting: waiting for its wait_for; running: nothing to wait for; ready: wait_for met.'),
  exit_code: z.number().int().nullable(),
  signal: z.string().nullable(),
  kill_reason: z.string().nullable(),
  sandboxed: z.boolean().describe('Whether it runs inside the OS sandbox.'),
  ports: z.array(z.number().int()).describe('Ports it listens on (inside the sandbox when sandboxed).'),
  forwards: z.array(z.looseObject({ port: z.number().int(), host_port: z.number().int() })).describe('Where this machine reaches its ports.'),
  started_at: z.string(),
  ended_at: z.string().nullable(),
  session_id: z.string(),
  correlation_id: z.string().nullable(),
  output_bytes: z.number().int(),
  log_path: z.string().nullable().describe('The full log, workspace-relative.'),
  network: z.looseObject({ reached: z.array(z.string()), refused: z.array(z.looseObject({ host: z.string(), reason: z.string() })) }).nullable(),
});

/** What a wait_for came to. */
export const waitResultSchema = z.looseObject({
  satisfied: z.boolean(),
  timed_out: z.boolean(),
  exited: z.boolean().describe('It ended before the condition was met (or that was the condition).'),
  matched_line: z.string().optional(),
  port: z.number().int().optional(),
});

/** A process result after a wait (bash's wait_for, process_wait). */
export const waitedProcessSchema = processSchema.extend({ wait: waitResultSchema });

export function processManager(ctx: ToolContext): ProcessManager {
  if (!ctx.processes) throw new LoupeError('INVALID_ARGUMENT', 'Background processes are not available here (no workspace services).');
  return ctx.processes;
}

/** The fields every process result carries in `data` (fixed names, processSchema). */
export function processData(info: ProcessInfo): Record<string, unknown> {
  return { ...info };
}

export function describeProcess(info: ProcessInfo): string {
  const state = info.status === 'exited' ? `exited ${info.exit_code ?? info.signal}` : info.status === 'killed' ? `killed (${info.kill_reason ?? 'stopped'})` : info.status;
  const where = info.forwards.length ? `; reachable from this machine at ${info.forwards.map((f) => `http://127.0.0.1:${f.host_port}/${f.host_port !== f.port ? ` (port ${f.port} inside)` : ''}`).join(', ')}` : '';
  return `${info.process_id} [${state}] ${info.command}${info.sandboxed ? ' (sandboxed)' : ''}${info.ports.length ? `; listens on ${info.ports.join(', ')}` : ''}${where}${describeNetwork(info.network)}`;
}

/** How a wait ended; the person's version says where to look instead of which tool to call. */
export function describeWait(r: WaitResult, cond: WaitForArg, ms: number, reader: 'model' | 'person' = 'model'): string {
  if (r.satisfied && r.matched_line !== undefined) return `Ready: a line matched: ${r.matched_line}`;
  if (r.satisfied && r.port !== undefined) return `Ready: port ${r.port} accepts connections.`;
  if (r.satisfied) return 'It exited.';
  const what = 'regex' in cond ? `a line matching /${cond.regex}/` : 'port' in cond ? `port ${cond.port}` : 'its exit';
  if (r.exited) return `It exited before ${what} appeared.`;
  if (r.timed_out) return `Waited ${ms} ms for ${what}: not yet. It is still running${reader === 'model' ? '; check again with process_wait or process_output, or stop it with process_kill' : ' (the Processes pane shows it)'}.`;
  return `Stopped waiting for ${what} (the request was cancelled); the process still runs.`;
}
