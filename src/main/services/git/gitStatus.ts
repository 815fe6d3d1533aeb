import type { GitBadge } from '../../../shared/contract';
import { GitRunner } from './gitRunner';

/**
 * One path's line of `git status --porcelain=v2`: its two status letters (`.` for unchanged;
 * `??` untracked), and for a rename or copy the path it came from.
 */
export interface StatusEntry {
  xy: string;
  from?: string;
}

/**
 * Parses `git status --porcelain=v2 -z` into one entry per repository-relative path. A path
 * both staged as deleted and present untracked gets two lines; the last (untracked) wins.
 */
export function parsePorcelainV2Z(out: string): Map<string, StatusEntry> {
  const entries = new Map<string, StatusEntry>();
  const fields = out.split('\0');
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i];
    const kind = f[0];
    if (kind === '?') entries.set(f.slice(2), { xy: '??' });
    else if (kind === '!') entries.set(f.slice(2), { xy: '!!' });
    else if (kind === '1') entries.set(after(f, 8), { xy: f.slice(2, 4) });
    // Renames and copies carry the original path as the next field.
    else if (kind === '2') entries.set(after(f, 9), { xy: f.slice(2, 4), from: fields[++i] });
    else if (kind === 'u') entries.set(after(f, 10), { xy: f.slice(2, 4) });
  }
  return entries;
}

/** What follows the first `n` space-separated fields (a path may hold spaces). */
function after(line: string, n: number): string {
  let at = 0;
  for (let k = 0; k < n; k++) at = line.indexOf(' ', at) + 1;
  return line.slice(at);
}

export function badgeOf(xy: string): GitBadge {
  const [x, y] = xy;
  if (x === '?' && y === '?') return '?';
  if (x === '!' && y === '!') return '!';
  if (x === 'U' || y === 'U' || (x === 'A' && y === 'A') || (x === 'D' && y === 'D')) return 'U';
  if (x === 'R') return 'R';
  if (x === 'C') return 'C';
  if (x === 'D' || y === 'D') return 'D';
  if (x === 'A') return 'A';
  return 'M';
}

export function toBadges(entries: Map<string, StatusEntry>): Record<string, GitBadge> {
  const status: Record<string, GitBadge> = {};
  for (const [file, e] of entries) status[file] = badgeOf(e.xy);
  return status;
}

export async function isGitRepo(root: string): Promise<boolean> {
  try {
    const top = (await new GitRunner(root).run(['rev-parse', '--show-toplevel'])).trim();
    return top.length > 0;
  } catch {
    return false;
  }
}

/** Where `root` sits in its repository ('' at the top, `pkg/` in a subfolder). */
export async function repoPrefix(root: string, call: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<string> {
  return (await new GitRunner(root).run(['rev-parse', '--show-prefix'], call)).trim();
}

export interface StatusCall {
  signal?: AbortSignal;
  timeoutMs?: number;
  /**
   * Let git write what it learnt into the index (fresh stat data, the untracked cache) when
   * the lock is free. Without it every status redoes that work.
   */
  writeIndex?: boolean;
  /** Only these workspace-relative paths (a folder covers what is below it); all when absent. */
  paths?: readonly string[];
  /** repoPrefix(root), when the caller knows it already. */
  prefix?: string;
}

const literal = (rel: string) => `:(literal)${rel}`;

/** Status entries relative to `root`, which may be a subfolder of the repository. */
export async function statusEntries(root: string, call: StatusCall = {}): Promise<Map<string, StatusEntry>> {
  const git = new GitRunner(root);
  const { signal, timeoutMs } = call;
  const prefix = call.prefix ?? (await repoPrefix(root, { signal, timeoutMs }));
  // The runner adds --ignore-submodules=all: an embedded repository is never entered with its own config.
  // At the top and for the whole tree no pathspec is given: git uses the untracked cache only without one.
  const spec = call.paths ? call.paths.map(literal) : prefix ? ['.'] : [];
  const args = ['status', '--porcelain=v2', '-z', '-uall', ...(spec.length ? ['--', ...spec] : [])];
  const out = await git.run(call.writeIndex ? args : ['--no-optional-locks', ...args], { signal, timeoutMs, optionalLocks: call.writeIndex });
  const all = parsePorcelainV2Z(out);
  if (!prefix) return all;
  const scoped = new Map<string, StatusEntry>();
  const strip = (p: string) => (p.startsWith(prefix) ? p.slice(prefix.length) : `../${p}`);
  for (const [file, e] of all) if (file.startsWith(prefix)) scoped.set(strip(file), e.from === undefined ? e : { ...e, from: strip(e.from) });
  return scoped;
}

/** Badges relative to `root`, which may be a subfolder of the repository. */
export async function gitStatus(root: string, call: StatusCall = {}): Promise<Record<string, GitBadge>> {
  return toBadges(await statusEntries(root, call));
}
