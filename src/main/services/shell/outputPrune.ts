// Full command outputs pile up under .loupe/outputs/ (a chatty test suite writes one per run).
// Each new log trims the folder: only recent logs, and only so many bytes, are worth keeping.
import { readdir, stat, unlink } from 'node:fs/promises';
import path from 'node:path';

export interface PruneLimits {
  /** Logs kept at most, newest first. */
  maxFiles: number;
  /** Bytes kept at most over all logs. */
  maxBytes: number;
  /** Logs older than this are removed whatever the counts. */
  maxAgeMs: number;
}

export const OUTPUT_LIMITS: PruneLimits = { maxFiles: 100, maxBytes: 256 * 1024 * 1024, maxAgeMs: 7 * 24 * 3600 * 1000 };

/** Removes what is over the limits, never `keep` (the log being written). Returns the names removed. */
export async function pruneOutputs(dir: string, keep: string, limits: PruneLimits = OUTPUT_LIMITS, now = Date.now()): Promise<string[]> {
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.log'));
  const logs = (
    await Promise.all(
      names.map(async (name) => {
        const st = await stat(path.join(dir, name)).catch(() => null);
        return st?.isFile() ? { name, mtime: st.mtimeMs, size: st.size } : null;
      }),
    )
  )
    .filter((x) => x !== null)
    .sort((a, b) => b.mtime - a.mtime);
  const removed: string[] = [];
  let files = 0;
  let bytes = 0;
  for (const log of logs) {
    const mine = path.join(dir, log.name) === keep;
    files++;
    bytes += log.size;
    if (mine || (files <= limits.maxFiles && bytes <= limits.maxBytes && now - log.mtime <= limits.maxAgeMs)) continue;
    if (await unlink(path.join(dir, log.name)).then(() => true, () => false)) removed.push(log.name);
  }
  return removed;
}
