import type { GitBadge } from '../../../shared/contract';
import { GitRunner } from './gitRunner';

/** Parses `git status --porcelain=v1 -z` into one badge per workspace-relative path. */
export function parsePorcelainZ(out: string): Record<string, GitBadge> {
  const status: Record<string, GitBadge> = {};
  const parts = out.split('\0');
  for (let i = 0; i < parts.length; i++) {
    const entry = parts[i];
    if (entry.length < 4 || entry.startsWith('## ')) continue;
    const x = entry[0];
    const y = entry[1];
    const file = entry.slice(3);
    // Renames and copies carry the original path as the next field.
    if (x === 'R' || x === 'C') i++;
    status[file] = badgeOf(x, y);
  }
  return status;
}

function badgeOf(x: string, y: string): GitBadge {
  if (x === '?' && y === '?') return '?';
  if (x === '!' && y === '!') return '!';
  if (x === 'U' || y === 'U' || (x === 'A' && y === 'A') || (x === 'D' && y === 'D')) return 'U';
  if (x === 'R') return 'R';
  if (x === 'C') return 'C';
  if (x === 'D' || y === 'D') return 'D';
  if (x === 'A') return 'A';
  return 'M';
}

export async function isGitRepo(root: string): Promise<boolean> {
  try {
    const top = (await new GitRunner(root).run(['rev-parse', '--show-toplevel'])).trim();
    return top.length > 0;
  } catch {
    return false;
  }
}

export interface StatusCall {
  signal?: AbortSignal;
  timeoutMs?: number;
  /**
   * Let git write what it learnt into the index (fresh stat data, the untracked cache) when
   * the lock is free. Without it every status redoes that work.
   */
  writeIndex?: boolean;
}

/** Badges relative to `root`, which may be a subfolder of the repository. */
export async function gitStatus(root: string, call: StatusCall = {}): Promise<Record<string, GitBadge>> {
  const git = new GitRunner(root);
  const { signal, timeoutMs } = call;
  const prefix = (await git.run(['rev-parse', '--show-prefix'], { signal, timeoutMs })).trim();
  // The runner adds --ignore-submodules=all: an embedded repository is never entered with its own config.
  // At the top no pathspec is given: git uses the untracked cache only without one.
  const args = ['status', '--porcelain=v1', '-z', '-uall', ...(prefix ? ['--', '.'] : [])];
  const out = await git.run(call.writeIndex ? args : ['--no-optional-locks', ...args], { signal, timeoutMs, optionalLocks: call.writeIndex });
  const all = parsePorcelainZ(out);
  if (!prefix) return all;
  const scoped: Record<string, GitBadge> = {};
  for (const [file, badge] of Object.entries(all)) {
    if (file.startsWith(prefix)) scoped[file.slice(prefix.length)] = badge;
  }
  return scoped;
}
