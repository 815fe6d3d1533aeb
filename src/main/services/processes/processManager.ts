// A workspace's background processes (docs/architecture.md, "Background processes"): built once
// per workspace by the composition root and disposed with it, which stops every one of them.
// A process belongs to the session that started it; stopping a request leaves it running.
// Limits: so many running at once, and an idle time (no output, no read) after which it stops.
import path from 'node:path';
import { ManagedProcess } from './managedProcess';
import { ProcessLimitError, ProcessNotFoundError } from './errors';
import { queryOutput, type OutputSlice } from './outputQuery';
import { waitFor } from './readiness';
import type { ProcessInfo, ProcessSpec, WaitFor, WaitResult } from './types';

export const DEFAULT_MAX_PROCESSES = 8;
export const DEFAULT_IDLE_MS = 2 * 3600 * 1000;
export const RING_BYTES = 1024 * 1024;
/** Ended processes kept for reading, the oldest dropped first. */
const KEEP_ENDED = 50;
const IDLE_CHECK_MS = 60_000;

export interface ProcessLimits {
  maxRunning: number;
  idleMs: number;
}

/**
 * What the manager tells whoever composes it. `onStarted`/`onExited` carry the command, the cwd,
 * the session and the correlation id: the seam where a process's file writes can be attached to
 * the request that started it.
 */
export interface ProcessEvents {
  onStarted?: (info: ProcessInfo) => void;
  onExited?: (info: ProcessInfo) => void;
  /** Any change a list shows: status, ports. */
  onChanged?: (info: ProcessInfo) => void;
  onOutput?: (id: string, chunk: Buffer) => void;
}

/** Brackets a process's life: begun before it starts, ended once it has exited. */
export interface ProcessRecorder {
  begin(spec: ProcessSpec): Promise<{ end(): Promise<unknown> }>;
}

export interface ProcessManagerOptions {
  root: string;
  limits?: () => Promise<Partial<ProcessLimits>> | Partial<ProcessLimits>;
  ringBytes?: number;
  /** What a process writes to the workspace is recorded around its life (the composition root's capture). */
  recorder?: ProcessRecorder;
}

export interface OutputRequest {
  /** Who reads: "new since the last read" is per reader (a chat session, an MCP connection). */
  reader: string;
  since?: number;
  tail?: number;
  grep?: RegExp;
  maxBytes: number;
}

export class ProcessManager {
  private readonly procs = new Map<string, ManagedProcess>();
  /** Each ended process's recording of what it wrote, while it is taken and after. */
  private readonly recordings = new WeakMap<ManagedProcess, Promise<unknown>>();
  private readonly cursors = new Map<string, Map<string, number>>();
  private readonly listeners = new Set<ProcessEvents>();
  private next = 1;
  private idleTimer: NodeJS.Timeout | null = null;
  private disposed = false;
  /** Recordings of processes that ended, still being written: dispose waits for them. */
  private readonly ending = new Set<Promise<unknown>>();

  constructor(private readonly opts: ProcessManagerOptions) {}

  /** Listens to starts, exits, changes and output; returns the unsubscribe. */
  subscribe(events: ProcessEvents): () => void {
    this.listeners.add(events);
    return () => this.listeners.delete(events);
  }

  async limits(): Promise<ProcessLimits> {
    const l = (await this.opts.limits?.()) ?? {};
    return { maxRunning: l.maxRunning ?? DEFAULT_MAX_PROCESSES, idleMs: l.idleMs ?? DEFAULT_IDLE_MS };
  }

  /** Starts `spec` in the background; `waiting`: a wait_for follows, so it shows as starting. */
  async start(spec: ProcessSpec, waiting = false, id?: string): Promise<ManagedProcess> {
    if (this.disposed) throw new Error('the workspace is closing');
    const { maxRunning } = await this.limits();
    const running = [...this.procs.values()].filter((p) => p.alive && p.id !== id);
    if (running.length >= maxRunning) throw new ProcessLimitError(maxRunning, running.map((p) => p.id));
    const pid = id ?? `proc-${this.next++}`;
    // Begun before the process starts, so nothing it writes can come before the first snapshot.
    const recording = this.opts.recorder ? await this.opts.recorder.begin(spec).catch(() => null) : null;
    const end = (mp: ManagedProcess) => {
      if (!recording) return;
      const job = recording.end().catch(() => undefined);
      this.ending.add(job);
      this.recordings.set(mp, job);
      void job.finally(() => this.ending.delete(job));
    };
    const p = new ManagedProcess(pid, spec, {
      root: this.opts.root,
      logDir: path.join(this.opts.root, '.loupe', 'outputs', 'processes'),
      ringBytes: this.opts.ringBytes ?? RING_BYTES,
      onChange: (mp) => this.emit((l) => l.onChanged?.(mp.info())),
      onOutput: (mp, chunk) => this.emit((l) => l.onOutput?.(mp.id, chunk)),
      onExit: (mp) => {
        end(mp);
        this.emit((l) => l.onExited?.(mp.info()));
      },
    }, waiting);
    this.procs.get(pid)?.dispose();
    this.procs.set(pid, p);
    this.cursors.delete(pid);
    this.prune();
    await p.start();
    this.emit((l) => l.onStarted?.(p.info()));
    this.emit((l) => l.onChanged?.(p.info()));
    this.watchIdle();
    return p;
  }

  get(id: string): ManagedProcess {
    const p = this.procs.get(id);
    if (!p) throw new ProcessNotFoundError(id, [...this.procs.keys()]);
    return p;
  }

  list(): ProcessInfo[] {
    return [...this.procs.values()].map((p) => p.info());
  }

  /** Running processes of one session (what a stopped request leaves behind). */
  running(sessionId?: string): ProcessInfo[] {
    return [...this.procs.values()].filter((p) => p.alive && (!sessionId || p.spec.sessionId === sessionId)).map((p) => p.info());
  }

  /** Output of `id`: from `since`; else all of it for tail and grep, or from where this reader stopped last time. */
  output(id: string, req: OutputRequest): OutputSlice & { info: ProcessInfo } {
    const p = this.get(id);
    p.touch();
    const cursors = this.cursors.get(id) ?? new Map<string, number>();
    this.cursors.set(id, cursors);
    // tail and grep ask about the whole output; a bare read continues where this reader stopped.
    const from = req.since ?? (req.tail !== undefined || req.grep ? 0 : (cursors.get(req.reader) ?? 0));
    const end = p.bytes;
    const slice = queryOutput(p, end, { from, tail: req.tail, grep: req.grep, maxBytes: req.maxBytes });
    cursors.set(req.reader, end);
    return { ...slice, info: p.info() };
  }

  async wait(id: string, cond: WaitFor, timeoutMs: number, signal?: AbortSignal): Promise<WaitResult> {
    const p = this.get(id);
    const r = await waitFor(p, cond, timeoutMs, signal);
    if (r.satisfied && !r.exited) p.ready();
    else if (r.timed_out) p.settle();
    return r;
  }

  /**
   * Stops it and its family. Resolves once what it wrote is recorded too, so whoever stopped it
   * finds its modifications in the log, and the recording's own walk of the tree (rg, git) is
   * not still running when "killed" is reported.
   */
  async kill(id: string, signal: NodeJS.Signals = 'SIGTERM', reason = 'stopped on request'): Promise<ProcessInfo> {
    const p = this.get(id);
    await p.stop(reason, signal);
    await this.recordings.get(p);
    return p.info();
  }

  /** Stops it and starts the same command again under the same id (a new log). */
  async restart(id: string): Promise<ProcessInfo> {
    const old = this.get(id);
    await old.stop('restarted');
    // The new run's first snapshot comes after the old run's writes are recorded.
    await this.recordings.get(old);
    const p = await this.start(old.spec, false, id);
    return p.info();
  }

  /** Stops what a subagent started, once it has ended; resolves when their writes are recorded. Returns their ids. */
  async stopStartedBy(agentId: string, reason: string): Promise<string[]> {
    const mine = [...this.procs.values()].filter((p) => p.alive && p.spec.agentId === agentId);
    await Promise.all(
      mine.map(async (p) => {
        await p.stop(reason);
        await this.recordings.get(p);
      }),
    );
    return mine.map((p) => p.id);
  }

  /** Stops every running process (the workspace closes, Loupe quits, a client disconnected). */
  async stopAll(reason: string): Promise<void> {
    await Promise.all([...this.procs.values()].filter((p) => p.alive).map((p) => p.stop(reason)));
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    if (this.idleTimer) clearInterval(this.idleTimer);
    await this.stopAll('the workspace closed');
    await Promise.all([...this.ending]);
    for (const p of this.procs.values()) p.dispose();
    this.listeners.clear();
  }

  /** Stops processes idle past the limit (checked each minute while any runs). */
  async checkIdle(now = Date.now()): Promise<string[]> {
    const { idleMs } = await this.limits();
    const idle = [...this.procs.values()].filter((p) => p.alive && now - p.lastActivity > idleMs);
    await Promise.all(idle.map((p) => p.stop(`idle for more than ${Math.round(idleMs / 60000)} minutes (no output, nobody read it)`)));
    return idle.map((p) => p.id);
  }

  private watchIdle(): void {
    if (this.idleTimer) return;
    this.idleTimer = setInterval(() => {
      void this.checkIdle();
      if (![...this.procs.values()].some((p) => p.alive) && this.idleTimer) {
        clearInterval(this.idleTimer);
        this.idleTimer = null;
      }
    }, IDLE_CHECK_MS);
    this.idleTimer.unref();
  }

  private prune(): void {
    const ended = [...this.procs.values()].filter((p) => !p.alive);
    for (const p of ended.slice(0, Math.max(0, ended.length - KEEP_ENDED))) {
      p.dispose();
      this.procs.delete(p.id);
      this.cursors.delete(p.id);
    }
  }

  private emit(fn: (l: ProcessEvents) => void): void {
    for (const l of this.listeners) {
      try {
        fn(l);
      } catch {
        // One listener's failure must not stop the others or the process.
      }
    }
  }
}
