// One writer at a time across processes: `loupe serve`, `loupe mcp` and `loupe run` can share a
// workspace's modification log, and each numbers its modifications by continuing from the log's
// last id. Without a lock two of them appending in the same second both wrote mod-…-001 (seen
// in an e2e run: the second entry vanished from the timeline, folded over the first).
// The lock file lives in .loupe/, so it is created, read and removed only through real folders.
// It appears whole or not at all: the pid is written to a temp file which is then hard-linked to
// the lock's name (link fails if the name exists). Creating the lock empty and writing the pid
// after left an empty lock whenever a writer was killed in between, and an empty lock names no
// process to check, so every other writer waited for it to age out (seen under a SIGKILL test).
// The lock names its holder by pid and, where /proc tells it, the holder's start time: a pid
// alone may belong to another process by the time it is checked (this machine's pids wrap at
// 32,768), and a check by age alone depends on how fast the machine is. A lock whose holder is
// verifiably gone is taken over at once; one whose holder runs is never taken from it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { FileNotFoundError, LoupeError } from '../../errors';
import { UnsafePathError } from '../files/errors';
import { lstatInside, readInside } from '../files/safeOpen';
import { createWholeInside, sweepLinkTempsInside, unlinkInside } from '../files/safeWrite';

export interface LockOptions {
  /** Give up after this long. */
  timeoutMs?: number;
  /** A lock that names no start time of its holder (see isStale), older than this, is from a writer that died mid-append. */
  staleMs?: number;
  /** The folder the lock must stay inside (default: the lock's own folder). */
  root?: string;
  /**
   * Remove the temp files of writers killed before they linked the lock (a readdir of its
   * folder; default true). A caller appending many times does it on its first lock only.
   */
  sweep?: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** When a process started (clock ticks since boot), from /proc; null where there is none. */
export function startOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command's closing parenthesis; starttime is the 22nd of the line.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] || null;
  } catch {
    return null;
  }
}

/** What this process writes into a lock it holds: `pid start`, or `pid` without /proc. */
export function holderId(): string {
  const start = startOf(process.pid);
  return start ? `${process.pid} ${start}` : String(process.pid);
}

/** An empty lock older than this was left by an older Loupe killed between create and write. */
const EMPTY_STALE_MS = 2_000;

/** True when the lock at `file` belongs to nobody any more (its process is gone, or it is too old). */
async function isStale(root: string, file: string, staleMs: number): Promise<boolean> {
  const st = lstatInside(root, file);
  if (!st) return false; // released meanwhile: just try again
  if (!st.isFile()) throw new UnsafePathError(path.relative(root, file), 'is not a lock file Loupe made (a link or something else sits there)');
  const text = await readInside(root, file).then((r) => r?.buf.toString('utf8') ?? '', () => '');
  const [pidText, start] = text.trim().split(' ');
  const pid = Number.parseInt(pidText, 10);
  if (Number.isInteger(pid) && pid > 0) {
    if (!alive(pid)) return true;
    // Alive under that pid: the holder itself, unless that process started at another time.
    if (start) {
      const now = startOf(pid);
      return now !== null && now !== start;
    }
  }
  // No start time to tell (an older Loupe, no /proc) or no pid at all: only age can.
  const age = Date.now() - st.mtimeMs;
  return age > staleMs || (text === '' && age > EMPTY_STALE_MS);
}

/** Tries once to take the lock: true when this process now holds it, false when someone does. */
async function take(root: string, file: string): Promise<boolean> {
  try {
    return await createWholeInside(root, file, holderId());
  } catch (err) {
    if (err instanceof FileNotFoundError) throw new UnsafePathError(path.relative(root, path.dirname(file)), 'is missing');
    throw err;
  }
}

export async function withLogLock<T>(file: string, fn: () => Promise<T>, opts: LockOptions = {}): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
  const staleMs = opts.staleMs ?? 30_000;
  const root = opts.root ?? path.dirname(file);
  for (let wait = 2; ; wait = Math.min(wait * 2, 50)) {
    if (await take(root, file)) break;
    if (await isStale(root, file, staleMs)) {
      await unlinkInside(root, file).catch(() => undefined);
      continue;
    }
    if (Date.now() > deadline) {
      throw new LoupeError('TIMEOUT', `Another Loupe process has held ${file} for over ${opts.timeoutMs ?? 10_000} ms. If none is running, delete that file and try again.`);
    }
    await sleep(wait);
  }
  try {
    if (opts.sweep !== false) await sweepLinkTempsInside(root, file, (pid) => !alive(pid));
    return await fn();
  } finally {
    await unlinkInside(root, file).catch(() => undefined);
  }
}
