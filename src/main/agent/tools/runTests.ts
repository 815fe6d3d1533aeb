// run_tests: the project's test command (config per language, else detected) or the model's
// own test_command. Running tests runs code the model may just have written (a package.json
// script, a conftest.py), so every run is a `test` permission whose card shows the exact
// command line and, for npm, the scripts it will run. Results are parsed and attached to
// every modification of the correlation.
import { z } from 'zod';
import { recordTestResults } from '../../services/modlog/facts';
import { describeTestCommand, resolveTestCommand, type TestCommand } from '../../services/tests/detect';
import { runTestCommand, type TestRun } from '../../services/tests/runTests';
import type { ToolOutputHook } from './bash';
import { correlationOf, defineTool, type ToolContext, type ToolResult } from './types';
import { SANDBOX_ARG_DESCRIPTION, sandboxBlockedError, sandboxPolicy } from './sandboxRun';
import { changesData, changesSchema, describeChanges } from './commandChanges';
import type { CaptureResult } from '../../services/snapshots/commandCapture';

const schema = z.object({
  test_file: z.string().optional().describe('Run only this test file (workspace-relative).'),
  test_command: z.string().min(1).optional().describe('A command to run instead of the configured one (needs permission, as every test run does).'),
  correlation_id: z.string().optional().describe('Attach the results to this request’s modifications; files the run changes are recorded under it.'),
  timeout_ms: z.number().int().min(1).max(600_000).optional().describe('Milliseconds before the tests and everything they started are killed (default 30000).'),
  sandbox: z.boolean().optional().describe(SANDBOX_ARG_DESCRIPTION),
});

export type RunTestsArgs = z.output<typeof schema>;


export async function runTestsFor(args: RunTestsArgs, ctx: ToolContext & ToolOutputHook): Promise<TestRun & { source: TestCommand['source']; recorded_for: string[]; changes: CaptureResult }> {
  const gate = ctx.permissions;
  const correlationId = correlationOf(ctx, args);
  // The gate's view of the config: no configured commands while the folder is untrusted.
  const { config } = await gate.project();
  const resolved: TestCommand = args.test_command
    ? { command: args.test_command, language: null, source: 'argument' }
    : await resolveTestCommand(ctx.root, config, args.test_file);
  const summary = await describeTestCommand(ctx.root, resolved.command);
  const auth = await gate.authorize({
    query: { kind: 'test', command: resolved.command, cwd: ctx.root },
    tool: 'run_tests',
    summary,
    signal: ctx.signal,
    ...(args.sandbox === false ? { outsideSandbox: true } : {}),
  });
  const sandbox = await sandboxPolicy(ctx, auth.sandbox, resolved.command, 'run_tests');
  const { value: run, capture } = await ctx.captures.around({ tool: 'run_tests', command: resolved.command, ...ctx.session.writer, correlationId, signal: ctx.signal }, () =>
    runTestCommand({
      root: ctx.root,
      command: resolved.command,
      timeoutMs: args.timeout_ms ?? config.limits?.test_timeout_ms,
      signal: ctx.signal,
      sandbox,
      onOutput: ctx.onToolOutput && ((text) => ctx.onToolOutput!('run_tests', text)),
    }),
  );
  const recorded = correlationId
    ? await recordTestResults(ctx.modlog, correlationId, {
        status: run.status,
        command: run.command,
        passed: run.tests_passed,
        failed: run.tests_failed,
        skipped: run.tests_skipped,
        failing: run.failing_tests,
        duration_ms: run.duration_ms,
      }, capture.group_id)
    : [];
  return { ...run, source: resolved.source, recorded_for: recorded, changes: capture };
}

export function summariseRun(run: TestRun): string {
  const counts = `${run.tests_passed} passed, ${run.tests_failed} failed, ${run.tests_skipped} skipped`;
  const failing = run.failing_tests.length ? `\nFailing: ${run.failing_tests.slice(0, 20).join('; ')}` : '';
  return `Tests ${run.status} (${counts}) in ${run.duration_ms} ms: ${run.command}${failing}`;
}

const outputSchema = z.looseObject({
  status: z.enum(['success', 'failed', 'timeout', 'aborted', 'error']),
  command: z.string(),
  tests_passed: z.number().int(),
  tests_failed: z.number().int(),
  tests_skipped: z.number().int(),
  failing_tests: z.array(z.string()),
  exit_code: z.number().int().nullable(),
  duration_ms: z.number(),
  recorded_for: z.array(z.string()).describe('The modifications the results were attached to.'),
  sandboxed: z.boolean().describe('Whether it ran inside the OS sandbox.'),
  blocked: z.string().nullable().describe('What the sandbox stopped, when that made the run fail.'),
  changes: changesSchema,
});

export const runTestsTool = defineTool({
  name: 'run_tests',
  title: 'Run the tests',
  effect: 'execute',
  permission: 'test',
  correlated: true,
  idempotent: false,
  openWorld: false,
  summary: (args) => args.test_command ?? args.test_file ?? 'the configured tests',
  paths: (args) => [args.test_file],
  guidance: 'Run tests with this tool rather than a shell command: it finds the project’s test command, reads the results and attaches them to your changes.',
  outputSchema,
  description:
    'Run the project’s tests (the command from .loupe/config.json "tests" for the language, else the package.json test script, pytest or go test), ' +
    'optionally one test_file. Returns passed/failed/skipped counts and failing test names; with correlation_id the results are attached to that ' +
    'request’s modifications. Default timeout 30 s, after which every process the tests started is killed.',
  schema,
  async run(args, ctx): Promise<ToolResult> {
    const run = await runTestsFor(args, ctx);
    const correlationId = correlationOf(ctx, args);
    const data = { ...run, changes: changesData(run.changes), ...(correlationId ? { correlation_id: correlationId } : {}) };
    const changed = describeChanges(run.changes);
    const text = `${summariseRun(run)}\n\n${run.output}${changed ? `\n\n${changed}` : ''}`;
    if (run.status === 'timeout') return { ok: false, output: text, data, error: { code: 'TIMEOUT', message: `The tests timed out after ${args.timeout_ms ?? 30000} ms; every process they started was killed.` } };
    if (run.status === 'aborted') return { ok: false, output: text, data, error: { code: 'ABORTED', message: 'The test run was cancelled.' } };
    if (run.blocked) return { ok: false, output: text, data, error: sandboxBlockedError('run_tests', run.blocked) };
    // Failing tests are a result, not a tool failure: the model reads the counts and the output.
    return { ok: true, output: text, data };
  },
});
