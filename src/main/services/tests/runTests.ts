// Runs a test command with the shell runner (process-tree kill on timeout or abort) and
// turns its output into counts. Knows nothing of who asked or where results are recorded.
import path from 'node:path';
import { runCommand } from '../shell/commandRunner';
import type { SandboxPolicy } from '../sandbox/bwrapPolicy';
import { formatCommandResult } from '../shell/formatResult';
import { DEFAULT_TEST_TIMEOUT_MS } from '../config/loupeConfig';
import { parseTestOutput, type ParsedTests } from './parse';

export interface TestRunOptions {
  root: string;
  command: string;
  timeoutMs?: number;
  signal?: AbortSignal;
  onOutput?: (text: string) => void;
  /** Run inside the OS sandbox with this policy. */
  sandbox?: SandboxPolicy;
}

export type TestStatus = 'success' | 'failed' | 'timeout' | 'aborted' | 'error';

export interface TestRun {
  status: TestStatus;
  command: string;
  tests_passed: number;
  tests_failed: number;
  tests_skipped: number;
  failing_tests: string[];
  framework: ParsedTests['framework'] | null;
  exit_code: number | null;
  duration_ms: number;
  output: string;
  sandboxed: boolean;
  /** What the sandbox stopped, when that made the run fail. */
  blocked: string | null;
}

function statusOf(parsed: ParsedTests | null, exitCode: number | null, timedOut: boolean, aborted: boolean): TestStatus {
  if (timedOut) return 'timeout';
  if (aborted) return 'aborted';
  if (parsed && parsed.failed > 0) return 'failed';
  if (exitCode === 0) return 'success';
  // A non-zero exit with nothing failing parsed: a compile error, a crash, a missing runner.
  return parsed && parsed.passed + parsed.failed > 0 ? 'failed' : 'error';
}

export async function runTestCommand(opts: TestRunOptions): Promise<TestRun> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TEST_TIMEOUT_MS;
  const r = await runCommand({
    command: opts.command,
    cwd: opts.root,
    timeoutMs,
    signal: opts.signal,
    onOutput: opts.onOutput,
    sandbox: opts.sandbox,
    outputDir: path.join(opts.root, '.loupe', 'outputs'),
    // Runners print plain, parseable text when they think CI is watching and no TTY is there.
    env: { ...process.env, CI: '1', FORCE_COLOR: '0', NO_COLOR: '1' },
  });
  const parsed = parseTestOutput(r.text);
  return {
    status: statusOf(parsed, r.exitCode, r.timedOut, r.aborted),
    command: opts.command,
    tests_passed: parsed?.passed ?? 0,
    tests_failed: parsed?.failed ?? 0,
    tests_skipped: parsed?.skipped ?? 0,
    failing_tests: parsed?.failing ?? [],
    framework: parsed?.framework ?? null,
    exit_code: r.exitCode,
    duration_ms: r.durationMs,
    output: formatCommandResult(r, opts.root, timeoutMs),
    sandboxed: r.sandboxed,
    blocked: r.blocked,
  };
}
