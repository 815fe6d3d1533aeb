// One background process: started like a foreground command (same shell, same environment,
// same sandbox policy), but it returns at once and lives on. Its output goes to a ring buffer
// (the newest bytes, bounded memory) and to a full log on disk; the ports it listens on are read
// from /proc and, when sandboxed, forwarded to 127.0.0.1 on this machine. Stopping it stops its
// whole family (processReaper), as the foreground runner does.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { InvalidArgumentError } from '../../errors';
import { prepareLaunch, type Launch } from '../sandbox/launch';
import { hostPortFindings } from '../sandbox/hostPortReport';
import { commandEnv } from '../shell/cleanEnv';
import { ProcessFamily } from '../shell/processReaper';
import { selectShell } from '../shell/shellSelector';
import { toPosix } from '../workspace/pathGuard';
import { familyPorts, sandboxPorts, uniquePorts } from './listeningPorts';
import { OutputLog } from './outputLog';
import { RingBuffer } from './ringBuffer';
import type { NetworkActivity } from '../sandbox/net/types';
import type { ProcessInfo, ProcessSpec, ProcessStatus } from './types';

/** How often the tree is walked for escapees while it runs (the kill also finds them by env marker). */
const FAMILY_POLL_MS = 2000;
const PORT_POLL_MS = 500;
/** Stop: SIGTERM, then SIGKILL to whatever is left this long after. */
export const STOP_GRACE_MS = 2000;

export interface ProcessDeps {
  root: string;
  /** Folder of the full logs (under .loupe/outputs/). */
  logDir: string;
  ringBytes: number;
  onChange: (p: ManagedProcess) => void;
  onOutput: (p: ManagedProcess, chunk: Buffer) => void;
  onExit: (p: ManagedProcess) => void;
}

export class ManagedProcess {
  status: ProcessStatus;
  pid: number | null = null;
  exitCode: number | null = null;
  signal: string | null = null;
  killReason: string | null = null;
  readonly startedAt = new Date();
  endedAt: Date | null = null;
  readonly ring: RingBuffer;
  log: OutputLog | null;
  /** Last output or read (ms since epoch): the idle limit counts from here. */
  lastActivity = Date.now();
  ports: number[] = [];
  private readonly listeners = new Set<(chunk: Buffer) => void>();
  private child: ChildProcess | null = null;
  private family: ProcessFamily | null = null;
  private launch: Launch | null = null;
  private portTimer: NodeJS.Timeout | null = null;
  private readonly exited: Promise<void>;
  private markExited!: () => void;
  private stopping: Promise<void> | null = null;
  private networkAtEnd: NetworkActivity | null = null;
  /** Ports of this machine its output found closed to it (the result lists them as refused). */
  private readonly hostPortNotes = new Map<string, string>();
  /** The unfinished last line of its output, read for those. */
  private lineCarry = '';

  constructor(
    readonly id: string,
    readonly spec: ProcessSpec,
    private readonly deps: ProcessDeps,
    waiting: boolean,
  ) {
    this.status = waiting ? 'starting' : 'running';
    this.ring = new RingBuffer(deps.ringBytes);
    const stamp = this.startedAt.toISOString().replace(/[:.]/g, '-');
    this.log = OutputLog.create(deps.root, deps.logDir, `${id}-${stamp}.log`);
    this.exited = new Promise((resolve) => (this.markExited = resolve));
  }

  get alive(): boolean {
    return this.status === 'starting' || this.status === 'running' || this.status === 'ready';
  }

  get bytes(): number {
    return this.ring.end;
  }

  async start(): Promise<void> {
    const shell = selectShell({ posixOnly: true });
    let launch: Launch;
    try {
      launch = await prepareLaunch({ shell: shell.path, command: this.spec.command, cwd: this.spec.cwd, sandbox: this.spec.sandbox, forwardPorts: true });
    } catch (err) {
      // It never ran: it must not count against the running limit.
      this.push(Buffer.from(`Could not start: ${(err as Error).message}\n`));
      this.finish('exited', 127, null);
      throw err;
    }
    this.launch = launch;
    const child = spawn(launch.program, launch.argv, {
      cwd: this.spec.cwd,
      env: { ...commandEnv(`${this.id}-${this.startedAt.getTime()}`), ...launch.env },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (child.pid === undefined) {
      const err = await new Promise<Error>((resolve) => child.once('error', resolve));
      launch.close();
      this.finish('exited', 127, null);
      throw new InvalidArgumentError(`Could not start ${shell.path}: ${err.message}`);
    }
    this.child = child;
    this.pid = child.pid;
    this.family = new ProcessFamily(child.pid, `${this.id}-${this.startedAt.getTime()}`, FAMILY_POLL_MS);
    this.family.watch();
    const onData = (chunk: Buffer) => this.push(chunk);
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code, signal) => void this.onExit(code, signal));
    this.portTimer = setInterval(() => void this.refreshPorts(), PORT_POLL_MS);
    this.portTimer.unref();
  }

  onData(listener: (chunk: Buffer) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  whenExited(): Promise<void> {
    return this.exited;
  }

  /** Re-reads the ports it listens on; new ones of a sandboxed process are forwarded first. */
  async refreshPorts(): Promise<number[]> {
    if (!this.alive || this.pid === null) return this.ports;
    const net = this.launch?.net ?? null;
    // The bridge's own listeners (its proxy, the ports of this machine a rule forwards in) are not the process's.
    const found = uniquePorts(this.spec.sandbox ? sandboxPorts(this.pid, net?.bridgePorts() ?? new Set()) : familyPorts(this.pid));
    const now = found.map((l) => l.port);
    if (net) {
      for (const l of found) if (!this.ports.includes(l.port)) await net.forward(l.port, l.address === '::' || l.address === '0.0.0.0' ? '127.0.0.1' : l.address).catch(() => undefined);
      for (const p of this.ports) if (!now.includes(p)) net.unforward(p);
    }
    if (now.join() !== this.ports.join()) {
      this.ports = now;
      this.deps.onChange(this);
    }
    return this.ports;
  }

  /** Marks it ready (its wait_for was met). */
  ready(): void {
    if (this.status === 'starting' || this.status === 'running') {
      this.status = 'ready';
      this.deps.onChange(this);
    }
  }

  /** No longer waiting for anything (a wait_for that timed out): it just runs. */
  settle(): void {
    if (this.status === 'starting') {
      this.status = 'running';
      this.deps.onChange(this);
    }
  }

  touch(): void {
    this.lastActivity = Date.now();
  }

  /**
   * Sends `signal` to the whole family; SIGKILL to what is left `graceMs` later. Resolves once it
   * has exited. A second call while stopping waits for the first.
   */
  stop(reason: string, signal: NodeJS.Signals = 'SIGTERM', graceMs = STOP_GRACE_MS): Promise<void> {
    if (!this.alive || !this.family) return this.exited;
    this.stopping ??= (async () => {
      this.killReason = reason;
      await this.family!.killAll(signal, graceMs);
      await Promise.race([this.exited, new Promise((r) => setTimeout(r, 2000))]);
    })();
    return this.stopping;
  }

  info(): ProcessInfo {
    const net = this.launch?.net ?? null;
    return {
      process_id: this.id,
      command: this.spec.command,
      description: this.spec.description ?? null,
      cwd: toPosix(path.relative(this.deps.root, this.spec.cwd)),
      pid: this.pid,
      status: this.status,
      exit_code: this.exitCode,
      signal: this.signal,
      kill_reason: this.killReason,
      sandboxed: !!this.spec.sandbox,
      ports: this.ports,
      forwards: net ? net.forwarded().filter((f) => this.ports.includes(f.port)) : this.ports.map((p) => ({ port: p, host_port: p })),
      started_at: this.startedAt.toISOString(),
      ended_at: this.endedAt?.toISOString() ?? null,
      session_id: this.spec.sessionId,
      correlation_id: this.spec.correlationId ?? null,
      output_bytes: this.ring.end,
      log_path: this.log ? toPosix(path.relative(this.deps.root, this.log.file)) : null,
      network: this.network(net),
    };
  }

  private network(net: Launch['net']): NetworkActivity | null {
    const activity = this.spec.sandbox?.network && net ? net.activity() : this.networkAtEnd;
    if (!this.hostPortNotes.size) return activity;
    const noted = [...this.hostPortNotes].map(([host, reason]) => ({ host, reason }));
    return { reached: activity?.reached ?? [], refused: [...(activity?.refused ?? []), ...noted] };
  }

  /** Reads whole lines of a sandboxed process's output for ports of this machine found closed to it. */
  private watchHostPorts(chunk: Buffer): void {
    const text = this.lineCarry + chunk.toString('utf8');
    const nl = text.lastIndexOf('\n');
    this.lineCarry = text.slice(nl + 1).slice(-4096);
    if (nl < 0 || !/refused|connect|in ?use/i.test(text)) return;
    const forwards = this.launch?.net?.hostPorts ?? null;
    void hostPortFindings(text.slice(0, nl), forwards, this.spec.sandbox?.explainHostPort, new Set(this.hostPortNotes.keys())).then((found) => {
      let added = false;
      for (const f of found) if (!this.hostPortNotes.has(f.host)) added = !!this.hostPortNotes.set(f.host, f.reason);
      if (added) this.deps.onChange(this);
    });
  }

  /** Closes the log; the process must have exited. */
  dispose(): void {
    this.log?.close();
  }

  private push(chunk: Buffer): void {
    if (this.spec.sandbox) this.watchHostPorts(chunk);
    this.ring.write(chunk);
    this.log?.append(chunk);
    this.lastActivity = Date.now();
    for (const l of this.listeners) l(chunk);
    this.deps.onOutput(this, chunk);
  }

  private async onExit(code: number | null, signal: NodeJS.Signals | null): Promise<void> {
    if (this.portTimer) clearInterval(this.portTimer);
    // What the shell left behind goes with it, as after a foreground command.
    await this.family?.killAll();
    const child = this.child!;
    await Promise.race([new Promise((r) => child.once('close', r)), new Promise((r) => setTimeout(r, 1000))]);
    child.stdout?.destroy();
    child.stderr?.destroy();
    this.finish(this.killReason ? 'killed' : 'exited', code, signal);
  }

  private finish(status: ProcessStatus, code: number | null, signal: NodeJS.Signals | null): void {
    this.status = status;
    this.exitCode = code;
    this.signal = signal;
    this.endedAt = new Date();
    this.ports = [];
    // What its network did outlives the proxy.
    if (this.spec.sandbox?.network && this.launch?.net) this.networkAtEnd = this.launch.net.activity();
    this.launch?.close();
    this.launch = null;
    this.markExited();
    this.deps.onChange(this);
    this.deps.onExit(this);
  }
}
