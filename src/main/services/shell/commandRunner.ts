// Runs one agent command in the user's shell and always comes back: on exit, timeout or
// abort the whole family is killed (see processReaper), so neither a daemon nor a
// background job that holds the output pipe open can keep the call waiting.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { InvalidArgumentError } from '../../errors';
import { selectShell } from './shellSelector';
import { commandEnv } from './cleanEnv';
import { OutputCapture, type CapturedOutput } from './outputCapture';
import { ProcessFamily } from './processReaper';
import type { SandboxPolicy } from '../sandbox/bwrapPolicy';
import { detectBlocked } from '../sandbox/blocked';
import { hostPortFindings, thisMachineListens } from '../sandbox/hostPortReport';
import { prepareLaunch } from '../sandbox/launch';
import type { NetworkActivity } from '../sandbox/net/types';
import { credentialPaths } from '../sandbox/credentials';

export const DEFAULT_TIMEOUT_MS = 120_000;
export const MAX_TIMEOUT_MS = 600_000;
/** Output streamed live is capped; the result still carries head and tail of all of it. */
export const STREAM_CAP_BYTES = 1024 * 1024;
/** After the shell exits, how long its pipes may stay open before the stragglers are killed. */
const DRAIN_MS = 100;
/** After the kill, how long to wait for the pipes to close before giving up on them. */
const CLOSE_WAIT_MS = 2000;

export interface CommandOptions {
  command: string;
  cwd: string;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Live output (stdout and stderr interleaved, raw text with escapes). */
  onOutput?: (text: string) => void;
  /** Folder for the full log when the output is too long to return; none when omitted. */
  outputDir?: string;
  /** The workspace the log folder must stay inside (default: the folder holding `.loupe/outputs`). */
  outputRoot?: string;
  env?: NodeJS.ProcessEnv;
  /** Run inside the OS sandbox (bubblewrap on Linux, sandbox-exec on macOS) with this policy. */
  sandbox?: SandboxPolicy;
}

export interface CommandResult extends CapturedOutput {
  id: string;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  durationMs: number;
  shell: string;
  sandboxed: boolean;
  /** What the sandbox stopped ("write to /etc/hosts"), when the command failed because of it. */
  blocked: string | null;
  /**
   * Hosts reached and refused through the sandbox's proxy and ports of this machine (forwarded,
   * or found closed to it in its output); null when it had no network grant and found none closed.
   */
  network: NetworkActivity | null;
}

export function clampTimeout(ms: number | undefined): number {
  if (ms === undefined || !Number.isFinite(ms) || ms <= 0) return DEFAULT_TIMEOUT_MS;
  return Math.min(MAX_TIMEOUT_MS, Math.floor(ms));
}

function checkCwd(cwd: string): void {
  let ok = false;
  try {
    ok = statSync(cwd).isDirectory();
  } catch {}
  if (!ok) throw new InvalidArgumentError(`workdir ${cwd} is not an existing folder. Use a folder inside the workspace.`);
}

export async function runCommand(opts: CommandOptions): Promise<CommandResult> {
  checkCwd(opts.cwd);
  const id = `cmd-${Date.now().toString(36)}-${randomUUID().slice(0, 8)}`;
  const timeoutMs = clampTimeout(opts.timeoutMs);
  const shell = selectShell({ posixOnly: true });
  const capture = new OutputCapture(opts.outputDir ? path.join(opts.outputDir, `${id}.log`) : null, undefined, undefined, opts.outputRoot ?? (opts.outputDir ? path.dirname(path.dirname(opts.outputDir)) : undefined));
  const started = performance.now();

  const launch = await prepareLaunch({ shell: shell.path, command: opts.command, cwd: opts.cwd, sandbox: opts.sandbox });
  const child = spawn(launch.program, launch.argv, {
    cwd: opts.cwd,
    env: { ...commandEnv(id, opts.env), ...launch.env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) {
    const err = await new Promise<Error>((resolve) => child.once('error', resolve));
    launch.close();
    throw new InvalidArgumentError(`Could not start ${shell.path}: ${err.message}`);
  }
  const family = new ProcessFamily(child.pid, id);
  family.watch();

  let streamed = 0;
  const decoder = new StringDecoder('utf8');
  const onData = (chunk: Buffer) => {
    capture.push(chunk);
    if (!opts.onOutput || streamed > STREAM_CAP_BYTES) return;
    streamed += chunk.length;
    if (chunk.includes(0)) return;
    opts.onOutput(decoder.write(chunk));
    if (streamed > STREAM_CAP_BYTES) opts.onOutput('\n[live output paused: more than 1 MB; the result keeps the start and the end]\n');
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);

  let timedOut = false;
  let aborted = false;
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let stopReason: (why: 'timeout' | 'abort') => void = () => {};
  const stopped = new Promise<'timeout' | 'abort'>((resolve) => (stopReason = resolve));
  const timer = setTimeout(() => stopReason('timeout'), timeoutMs);
  const onAbort = () => stopReason('abort');
  if (opts.signal?.aborted) onAbort();
  opts.signal?.addEventListener('abort', onAbort, { once: true });

  try {
    const first = await Promise.race([exited.then(() => 'exit' as const), stopped]);
    if (first === 'timeout') timedOut = true;
    if (first === 'abort') aborted = true;
    if (first === 'exit') await Promise.race([closed, delay(DRAIN_MS)]);
    // Exit or not, nothing the command started outlives the call.
    await family.killAll();
    await Promise.race([closed, delay(CLOSE_WAIT_MS)]);
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onAbort);
    family.stopWatching();
    child.stdout.destroy();
    child.stderr.destroy();
  }
  const granted = opts.sandbox?.network && launch.net ? launch.net : null;
  const activity = granted?.activity() ?? null;
  const refused = granted?.blocked() ?? null;
  launch.close();
  const { code, signal } = await Promise.race([exited, delay(CLOSE_WAIT_MS).then(() => ({ code: null, signal: null }))]);
  const captured = capture.finish();
  const failed = code !== 0 && !timedOut && !aborted;
  // Ports of this machine the command found closed (or a forwarded one its own server wanted).
  const local = opts.sandbox ? await hostPortFindings(captured.text, granted?.hostPorts ?? null, opts.sandbox.explainHostPort) : [];
  const network = local.length ? { reached: activity?.reached ?? [], refused: [...(activity?.refused ?? []), ...local.map(({ host, reason }) => ({ host, reason }))] } : activity;
  const blocked =
    opts.sandbox && failed
      ? refused
        ? `network access to ${refused.host} (${refused.reason})`
        : local[0]
          ? `${local[0].what} ${local[0].host} (${local[0].why})`
          : detectBlocked(captured.text, { network: !!opts.sandbox.network, hidden: sandboxHidden(opts.sandbox, opts.cwd), listens: thisMachineListens })
      : null;
  return {
    id,
    ...captured,
    exitCode: code,
    signal,
    timedOut,
    aborted,
    durationMs: Math.round(performance.now() - started),
    shell: shell.path,
    sandboxed: !!opts.sandbox,
    blocked,
    network,
  };
}

/** The hidden paths as a command may spell them: absolute, or relative to where it ran. */
function sandboxHidden(p: SandboxPolicy, cwd: string): string[] {
  const abs = [...credentialPaths(p.home ?? process.env.HOME ?? '/nonexistent'), ...(p.hide ?? [])];
  return [...abs, ...abs.map((a) => path.relative(cwd, a)).filter((r) => r && !r.startsWith('..'))];
}

const delay = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
