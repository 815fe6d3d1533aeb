// A folder's dev container as a remote machine (docs/architecture.md, "Remote workspaces"). The
// reference CLI of the Dev Containers spec (`@devcontainers/cli`, `devcontainer up`) builds or
// starts the container with the engine found (Docker, else Podman); Loupe's host is installed
// in it like on any remote machine, started with `devcontainer exec` (so it has the container's
// environment), and reached through `<engine> exec -i`. The CLI forwards no ports (its issue
// 186), so Loupe forwards `forwardPorts` and its processes' ports itself, over a tunnel in the
// same exec (tunnel.ts), which also carries the model back to this machine. Nothing of the
// person's credentials goes in — no SSH agent, no git credentials, no keys — unless the
// `remote.forward_ssh_agent` setting asks for the agent.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { InvalidArgumentError, LoupeError } from '../errors';
import { readInside } from '../services/files/safeOpen';
import { devcontainerFile } from '../services/workspace/devcontainerConfig';
import type { RemoteEnd, RunOutput } from './end';
import { shellWord } from './ssh';
import type { RemoteTarget } from './target';
import { Tunnel } from './tunnel';
import type { RemoteContext } from './windows';

/** Where the forwarded agent's socket is inside, when the person turned that on. */
export const AGENT_SOCKET_INSIDE = '/tmp/loupe-ssh-agent.sock';

/** JSON with comments and trailing commas, as devcontainer.json is written. */
export function parseJsonc(text: string): unknown {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const start = i;
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
      out += text.slice(start, i + 1);
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end === -1 ? text.length : end + 1;
    } else out += c;
  }
  return JSON.parse(withoutTrailingCommas(out));
}

/** Drops a comma before `}` or `]`, never one inside a string. */
function withoutTrailingCommas(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const start = i;
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
      out += text.slice(start, i + 1);
    } else if (c === ',' && /^\s*[}\]]/.test(text.slice(i + 1))) continue;
    else out += c;
  }
  return out;
}

/** `forwardPorts` ports of the container's own loopback (a number, or `localhost:N`); service names of a compose file are not. */
export function forwardPortsOf(config: unknown): { ports: number[]; skipped: string[] } {
  const list = (config as { forwardPorts?: unknown })?.forwardPorts;
  const ports: number[] = [];
  const skipped: string[] = [];
  if (!Array.isArray(list)) return { ports, skipped };
  for (const p of list) {
    const m = typeof p === 'number' ? [String(p), String(p)] : typeof p === 'string' ? /^(?:localhost|127\.0\.0\.1):(\d{1,5})$/.exec(p) : null;
    const n = m ? Number(m[1]) : NaN;
    if (Number.isInteger(n) && n > 0 && n < 65536) ports.push(n);
    else skipped.push(String(p));
  }
  return { ports, skipped };
}

interface Command {
  code: number;
  stdout: string;
  stderr: string;
}

interface RunOptions {
  env?: NodeJS.ProcessEnv;
  input?: NodeJS.ReadableStream | Buffer;
  onStderr?: (line: string) => void;
  timeoutMs?: number;
  /** Stops the program and what it started (its process group). */
  signal?: AbortSignal;
}

function runProgram(program: string, args: string[], opts: RunOptions = {}): Promise<Command> {
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      child = spawn(program, args, { stdio: ['pipe', 'pipe', 'pipe'], env: opts.env ?? process.env, detached: opts.signal !== undefined });
    } catch (err) {
      resolve({ code: 127, stdout: '', stderr: (err as Error).message });
      return;
    }
    const stop = () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    if (opts.signal?.aborted) stop();
    opts.signal?.addEventListener('abort', stop, { once: true });
    // A group of its own does not hear the terminal's Ctrl+C: it ends with this process.
    if (opts.signal) process.once('exit', stop);
    const out: Buffer[] = [];
    let err = '';
    let partial = '';
    child.stdout!.on('data', (d: Buffer) => out.push(d));
    child.stderr!.on('data', (d: Buffer) => {
      err = (err + d.toString()).slice(-65_536);
      partial += d.toString();
      const lines = partial.split('\n');
      partial = lines.pop() ?? '';
      for (const l of lines) opts.onStderr?.(l);
    });
    const timer = opts.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs) : null;
    child.on('error', (e) => {
      if (timer) clearTimeout(timer);
      resolve({ code: 127, stdout: '', stderr: e.message });
    });
    child.on('close', (code) => {
      if (timer) clearTimeout(timer);
      opts.signal?.removeEventListener('abort', stop);
      process.off('exit', stop);
      resolve({ code: code ?? 1, stdout: Buffer.concat(out).toString('utf8'), stderr: err });
    });
    child.stdin!.on('error', () => undefined);
    if (opts.input === undefined) child.stdin!.end();
    else if (Buffer.isBuffer(opts.input)) child.stdin!.end(opts.input);
    else opts.input.pipe(child.stdin!);
  });
}

/** The engine to use: the setting's, else Docker when its daemon answers, else Podman. */
export async function pickEngine(setting: 'docker' | 'podman' | undefined, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const candidates = setting ? [setting] : ['docker', 'podman'];
  const why: string[] = [];
  for (const engine of candidates) {
    const r = await runProgram(engine, ['info', '--format', '{{json .}}'], { env, timeoutMs: 20_000 });
    if (r.code === 0) return engine;
    why.push(`${engine}: ${r.stderr.trim().split('\n').pop() || `exit ${r.code}`}`);
  }
  throw new LoupeError('REMOTE_UNAVAILABLE', `No container engine answers here (${why.join('; ')}). Install and start Docker or Podman, or set "remote": {"container_engine": …} in settings.json.`);
}

/** The reference CLI, run with this process's Node (Electron's as Node). */
function devcontainerCli(bundleDir: string, env: NodeJS.ProcessEnv): { program: string; prefix: string[]; env: NodeJS.ProcessEnv } {
  let script: string;
  try {
    script = path.join(path.dirname(createRequire(path.join(bundleDir, 'package.json')).resolve('@devcontainers/cli/package.json')), 'devcontainer.js');
  } catch {
    throw new LoupeError('REMOTE_UNAVAILABLE', 'The Dev Containers CLI (@devcontainers/cli) is missing from this installation: run `npm ci` in the Loupe checkout.');
  }
  return { program: process.execPath, prefix: [script], env: process.versions.electron ? { ...env, ELECTRON_RUN_AS_NODE: '1' } : env };
}

interface UpResult {
  outcome: string;
  containerId?: string;
  remoteUser?: string;
  remoteWorkspaceFolder?: string;
  message?: string;
  description?: string;
}

/** The last JSON object of the CLI's stdout that says how `up` went. */
function upResult(stdout: string): UpResult | null {
  for (const line of stdout.trim().split('\n').reverse()) {
    try {
      const v = JSON.parse(line) as UpResult;
      if (v && typeof v.outcome === 'string') return v;
    } catch {
      // A log line.
    }
  }
  return null;
}

export interface ContainerEndOptions {
  engine: string;
  containerId: string;
  user: string;
  label: string;
  /** Runs `devcontainer exec` with these words (the host is started through it). */
  devcontainerExec: (command: string) => Promise<Command>;
  env?: NodeJS.ProcessEnv;
}

/** The way into a running dev container: `<engine> exec -i`, and a tunnel for ports and the model. */
export class ContainerEnd implements RemoteEnd {
  readonly kind = 'devcontainer' as const;
  readonly label: string;
  private tunnel: { tunnel: Tunnel; child: ChildProcess; id: string } | null = null;
  private hostCommand: string | null = null;
  private readonly forwards = new Map<number, net.Server>();
  private readonly reverses = new Map<string, { host: string; port: number }>();
  /** The agent socket inside, when the person forwards their SSH agent (never otherwise). */
  agentSocket: string | undefined;

  constructor(private readonly opts: ContainerEndOptions) {
    this.label = opts.label;
  }

  private exec(command: string): string[] {
    return ['exec', '-i', '-u', this.opts.user, this.opts.containerId, 'sh', '-c', command];
  }

  async connect(): Promise<void> {
    const r = await runProgram(this.opts.engine, ['inspect', '--format', '{{.State.Running}}', this.opts.containerId], { env: this.opts.env, timeoutMs: 30_000 });
    if (r.code === 0 && r.stdout.trim() === 'true') return;
    const started = await runProgram(this.opts.engine, ['start', this.opts.containerId], { env: this.opts.env, timeoutMs: 120_000 });
    if (started.code !== 0) throw new LoupeError('REMOTE_UNAVAILABLE', `The dev container ${this.opts.containerId.slice(0, 12)} is not running and could not be started: ${started.stderr.trim().split('\n').pop()}`);
  }

  async run(command: string, input?: NodeJS.ReadableStream | Buffer): Promise<RunOutput> {
    return runProgram(this.opts.engine, this.exec(command), { env: this.opts.env, input });
  }

  stream(command: string): ChildProcess {
    return spawn(this.opts.engine, this.exec(command), { stdio: ['pipe', 'pipe', 'pipe'], env: this.opts.env ?? process.env });
  }

  /** The host is installed: start it through `devcontainer exec`, so it runs with the container's environment. */
  async hostInstalled(base: string): Promise<void> {
    this.hostCommand = base;
    const agent = this.agentSocket;
    const r = await this.opts.devcontainerExec(`${base} remote-server --start${agent ? ` --agent-socket ${shellWord(agent)}` : ''}`);
    if (r.code !== 0) throw new LoupeError('REMOTE_UNAVAILABLE', `devcontainer exec could not start Loupe's host in the container: ${(r.stderr.trim().split('\n').pop() ?? '') || `exit ${r.code}`}`);
  }

  private ensureTunnel(): Tunnel {
    if (this.tunnel?.tunnel.isOpen) return this.tunnel.tunnel;
    if (!this.hostCommand) throw new LoupeError('REMOTE_UNAVAILABLE', 'Loupe is not installed in the container yet.');
    const child = this.stream(`${this.hostCommand} remote-server --tunnel`);
    child.on('error', () => undefined);
    child.stderr?.resume();
    const tunnel = new Tunnel(child.stdout!, child.stdin!, {
      side: 'local',
      connect: (target) =>
        new Promise((resolve, reject) => {
          const to = 'listener' in target ? this.reverses.get(target.listener) : undefined;
          if (!to) return reject(new Error('no such listener'));
          const s = net.connect(to.port, to.host);
          s.once('connect', () => resolve(s));
          s.once('error', reject);
        }),
    });
    tunnel.onClose(() => child.kill('SIGTERM'));
    this.tunnel = { tunnel, child, id: randomBytes(6).toString('hex') };
    return tunnel;
  }

  async forward(local: number, remote: number): Promise<void> {
    if (this.forwards.has(local)) return;
    const server = net.createServer((socket) => {
      try {
        this.ensureTunnel().carry(socket, { port: remote });
      } catch {
        socket.destroy();
      }
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(local, '127.0.0.1', () => resolve());
    });
    this.forwards.set(local, server);
  }

  async unforward(local: number): Promise<void> {
    const s = this.forwards.get(local);
    this.forwards.delete(local);
    if (s) await new Promise<void>((r) => s.close(() => r()));
  }

  async reverse(socket: string, host: string, port: number): Promise<boolean> {
    const name = randomBytes(6).toString('hex');
    this.reverses.set(name, { host, port });
    this.ensureTunnel().listenThere(name, socket);
    return true;
  }

  async generation(): Promise<string> {
    if (!this.hostCommand) return 'not installed';
    return this.tunnel?.tunnel.isOpen ? this.tunnel.id : (this.ensureTunnel(), this.tunnel!.id);
  }

  async close(): Promise<void> {
    this.tunnel?.tunnel.close();
    this.tunnel?.child.kill('SIGTERM');
    this.tunnel = null;
    for (const local of [...this.forwards.keys()]) await this.unforward(local);
  }
}

/** How long the folder's container may run while `up` still waits to hear that it started. */
export const START_GRACE_MS = 5000;
const START_POLL_MS = 1000;

/**
 * `devcontainer up`, watched. The CLI learns that the container it ran has started from the
 * engine's `start` event, heard by a listener it starts just before the run; on a busy machine the
 * listener can begin after the container started, the event is gone, and `up` waits for it
 * forever. While `up` is at "Starting container", the folder's container is looked for; once it
 * has run for START_GRACE_MS with `up` still waiting, `up` is stopped and run again, once: with
 * the container running it takes the path of an existing container, which waits for no event.
 */
async function upWatched(o: { program: string; args: string[]; env: NodeJS.ProcessEnv; engine: string; engineEnv: NodeJS.ProcessEnv; root: string; progress: (message: string) => void }): Promise<Command> {
  for (let attempt = 0; ; attempt++) {
    const abort = new AbortController();
    let starting = false;
    let runningSince: number | null = null;
    let looking = false;
    const look = async () => {
      if (!starting || looking || attempt > 0) return;
      looking = true;
      const ps = await runProgram(o.engine, ['ps', '-q', '--filter', `label=devcontainer.local_folder=${o.root}`, '--filter', 'status=running'], { env: o.engineEnv, timeoutMs: 20_000 });
      looking = false;
      if (!starting || ps.code !== 0 || !ps.stdout.trim()) return;
      runningSince ??= Date.now();
      if (Date.now() - runningSince >= START_GRACE_MS) abort.abort();
    };
    const timer = setInterval(() => void look(), START_POLL_MS);
    const up = await runProgram(o.program, o.args, {
      env: o.env,
      signal: abort.signal,
      onStderr: (line) => {
        try {
          const m = JSON.parse(line) as { text?: string; type?: string };
          if (m.text === 'Starting container') starting = m.type === 'start';
          if (m.text && m.type !== 'raw') o.progress(`devcontainer: ${m.text.trim().slice(0, 200)}`);
        } catch {
          // Not a log record.
        }
      },
    });
    clearInterval(timer);
    if (!abort.signal.aborted) return up;
    o.progress(`devcontainer up did not hear its container start (it has run for ${START_GRACE_MS / 1000} s); running it again…`);
  }
}

/** `devcontainer up` on the folder, and the way into the container it gives. */
export async function devcontainerEnd(target: Extract<RemoteTarget, { kind: 'devcontainer' }>, ctx: RemoteContext, progress: (message: string) => void): Promise<{ end: RemoteEnd; remotePath: string; fixedPorts: number[] }> {
  const root = target.path;
  const file = await devcontainerFile(root);
  if (!file) throw new InvalidArgumentError(`${root} has no dev container definition (.devcontainer/devcontainer.json or .devcontainer.json).`);
  let config: unknown;
  try {
    // The folder's own file, read through real folders: a link out of the folder is not followed.
    const read = await readInside(root, path.join(root, file), { maxBytes: 1024 * 1024, rel: file });
    if (!read) throw new Error('it is missing, or a link out of the folder');
    config = parseJsonc(read.buf.toString('utf8'));
  } catch (err) {
    throw new InvalidArgumentError(`${path.join(root, file)} is not valid JSON with comments: ${(err as Error).message}`);
  }
  const env = ctx.env ?? process.env;
  const settings = ctx.user.remote();
  progress('Looking for a container engine (Docker, Podman)…');
  const engine = await pickEngine(settings.container_engine, env);
  const cli = devcontainerCli(ctx.bundleDir, env);
  // The person's SSH agent goes in only when they asked for it.
  const agent = settings.forward_ssh_agent && env.SSH_AUTH_SOCK ? env.SSH_AUTH_SOCK : null;
  const agentEnv = agent ? ['--remote-env', `SSH_AUTH_SOCK=${AGENT_SOCKET_INSIDE}`] : [];
  // `up` mounts the socket; `exec` takes no mounts, only the variable.
  const agentArgs = agent ? ['--mount', `type=bind,source=${agent},target=${AGENT_SOCKET_INSIDE}`, ...agentEnv] : [];
  const common = ['--workspace-folder', root, '--docker-path', engine];
  // The CLI passes its own environment on to what it runs: never the person's agent socket.
  const cliEnv = { ...cli.env };
  delete cliEnv.SSH_AUTH_SOCK;
  progress(`Starting the dev container with ${engine} (devcontainer up; the first time builds it)…`);
  const up = await upWatched({ program: cli.program, args: [...cli.prefix, 'up', ...common, '--log-format', 'json', ...agentArgs], env: cliEnv, engine, engineEnv: env, root, progress });
  const result = upResult(up.stdout);
  if (!result || result.outcome !== 'success' || !result.containerId) {
    const why = result?.message ?? result?.description ?? (up.stderr.trim().split('\n').pop() || `exit ${up.code}`);
    throw new LoupeError('REMOTE_UNAVAILABLE', `devcontainer up failed for ${root}: ${why}`);
  }
  const { ports, skipped } = forwardPortsOf(config);
  if (skipped.length) progress(`forwardPorts entries that name another service are not forwarded: ${skipped.join(', ')}`);
  const user = result.remoteUser || 'root';
  const end = new ContainerEnd({
    engine,
    containerId: result.containerId,
    user,
    label: `${path.basename(root)} (${engine})`,
    env,
    devcontainerExec: (command) => runProgram(cli.program, [...cli.prefix, 'exec', ...common, ...agentEnv, 'sh', '-c', command], { env: cliEnv, timeoutMs: 120_000 }),
  });
  if (agent) end.agentSocket = AGENT_SOCKET_INSIDE;
  return { end, remotePath: result.remoteWorkspaceFolder ?? `/workspaces/${path.basename(root)}`, fixedPorts: ports };
}
