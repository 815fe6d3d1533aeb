// One writer at a time across processes: `loupe serve`, `loupe mcp` and `loupe run` can share a
// workspace's modification log, and each numbers its modifications by continuing from the log's
// last id. Without a lock two of them appending in the same second both wrote mod-…-001 (seen
// in an e2e run: the second entry vanished from the timeline, folded over the first).
import { open, readFile, stat, unlink } from 'node:fs/promises';
import { LoupeError } from '../../errors';

export interface LockOptions {
  /** Give up after this long. */
  timeoutMs?: number;
  /** A lock file older than this is from a writer that died mid-append. */
  staleMs?: number;
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

/** True when the lock at `file` belongs to nobody any more (its process is gone, or it is too old). */
async function isStale(file: string, staleMs: number): Promise<boolean> {
  const [st, text] = await Promise.all([stat(file).catch(() => null), readFile(file, 'utf8').catch(() => '')]);
  if (!st) return false; // released meanwhile: just try again
  const pid = Number.parseInt(text, 10);
  if (Number.isInteger(pid) && pid > 0 && !alive(pid)) return true;
  return Date.now() - st.mtimeMs > staleMs;
}

export async function withLogLock<T>(file: string, fn: () => Promise<T>, opts: LockOptions = {}): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
  const staleMs = opts.staleMs ?? 30_000;
  for (let wait = 2; ; wait = Math.min(wait * 2, 50)) {
    try {
      const fh = await open(file, 'wx', 0o644);
      try {
        await fh.writeFile(String(process.pid));
      } finally {
        await fh.close();
      }
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (await isStale(file, staleMs)) {
        await unlink(file).catch(() => undefined);
        continue;
      }
      if (Date.now() > deadline) {
        throw new LoupeError('TIMEOUT', `Another Loupe process has held ${file} for over ${opts.timeoutMs ?? 10_000} ms. If none is running, delete that file and try again.`);
      }
      await sleep(wait);
    }
  }
  try {
    return await fn();
  } finally {
    await unlink(file).catch(() => undefined);
  }
}
