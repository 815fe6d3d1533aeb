// Runs one hook handler and always comes back within its timeout: a command gets the event's
// JSON on stdin in its own process group (plainly, or inside the OS sandbox through the same
// launch as a command); at the timeout or on Stop its whole family is killed. An http handler
// posts the same JSON. What comes back is raw: exit code, output, time, or what went wrong.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { StringDecoder } from 'node:string_decoder';
import { hookLine, type CommandHandler, type HttpHandler } from '../config/hooksConfig';
import type { SandboxPolicy } from '../sandbox/bwrapPolicy';
import { prepareLaunch, type Launch } from '../sandbox/launch';
import { ProcessFamily } from '../shell/processReaper';
import { which } from '../shell/shellSelector';

/** Each stream is kept up to this many characters (Claude Code shows hooks' output cut much shorter). */
export const OUTPUT_CAP = 64 * 1024;
/**
 * After the hook exits, how long its pipes may stay open (a child it left behind). A hook that
 * leaves none closes them as it exits, and 'close' comes as soon as its last bytes are read; on a
 * busy machine that took longer than 50 ms, and a blocking hook's reason on stderr was lost ("gave
 * no reason"). Only a hook whose child holds the pipes waits this long.
 */
const DRAIN_MS = 1000;

export interface RawRun {
  /** null when it did not exit by itself. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
  /** What went wrong running it, in words: timed out, killed, could not start; null when it ran to its exit. */
  failure: { kind: 'timeout' | 'killed' | 'start' | 'aborted'; message: string } | null;
  sandboxed: boolean;
}

export interface CommandRunSpec {
  handler: CommandHandler;
  input: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  signal?: AbortSignal;
  sandbox?: SandboxPolicy;
}

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** Claude Code runs a shell form in bash; sh where there is none. */
function shellFor(h: CommandHandler, env: NodeJS.ProcessEnv): string {
  if (h.shell === 'sh') return '/bin/sh';
  return which('bash', env) ?? '/bin/sh';
}

const cap = (s: string): string => (s.length > OUTPUT_CAP ? `${s.slice(0, OUTPUT_CAP)}\n[… cut at ${OUTPUT_CAP} characters]` : s);

export async function runCommandHook(spec: CommandRunSpec): Promise<RawRun> {
  const t0 = performance.now();
  const h = spec.handler;
  const ms = () => Math.round(performance.now() - t0);
  const fail = (kind: 'start' | 'aborted', message: string): RawRun => ({ exitCode: null, signal: null, stdout: '', stderr: '', ms: ms(), failure: { kind, message }, sandboxed: !!spec.sandbox });
  if (spec.signal?.aborted) return fail('aborted', 'the request was stopped before it ran');
  const marker = `hook-${randomUUID().slice(0, 12)}`;
  let launch: Launch | null = null;
  let program: string;
  let argv: string[];
  if (spec.sandbox || !h.args) {
    // The shell reads the line (shell form), or runs exactly the quoted words (exec form, sandboxed).
    const line = h.args ? `exec ${[h.command, ...h.args].map(quote).join(' ')}` : h.command;
    try {
      launch = await prepareLaunch({ shell: shellFor(h, spec.env), command: line, cwd: spec.cwd, sandbox: spec.sandbox });
    } catch (err) {
      return fail('start', `the sandbox could not be prepared: ${(err as Error).message}`);
    }
    program = launch.program;
    argv = launch.argv;
  } else {
    program = h.command;
    argv = h.args;
  }
  const env = { ...spec.env, ...(launch?.env ?? {}), LOUPE_COMMAND_ID: marker };
  const child = spawn(program, argv, { cwd: spec.cwd, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  const started = await new Promise<Error | null>((resolve) => {
    child.once('spawn', () => resolve(null));
    child.once('error', (err) => resolve(err));
  });
  if (started) {
    launch?.close();
    const code = (started as NodeJS.ErrnoException).code;
    return fail('start', `${h.command} could not be started (${code === 'ENOENT' ? 'no such program' : code === 'EACCES' ? 'not executable' : started.message})`);
  }
  const family = new ProcessFamily(child.pid!, marker, 1000);
  const out = { stdout: '', stderr: '' };
  for (const stream of ['stdout', 'stderr'] as const) {
    const decoder = new StringDecoder('utf8');
    child[stream].on('data', (chunk: Buffer) => {
      if (out[stream].length <= OUTPUT_CAP) out[stream] += decoder.write(chunk);
    });
  }
  // A hook that does not read its input must not fail for it (EPIPE).
  child.stdin.on('error', () => undefined);
  child.stdin.end(spec.input);

  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  let stop: (why: 'timeout' | 'aborted') => void = () => {};
  const stopped = new Promise<'timeout' | 'aborted'>((resolve) => (stop = resolve));
  const timer = setTimeout(() => stop('timeout'), spec.timeoutMs);
  const onAbort = () => stop('aborted');
  spec.signal?.addEventListener('abort', onAbort, { once: true });
  let failure: RawRun['failure'] = null;
  let result: { code: number | null; signal: NodeJS.Signals | null };
  try {
    const first = await Promise.race([exited, stopped]);
    if (first === 'timeout' || first === 'aborted') {
      family.watch();
      // The whole family, whatever it did to get away: the turn never waits longer than this.
      await family.killAll();
      family.stopWatching();
      failure = first === 'timeout' ? { kind: 'timeout', message: `timed out after ${formatSeconds(spec.timeoutMs)} and was stopped` } : { kind: 'aborted', message: 'stopped with the request' };
      result = await Promise.race([exited, delay(1000).then(() => ({ code: null, signal: 'SIGKILL' as NodeJS.Signals }))]);
    } else {
      result = first;
      // A child it left behind may hold the pipes: what came so far is the answer.
      await Promise.race([closed, delay(DRAIN_MS)]);
      if (first.signal) failure = { kind: 'killed', message: `was killed by ${first.signal}` };
    }
  } finally {
    clearTimeout(timer);
    spec.signal?.removeEventListener('abort', onAbort);
    child.stdout.destroy();
    child.stderr.destroy();
    launch?.close();
  }
  // A shell that could not find or run the script says so by these codes, not by running it.
  if (!failure && !h.args && (result.code === 127 || result.code === 126)) failure = { kind: 'start', message: `could not be started (${result.code === 127 ? 'command or script not found' : 'not executable'}): ${firstLine(out.stderr) || hookLine(h)}` };
  return { exitCode: result.code, signal: result.signal, stdout: cap(out.stdout), stderr: cap(out.stderr), ms: ms(), failure, sandboxed: !!spec.sandbox };
}

export interface HttpRunSpec {
  handler: HttpHandler;
  input: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * Claude Code's http hook: the input as the POST body; a 2xx body is read as a command's stdout
 * (exit 0), anything else is a non-blocking error. `$VAR` in a header is filled only for the
 * variables `allowedEnvVars` names, others are sent empty.
 */
export async function runHttpHook(spec: HttpRunSpec): Promise<RawRun> {
  const t0 = performance.now();
  const h = spec.handler;
  const ms = () => Math.round(performance.now() - t0);
  const allowed = new Set(h.allowedEnvVars ?? []);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  for (const [k, v] of Object.entries(h.headers ?? {})) headers[k] = v.replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (_m, name: string) => (allowed.has(name) ? (spec.env[name] ?? '') : ''));
  const timeout = AbortSignal.timeout(spec.timeoutMs);
  const signal = spec.signal ? AbortSignal.any([spec.signal, timeout]) : timeout;
  try {
    const res = await fetch(h.url, { method: 'POST', headers, body: spec.input, signal, redirect: 'error' });
    const body = cap(await res.text());
    if (res.status >= 200 && res.status < 300) return { exitCode: 0, signal: null, stdout: body, stderr: '', ms: ms(), failure: null, sandboxed: false };
    return { exitCode: 1, signal: null, stdout: '', stderr: `HTTP ${res.status}${body ? `: ${firstLine(body)}` : ''}`, ms: ms(), failure: null, sandboxed: false };
  } catch (err) {
    if (timeout.aborted) return { exitCode: null, signal: null, stdout: '', stderr: '', ms: ms(), failure: { kind: 'timeout', message: `got no answer within ${formatSeconds(spec.timeoutMs)}` }, sandboxed: false };
    if (spec.signal?.aborted) return { exitCode: null, signal: null, stdout: '', stderr: '', ms: ms(), failure: { kind: 'aborted', message: 'stopped with the request' }, sandboxed: false };
    return { exitCode: null, signal: null, stdout: '', stderr: '', ms: ms(), failure: { kind: 'start', message: `could not reach ${h.url}: ${(err as Error).message}` }, sandboxed: false };
  }
}

export const firstLine = (s: string): string => s.trim().split('\n')[0]?.slice(0, 300) ?? '';
const formatSeconds = (ms: number): string => (ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`);
const delay = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
