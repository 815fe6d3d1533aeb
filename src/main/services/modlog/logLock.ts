// One writer at a time across processes: `loupe serve`, `loupe mcp` and `loupe run` can share a
// workspace's modification log, and each numbers its modifications by continuing from the log's
// last id. Without a lock two of them appending in the same second both wrote mod-…-001 (seen
// in an e2e run: the second entry vanished from the timeline, folded over the first).
// The lock file lives in .loupe/, so it is created, read and removed only through real folders.
// It appears whole or not at all: the pid is written to a temp file which is then hard-linked to
// the lock's name (link fails if the name exists). Creating the lock empty and writing the pid
// after left an empty lock whenever a writer was killed in between, and an empty lock names no
// process to check, so every other writer waited for it to age out (seen under a SIGKILL test).
import path from 'node:path';
import { FileNotFoundError, LoupeError } from '../../errors';
import { UnsafePathError } from '../files/errors';
import { lstatInside, readInside } from '../files/safeOpen';
import { createWholeInside, sweepLinkTempsInside, unlinkInside } from '../files/safeWrite';

export interface LockOptions {
  /** Give up after this long. */
  timeoutMs?: number;
  /** A lock file older than this is from a writer that died mid-append. */
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

/** An empty lock older than this was left by an older Loupe killed between create and write. */
const EMPTY_STALE_MS = 2_000;

/** True when the lock at `file` belongs to nobody any more (its process is gone, or it is too old). */
async function isStale(root: string, file: string, staleMs: number): Promise<boolean> {
  const st = lstatInside(root, file);
  if (!st) return false; // released meanwhile: just try again
  if (!st.isFile()) throw new UnsafePathError(path.relative(root, file), 'is not a lock file Loupe made (a link or something else sits there)');
  const text = await readInside(root, file).then((r) => r?.buf.toString('utf8') ?? '', () => '');
  const pid = Number.parseInt(text, 10);
  if (Number.isInteger(pid) && pid > 0 && !alive(pid)) return true;
  const age = Date.now() - st.mtimeMs;
  return age > staleMs || (text === '' && age > EMPTY_STALE_MS);
}

/** Tries once to take the lock: true when this process now holds it, false when someone does. */
async function take(root: string, file: string): Promise<boolean> {
  try {
    return await createWholeInside(root, file, String(process.pid));
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
