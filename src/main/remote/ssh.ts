// The system's `ssh`, as the person uses it: their ~/.ssh/config, agent, keys and ProxyJump, with
// one shared connection per host (ControlMaster). The master's socket lives under Loupe's config
// folder (`ssh/%C`, ssh's hash of host, port and user) and stays up ten minutes after its last use
// (ControlPersist), so commands, the host's link, forwards and the next window reuse it. Loupe
// never asks for a password itself: in a terminal, ssh asks there the first time; elsewhere
// BatchMode makes it fail at once with ssh's own words, which the window shows.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LoupeError } from '../errors';
import { sshDestination, type RemoteTarget } from './target';

export interface SshOptions {
  /** Loupe's config folder: the master sockets go in its `ssh/`. */
  configDir: string;
  /** The `remote.ssh_args` setting: before the host on every command line. */
  args?: readonly string[];
  /** The ssh program. */
  program?: string;
  /** A terminal is there: ssh may ask (a password, a new host key) the first time. */
  interactive?: boolean;
  env?: NodeJS.ProcessEnv;
}

export interface RunResult {
  code: number;
  stdout: Buffer;
  stderr: string;
}

/** The bytes of a path in sun_path with its NUL; ssh refuses longer control paths. */
const MAX_CONTROL_PATH = 100;
const PERSIST_SECONDS = 600;

/** The error ssh gave, in one line for people (its last non-empty line, warnings left out). */
export function sshWords(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !/^Warning: Permanently added/.test(l));
  return lines.at(-1) ?? 'ssh failed without saying why';
}

/** A command word for the remote shell: single-quoted, refused when it could not be quoted plainly. */
export function shellWord(s: string): string {
  if (/['\n\r\0]/.test(s)) throw new LoupeError('INVALID_PATH', `Loupe cannot pass ${JSON.stringify(s)} to the remote shell (it holds a quote or a line break).`);
  return `'${s}'`;
}

/**
 * A POSIX sh script as one command for the remote login shell (bash, zsh, fish alike): the script
 * travels base64-encoded inside single quotes, so no quote or line break of it meets that shell,
 * and stdin stays free for data.
 */
export function shScript(script: string): string {
  return `sh -c 'eval "$(printf %s ${Buffer.from(script).toString('base64')} | base64 -d)"'`;
}

export class SshLink {
  readonly destination: string;
  private readonly controlPath: string;
  private connecting: Promise<void> | null = null;

  constructor(
    readonly target: Extract<RemoteTarget, { kind: 'ssh' }>,
    private readonly opts: SshOptions,
  ) {
    this.destination = sshDestination(target);
    this.controlPath = controlPathFor(opts.configDir);
  }

  /** Options on every command: the shared connection, keep-alives, no terminal, no escape character. */
  private base(extra: string[] = []): string[] {
    return [
      ...(this.opts.args ?? []),
      '-o', `ControlPath=${this.controlPath}`,
      '-o', 'ControlMaster=auto',
      '-o', `ControlPersist=${PERSIST_SECONDS}`,
      '-o', 'ServerAliveInterval=15',
      '-o', 'ServerAliveCountMax=4',
      ...(this.opts.interactive ? [] : ['-o', 'BatchMode=yes']),
      '-o', 'ConnectTimeout=20',
      ...(this.target.port ? ['-p', String(this.target.port)] : []),
      ...extra,
    ];
  }

  private spawnSsh(args: string[], stdio: 'pipe' | 'inherit-stderr' = 'pipe'): ChildProcess {
    return spawn(this.opts.program ?? 'ssh', args, {
      stdio: stdio === 'pipe' ? ['pipe', 'pipe', 'pipe'] : ['pipe', 'pipe', 'inherit'],
      env: this.opts.env ?? process.env,
    });
  }

  private collect(child: ChildProcess, input: Buffer | NodeJS.ReadableStream | undefined, signal?: AbortSignal): Promise<RunResult> {
    return new Promise((resolve, reject) => {
      const out: Buffer[] = [];
      let err = '';
      child.stdout!.on('data', (d: Buffer) => out.push(d));
      child.stderr?.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-16_384)));
      const onAbort = () => child.kill('SIGTERM');
      signal?.addEventListener('abort', onAbort, { once: true });
      child.once('error', (e) => reject(new LoupeError('REMOTE_UNAVAILABLE', `Could not run ssh: ${e.message}. Is OpenSSH installed?`)));
      child.once('close', (code) => {
        signal?.removeEventListener('abort', onAbort);
        resolve({ code: code ?? 255, stdout: Buffer.concat(out), stderr: err });
      });
      child.stdin!.on('error', () => undefined);
      if (input === undefined) child.stdin!.end();
      else if (Buffer.isBuffer(input)) child.stdin!.end(input);
      else (input as NodeJS.ReadableStream).pipe(child.stdin!);
    });
  }

  /**
   * Opens the shared connection when none is up (a password or host key is asked here, in a
   * terminal). Callers at the same moment (a window's link, the control link) share one attempt.
   */
  connect(signal?: AbortSignal): Promise<void> {
    this.connecting ??= this.openMaster(signal).finally(() => (this.connecting = null));
    return this.connecting;
  }

  private async openMaster(signal?: AbortSignal): Promise<void> {
    if (await this.alive()) return;
    const child = this.spawnSsh([...this.base(['-o', 'ControlMaster=yes', '-N', '-f', '-T']), '--', this.destination], this.opts.interactive ? 'inherit-stderr' : 'pipe');
    const r = await this.collect(child, undefined, signal);
    if (r.code !== 0) throw new LoupeError('REMOTE_UNAVAILABLE', `ssh ${this.destination}: ${sshWords(r.stderr)}`, { ssh_exit: r.code });
  }

  /** Is the shared connection up? */
  async alive(): Promise<boolean> {
    const r = await this.collect(this.spawnSsh([...this.base(['-O', 'check']), '--', this.destination]), undefined);
    return r.code === 0;
  }

  /** The master's pid (ssh says it on `-O check`), or null. */
  async masterPid(): Promise<number | null> {
    const r = await this.collect(this.spawnSsh([...this.base(['-O', 'check']), '--', this.destination]), undefined);
    const m = /pid=(\d+)/.exec(r.stderr);
    return r.code === 0 && m ? Number(m[1]) : null;
  }

  /** Runs a command there (through the remote user's shell), stdin from `input`. */
  async run(command: string, opts: { input?: Buffer | NodeJS.ReadableStream; signal?: AbortSignal } = {}): Promise<RunResult> {
    await this.connect(opts.signal);
    return this.collect(this.spawnSsh([...this.base(['-T', '-e', 'none', '-o', 'RemoteCommand=none', '-o', 'RequestTTY=no']), '--', this.destination, command]), opts.input, opts.signal);
  }

  /** A long-lived command whose stdin and stdout are the caller's to use (the host's link). */
  stream(command: string): ChildProcess {
    return this.spawnSsh([...this.base(['-T', '-e', 'none', '-o', 'RemoteCommand=none', '-o', 'RequestTTY=no']), '--', this.destination, command]);
  }

  /** Forwards this machine's 127.0.0.1:`local` to 127.0.0.1:`remote` there, through the shared connection. */
  async forwardLocal(local: number, remote: number): Promise<void> {
    const r = await this.collect(this.spawnSsh([...this.base(['-O', 'forward', '-L', `127.0.0.1:${local}:127.0.0.1:${remote}`]), '--', this.destination]), undefined);
    if (r.code !== 0) throw new LoupeError('REMOTE_UNAVAILABLE', `ssh could not forward port ${remote}: ${sshWords(r.stderr)}`);
  }

  async cancelLocal(local: number, remote: number): Promise<void> {
    await this.collect(this.spawnSsh([...this.base(['-O', 'cancel', '-L', `127.0.0.1:${local}:127.0.0.1:${remote}`]), '--', this.destination]), undefined);
  }

  /** Makes `host:port` as this machine sees it reachable there through a Unix socket (owner-only). */
  async forwardRemoteSocket(socket: string, host: string, port: number): Promise<void> {
    const r = await this.collect(this.spawnSsh([...this.base(['-O', 'forward', '-R', `${socket}:${host}:${port}`]), '--', this.destination]), undefined);
    if (r.code !== 0) throw new LoupeError('REMOTE_UNAVAILABLE', `ssh could not forward the model server to ${this.destination}: ${sshWords(r.stderr)}`);
  }

  /** Ends the shared connection (every stream and forward on it goes too). */
  async close(): Promise<void> {
    await this.collect(this.spawnSsh([...this.base(['-O', 'exit']), '--', this.destination]), undefined).catch(() => undefined);
  }
}

/** `<config>/ssh/%C`, or a short folder of this user's in /tmp when that path would be too long. */
export function controlPathFor(configDir: string, uid: number = process.getuid?.() ?? 0): string {
  // %C expands to 40 hex characters.
  let dir = path.join(configDir, 'ssh');
  if (Buffer.byteLength(dir) + 41 > MAX_CONTROL_PATH) dir = path.join(os.tmpdir(), `loupe-ssh-${uid}-${createHash('sha256').update(configDir).digest('hex').slice(0, 8)}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // ssh's shared connection is the person's login: its folder must be theirs alone (in the temp
  // folder another user could have made it first).
  const st = lstatSync(dir);
  if (!st.isDirectory() || st.uid !== uid || (st.mode & 0o077) !== 0) {
    throw new LoupeError('REMOTE_UNAVAILABLE', `${dir} holds ssh's shared connections but is not a folder only you can use (owner ${st.uid}, mode ${(st.mode & 0o777).toString(8)}). Remove it and try again.`, { path: dir });
  }
  return path.join(dir, '%C');
}
