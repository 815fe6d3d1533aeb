import type { GitBadge } from '../../shared/contract';

// Higher wins when several changes sit under one folder: a conflict matters more than an edit.
const PRIORITY: Record<GitBadge, number> = { U: 6, D: 5, M: 4, R: 3, C: 3, A: 2, '?': 1, '!': 0 };

/**
 * For every folder above a changed file, the most important badge beneath it, so the tree
 * can mark collapsed folders that hide changes. Ignored files mark nothing.
 */
export function changedAncestors(status: Readonly<Record<string, GitBadge>>): Record<string, GitBadge> {
  const dirs: Record<string, GitBadge> = {};
  for (const [rawPath, badge] of Object.entries(status)) {
    if (badge === '!') continue;
    const path = rawPath.endsWith('/') ? rawPath.slice(0, -1) : rawPath;
    let i = path.lastIndexOf('/');
    while (i > 0) {
      const dir = path.slice(0, i);
      const prev = dirs[dir];
      if (prev !== undefined && PRIORITY[prev] >= PRIORITY[badge]) break;
      dirs[dir] = badge;
      i = dir.lastIndexOf('/');
    }
  }
  return dirs;
}

/** Strips trailing slashes git puts on directory entries so lookups by row path work. */
export function normaliseStatus(status: Readonly<Record<string, GitBadge>>): Record<string, GitBadge> {
  const out: Record<string, GitBadge> = {};
  for (const [path, badge] of Object.entries(status)) out[path.endsWith('/') ? path.slice(0, -1) : path] = badge;
  return out;
}
