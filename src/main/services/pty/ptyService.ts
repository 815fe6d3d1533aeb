// Terminals for the terminal pane: node-pty in the host, xterm.js in the renderer.
// Flow control follows VS Code: past HIGH_WATERMARK unacknowledged characters the PTY is
// paused until the renderer acknowledges what xterm has actually written, so a runaway
// `yes` can neither flood the transport nor grow host memory.
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import type * as Pty from 'node-pty';
import type { TerminalInfo } from '../../../shared/contract';
import { InvalidArgumentError } from '../../errors';
import { familyOf, processTable, signalAll } from '../process/processTable';
import { selectShell } from '../shell/shellSelector';
import { checkSpawnHelperOnce } from './spawnHelper';

// Not named `require`: the bundler declares one of its own at module scope.
const requireHere = createRequire(import.meta.url);
let ptyModule: typeof Pty | null = null;
/** node-pty (a native module) is loaded with the first terminal, not when the host starts. */
const pty = (): typeof Pty => (ptyModule ??= requireHere('node-pty') as typeof Pty);

export const HIGH_WATERMARK_CHARS = 100_000;
export const LOW_WATERMARK_CHARS = 5_000;
/** Output is coalesced for this long so a chatty process sends few, larger messages. */
const FLUSH_MS = 5;
const MAX_CHUNK_CHARS = 64 * 1024;
const MAX_TERMINALS = 32;
const KILL_GRACE_MS = 250;
/**
 * A renderer that lost acknowledgements (a reload mid-flood, a dropped socket, a view torn
 * down with writes in flight) must not wedge the shell forever: after this long paused with
 * no ack at all, the PTY resumes. Memory stays bounded by the transports' own buffer caps.
 */
export const STALL_RESUME_MS = 2_000;

export interface PtyEvents {
  data(id: string, data: string): void;
  exit(id: string, exitCode: number, signal?: number): void;
}

interface Terminal {
  info: TerminalInfo;
  proc: Pty.IPty;
  unacked: number;
  paused: boolean;
  stallTimer: NodeJS.Timeout | null;
  pending: string;
  flushTimer: NodeJS.Timeout | null;
  exited: boolean;
}

export class PtyService {
  private readonly terminals = new Map<string, Terminal>();

  constructor(
    private readonly events: PtyEvents,
    private readonly stallResumeMs = STALL_RESUME_MS,
  ) {}

  create(opts: { cols: number; rows: number; cwd: string; env?: NodeJS.ProcessEnv }): TerminalInfo {
    if (this.terminals.size >= MAX_TERMINALS) throw new InvalidArgumentError(`At most ${MAX_TERMINALS} terminals can be open; close one first.`);
    checkSpawnHelperOnce();
    const shell = selectShell();
    const proc = pty().spawn(shell.path, [], {
      name: 'xterm-256color',
      cols: clampDim(opts.cols, 80),
      rows: clampDim(opts.rows, 24),
      cwd: opts.cwd,
      env: { ...process.env, ...opts.env, TERM: 'xterm-256color', COLORTERM: 'truecolor', LOUPE_TERMINAL: '1' } as Record<string, string>,
    });
    const id = randomUUID();
    const t: Terminal = {
      info: { id, shell: shell.path, title: shell.name, pid: proc.pid },
      proc,
      unacked: 0,
      paused: false,
      stallTimer: null,
      pending: '',
      flushTimer: null,
      exited: false,
    };
    this.terminals.set(id, t);
    proc.onData((data) => this.onData(t, data));
    proc.onExit(({ exitCode, signal }) => {
      t.exited = true;
      if (t.stallTimer) clearTimeout(t.stallTimer);
      this.flush(t);
      this.terminals.delete(id);
      this.events.exit(id, exitCode, signal || undefined);
    });
    return t.info;
  }

  list(): TerminalInfo[] {
    return [...this.terminals.values()].map((t) => t.info);
  }

  input(id: string, data: string): void {
    this.get(id).proc.write(data);
  }

  resize(id: string, cols: number, rows: number): void {
    const t = this.get(id);
    if (!t.exited) t.proc.resize(clampDim(cols, 80), clampDim(rows, 24));
  }

  ack(id: string, chars: number): void {
    const t = this.terminals.get(id);
    if (!t || !Number.isFinite(chars) || chars <= 0) return;
    t.unacked = Math.max(0, t.unacked - chars);
    if (t.paused) {
      this.armStallTimer(t);
      if (t.unacked < LOW_WATERMARK_CHARS) this.resume(t);
    }
  }

  /** Unacknowledged characters for a terminal: what flow control bounds. */
  backlog(id: string): number {
    return this.get(id).unacked;
  }

  /** Kills everything the terminal started (the PTY's shell leads its own session). */
  kill(id: string): void {
    const t = this.terminals.get(id);
    if (!t) return;
    killSession(t.proc.pid);
    if (t.paused) t.proc.resume();
  }

  dispose(): void {
    for (const id of [...this.terminals.keys()]) this.kill(id);
  }

  private get(id: string): Terminal {
    const t = this.terminals.get(id);
    if (!t) throw new InvalidArgumentError(`No terminal with id ${id}; it may have exited.`);
    return t;
  }

  private resume(t: Terminal): void {
    if (t.stallTimer) clearTimeout(t.stallTimer);
    t.stallTimer = null;
    t.paused = false;
    t.proc.resume();
  }

  private armStallTimer(t: Terminal): void {
    if (t.stallTimer) clearTimeout(t.stallTimer);
    t.stallTimer = setTimeout(() => {
      if (!t.paused || t.exited) return;
      // Forget what was never acknowledged; it is not coming.
      t.unacked = 0;
      this.resume(t);
    }, this.stallResumeMs);
    t.stallTimer.unref();
  }

  private onData(t: Terminal, data: string): void {
    t.pending += data;
    t.unacked += data.length;
    if (!t.paused && t.unacked > HIGH_WATERMARK_CHARS) {
      t.paused = true;
      t.proc.pause();
      this.armStallTimer(t);
    }
    if (t.pending.length >= MAX_CHUNK_CHARS) this.flush(t);
    else t.flushTimer ??= setTimeout(() => this.flush(t), FLUSH_MS);
  }

  private flush(t: Terminal): void {
    if (t.flushTimer) clearTimeout(t.flushTimer);
    t.flushTimer = null;
    if (!t.pending) return;
    const data = t.pending;
    t.pending = '';
    this.events.data(t.info.id, data);
  }
}

function clampDim(n: number, fallback: number): number {
  return Number.isInteger(n) && n > 0 && n <= 1000 ? n : fallback;
}

/**
 * Hangs up a terminal the way closing a real one does, but surely: SIGHUP to every process
 * group in the shell's session (interactive shells give each job its own group), then
 * SIGKILL to whatever of that family is still there after the grace period.
 */
export function killSession(pid: number, graceMs = KILL_GRACE_MS): void {
  const family = familyOf(pid);
  const groups = new Set(family.map((p) => p.pgid).filter((g) => g > 1));
  groups.add(pid);
  signalAll([...groups].map((g) => -g), 'SIGHUP');
  setTimeout(() => {
    const survivors = familyOf(pid, processTable()).map((p) => p.pid);
    signalAll(new Set([...family.map((p) => p.pid), ...survivors, pid]), 'SIGKILL');
  }, graceMs).unref();
}
