import { readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

const MAX_CANDIDATES = 50;

/**
 * Completes a typed folder path for the browser's open-folder field: `~` expands,
 * a trailing separator lists the folder, otherwise siblings matching the last segment.
 */
export async function completeFolder(partial: string): Promise<string[]> {
  let typed = partial.trim() || os.homedir() + path.sep;
  if (typed === '~' || typed.startsWith('~/')) typed = path.join(os.homedir(), typed.slice(1)) + (typed.endsWith('/') ? path.sep : '');
  if (!path.isAbsolute(typed)) typed = path.resolve(os.homedir(), typed);
  const endsWithSep = typed.endsWith(path.sep);
  const dir = endsWithSep ? typed : path.dirname(typed);
  const prefix = endsWithSep ? '' : path.basename(typed);
  const showHidden = prefix.startsWith('.');
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const lower = prefix.toLowerCase();
  return entries
    .filter((e) => (e.isDirectory() || e.isSymbolicLink()) && e.name.toLowerCase().startsWith(lower))
    .filter((e) => showHidden || !e.name.startsWith('.'))
    .map((e) => path.join(dir, e.name))
    .sort((a, b) => a.localeCompare(b))
    .slice(0, MAX_CANDIDATES);
}
