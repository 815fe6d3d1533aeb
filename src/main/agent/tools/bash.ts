// bash: one command in the user's shell, after the permission engine has
// seen every command inside it; output streamed while it runs, returned capped with the tail
// kept, and nothing it started left running afterwards.
import path from 'node:path';
import { InvalidArgumentError } from '../../errors';
import { z } from 'zod';
import { DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, runCommand } from '../../services/shell/commandRunner';
import { formatCommandResult } from '../../services/shell/formatResult';
import { resolveInWorkspace } from '../../services/workspace/pathGuard';
import { correlationOf, defineTool, type ToolContext, type ToolResult } from './types';
import { SANDBOX_ARG_DESCRIPTION, describeNetwork, sandboxBlockedError, sandboxPolicy } from './sandboxRun';
import { CORRELATION_ARG, changesData, changesSchema, describeChanges } from './commandChanges';
import { runInBackground } from './backgroundBash';
import { processSchema, waitForSchema, waitResultSchema } from './processArgs';
import { defined, take } from './claudeShapes';

/** Hosts that show live output set this on the context (the chat's tool card, the MCP progress). */
export interface ToolOutputHook {
  onToolOutput?: (tool: string, text: string) => void;
}

const schema = z.object({
  command: z.string().min(1).describe('The command line to run (POSIX shell syntax).'),
  timeout: z.number().int().min(1).max(MAX_TIMEOUT_MS).optional().describe(`Milliseconds before the command and everything it started are killed (default ${DEFAULT_TIMEOUT_MS}, max ${MAX_TIMEOUT_MS}).`),
  workdir: z.string().optional().describe('Folder to run in, relative to the workspace (default: the workspace root).'),
  description: z.string().describe('What the command does, in 5-10 words (shown to the user).'),
  sandbox: z.boolean().optional().describe(SANDBOX_ARG_DESCRIPTION),
  correlation_id: CORRELATION_ARG,
  run_in_background: z.boolean().optional().describe('Start it and return at once with a process id (proc-N): for dev servers, watchers and long builds. It keeps running after the call; see process_list, process_output, process_wait, process_kill.'),
  wait_for: waitForSchema.optional().describe('With run_in_background: return once it is ready (a regex on its output, a port accepting connections, or its exit), or after the timeout with the output so far.'),
});

/** A command that ran to its end (or was stopped). */
const foregroundSchema = z.looseObject({
  exit_code: z.number().int().nullable(),
  signal: z.string().nullable(),
  timed_out: z.boolean(),
  aborted: z.boolean(),
  duration_ms: z.number(),
  output_bytes: z.number().int(),
  truncated: z.boolean(),
  binary: z.boolean(),
  full_output_path: z.string().nullable().describe('The whole output, workspace-relative, when it was cut.'),
  sandboxed: z.boolean().describe('Whether it ran inside the OS sandbox.'),
  blocked: z.string().nullable().describe('What the sandbox stopped, when that made the command fail.'),
  changes: changesSchema.optional(),
  network: z.looseObject({ reached: z.array(z.string()), refused: z.array(z.looseObject({ host: z.string(), reason: z.string() })) }).nullable().optional().describe("Hosts the sandbox's proxy let through or refused (with a network rule)."),
});

/** run_in_background: the process started, and with wait_for what the wait came to. */
export const backgroundSchema = processSchema.extend({ wait: waitResultSchema.optional().describe('With wait_for: whether it was met, timed out, or the process exited first.') });

const outputSchema = z.union([foregroundSchema, backgroundSchema]);

export const bashTool = defineTool({
  name: 'bash',
  title: 'Run a shell command',
  effect: 'execute',
  permission: 'bash',
  correlated: true,
  idempotent: false,
  openWorld: true,
  summary: (args) => args.command,
  paths: (args) => [args.workdir],
  outputSchema,
  description:
    'Run a shell command in the workspace (stdin closed, no pager, no prompts; CI=1). Needs the user\u2019s approval unless a rule allows it; ' +
    'compound commands need every part allowed. Files it creates, changes or deletes are recorded as modifications (undoable like edits). Long output keeps its start and end and the full text is saved under .loupe/outputs/. ' +
    `Timeout ${DEFAULT_TIMEOUT_MS} ms by default (max ${MAX_TIMEOUT_MS}). When the command returns or times out, every process it started is ` +
    'killed, background jobs included: to start a dev server, a watcher or a long build, pass run_in_background (with wait_for to return once it is ready).',
  schema,
  claudeCode: {
    name: 'Bash',
    input: (a) => defined({ command: a.command, description: a.description, timeout: a.timeout, run_in_background: a.run_in_background }),
    args: (i, was) => ({ ...was, command: take(i, 'command', was.command), description: take(i, 'description', was.description), timeout: take(i, 'timeout', was.timeout), run_in_background: take(i, 'run_in_background', was.run_in_background) }),
  },
  async run(args, ctx: ToolContext & ToolOutputHook): Promise<ToolResult> {
    const cwd = (await resolveInWorkspace(ctx.root, args.workdir ?? '')).abs;
    const auth = await ctx.permissions.authorize({
      query: { kind: 'bash', command: args.command, cwd },
      tool: 'bash',
      summary: args.command,
      signal: ctx.signal,
      ...(args.sandbox === false ? { outsideSandbox: true } : {}),
      ...(args.run_in_background ? { background: true } : {}),
    });
    if (args.run_in_background) return runInBackground(args, cwd, auth, ctx);
    if (args.wait_for) throw new InvalidArgumentError('wait_for needs run_in_background: true (a foreground command returns when it ends).');
    const timeoutMs = args.timeout ?? DEFAULT_TIMEOUT_MS;
    const sandbox = await sandboxPolicy(ctx, auth.sandbox, args.command, 'bash');
    const { value: r, capture } = await ctx.captures.around(
      { tool: 'bash', command: args.command, ...ctx.session.writer, correlationId: correlationOf(ctx, args), reason: args.description, signal: ctx.signal },
      () =>
        runCommand({
          command: args.command,
          cwd,
          timeoutMs,
          signal: ctx.signal,
          sandbox,
          outputDir: path.join(ctx.root, '.loupe', 'outputs'),
          onOutput: ctx.onToolOutput && ((text) => ctx.onToolOutput!('bash', text)),
        }),
    );
    const changed = describeChanges(capture);
    const output = formatCommandResult(r, ctx.root, timeoutMs) + describeNetwork(r.network) + (changed ? `\n${changed}` : '');
    const seen = describeChanges(capture, 'person');
    const forPerson = formatCommandResult(r, ctx.root, timeoutMs, 'person') + describeNetwork(r.network) + (seen ? `\n${seen}` : '');
    const data = {
      exit_code: r.exitCode,
      signal: r.signal,
      timed_out: r.timedOut,
      aborted: r.aborted,
      duration_ms: r.durationMs,
      output_bytes: r.totalBytes,
      truncated: r.truncated,
      binary: r.binary,
      full_output_path: r.logFile ? path.relative(ctx.root, r.logFile).split(path.sep).join('/') : null,
      sandboxed: r.sandboxed,
      blocked: r.blocked,
      changes: changesData(capture),
      network: r.network,
    };
    const both = { output, for_person: forPerson, data };
    if (r.timedOut) return { ok: false, ...both, error: { code: 'TIMEOUT', message: `Timed out after ${timeoutMs} ms; every process it started was killed.` } };
    if (r.aborted) return { ok: false, ...both, error: { code: 'ABORTED', message: 'The command was cancelled.' } };
    if (r.blocked) return { ok: false, ...both, error: sandboxBlockedError('bash', r.blocked) };
    return { ok: true, ...both };
  },
});
