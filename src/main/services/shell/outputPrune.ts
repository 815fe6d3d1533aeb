// Full command outputs pile up under .loupe/outputs/ (a chatty test suite writes one per run).
// Each new log trims the folder: only recent logs, and only so many bytes, are worth keeping.
// The folder is reached through real folders only: a link planted there must not lead the
// pruning to delete logs somewhere else.
import { unlink } from 'node:fs/promises';
import fs from 'node:fs';
import path from 'node:path';
import { holdDir } from '../files/safeOpen';

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
export async function pruneOutputs(dir: string, keep: string, limits: PruneLimits = OUTPUT_LIMITS, now = Date.now(), root = path.dirname(dir)): Promise<string[]> {
  let held;
  try {
    held = holdDir(root, dir);
  } catch {
    return [];
  }
  if (!held) return [];
  try {
    return await pruneHeld(held, dir, keep, limits, now);
  } finally {
    held.close();
  }
}

async function pruneHeld(held: { self: string; at(n: string): string }, dir: string, keep: string, limits: PruneLimits, now: number): Promise<string[]> {
  const names = (await fs.promises.readdir(held.self).catch(() => [] as string[])).filter((n) => n.endsWith('.log'));
  const logs = names
    .map((name) => {
      let st: fs.Stats | null = null;
      try {
        st = fs.lstatSync(held.at(name));
      } catch {
        /* gone meanwhile */
      }
      return st?.isFile() ? { name, mtime: st.mtimeMs, size: st.size } : null;
    })
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
    if (await unlink(held.at(log.name)).then(() => true, () => false)) removed.push(log.name);
  }
  return removed;
}
