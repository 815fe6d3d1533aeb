// Kills a command and everything it started, including what tried to get away: a child that
// traps SIGTERM, one that calls setsid, one that double-forks and is reparented to init.
// Three nets, because each alone has a hole:
//   1. the process group and session (detached: true made the shell their leader);
//   2. every pid ever seen below the shell while it ran (polled), checked by start time so a
//      recycled pid is never signalled;
//   3. any process of ours whose environment carries this command's marker (Linux), which
//      catches a daemon that escaped between two polls.
import { readdirSync, readFileSync } from 'node:fs';
import { familyOf, processTable, signalAll, type ProcInfo } from '../process/processTable';
import { COMMAND_MARKER } from './cleanEnv';

export const POLL_MS = 100;
export const KILL_GRACE_MS = 200;
/**
 * How long SIGKILL goes on being sent until nothing is left. It cannot be refused, so what
 * remains is dying or still being made; a fixed ten rounds (200 ms) returned while a dev
 * server's process was still going under load, and a caller told "killed" found it alive.
 */
export const KILL_WAIT_MS = 5_000;

/**
 * Kernel start time of a live pid (Linux), so a pid reused by another program is not
 * mistaken for ours; null when it is gone or a zombie (dead, only waiting to be reaped).
 */
function startTime(pid: number): string | null {
  if (process.platform !== 'linux') return '';
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return f[0] === 'Z' || f[0] === 'X' ? null : (f[19] ?? null);
  } catch {
    return null;
  }
}

function pidsWithMarker(marker: string): number[] {
  if (process.platform !== 'linux') return [];
  const needle = Buffer.from(`${COMMAND_MARKER}=${marker}\0`);
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${name}/environ`).includes(needle)) out.push(Number(name));
    } catch {
      // Not ours to read, or gone.
    }
  }
  return out;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class ProcessFamily {
  /** pid → start time at first sight. */
  private readonly seen = new Map<number, string>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly rootPid: number,
    private readonly marker: string,
    /** How often the tree is walked for escapees (a long-lived process can afford a slower walk). */
    private readonly pollMs = POLL_MS,
  ) {}

  watch(): void {
    this.poll();
    this.timer = setInterval(() => this.poll(), this.pollMs);
    this.timer.unref();
  }

  stopWatching(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Descendants of the root and of every pid seen so far (orphans keep their own children). */
  private poll(table: ProcInfo[] = processTable()): ProcInfo[] {
    const found = new Map<number, ProcInfo>();
    const alive = new Set(table.map((p) => p.pid));
    for (const root of [this.rootPid, ...this.seen.keys()]) {
      if (!alive.has(root) || found.has(root)) continue;
      for (const p of familyOf(root, table)) found.set(p.pid, p);
    }
    for (const p of found.values()) {
      if (p.pid === process.pid || this.seen.has(p.pid)) continue;
      const t = startTime(p.pid);
      if (t !== null) this.seen.set(p.pid, t);
    }
    return [...found.values()];
  }

  /** Every live pid that belongs to this command right now. */
  private members(): number[] {
    const table = processTable();
    const alive = new Set(table.map((p) => p.pid));
    const pids = new Set<number>();
    for (const p of this.poll(table)) if (startTime(p.pid) !== null) pids.add(p.pid);
    for (const [pid, t] of this.seen) if (alive.has(pid) && startTime(pid) === t) pids.add(pid);
    for (const pid of pidsWithMarker(this.marker)) pids.add(pid);
    pids.delete(process.pid);
    return [...pids];
  }

  private signal(sig: NodeJS.Signals): number[] {
    try {
      process.kill(-this.rootPid, sig);
    } catch {
      // The group is already empty.
    }
    const pids = this.members();
    signalAll(pids, sig);
    return pids;
  }

  /**
   * `first` (SIGTERM) to all, SIGKILL to all `graceMs` later (sooner once all are gone), repeated
   * until nothing is left (at most `waitMs` more).
   */
  async killAll(first: NodeJS.Signals = 'SIGTERM', graceMs = KILL_GRACE_MS, waitMs = KILL_WAIT_MS): Promise<void> {
    this.stopWatching();
    if (this.signal(first).length === 0) return;
    for (let waited = 0; waited < graceMs; waited += 50) {
      await sleep(Math.min(50, graceMs - waited));
      if (graceMs > KILL_GRACE_MS && this.members().length === 0) return;
    }
    const until = Date.now() + waitMs;
    do {
      if (this.signal('SIGKILL').length === 0) return;
      await sleep(20);
    } while (Date.now() < until);
  }
}
