// The one place that decides whether a requested path is inside the workspace.
// realpath of the deepest existing ancestor catches `..`, same-prefix siblings
// (/work/app vs /work/app-other) and symlinks (file or folder) that point outside.
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { InvalidArgumentError, PathOutsideWorkspaceError } from '../../errors';

export interface ResolvedPath {
  /** Absolute path with every existing symlink resolved. */
  abs: string;
  /** Workspace-relative, forward slashes, '' for the root. */
  rel: string;
}

export function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

async function realpathOfDeepestAncestor(abs: string): Promise<string> {
  let current = abs;
  const missing: string[] = [];
  for (;;) {
    try {
      const real = await realpath(current);
      return path.join(real, ...missing.reverse());
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
      const parent = path.dirname(current);
      if (parent === current) return abs;
      missing.push(path.basename(current));
      current = parent;
    }
  }
}

/**
 * Resolves `requested` (workspace-relative or absolute) against `root`, which must already be
 * a realpath. Throws PathOutsideWorkspaceError when the result escapes the root.
 */
export async function resolveInWorkspace(root: string, requested: string): Promise<ResolvedPath> {
  if (typeof requested !== 'string') throw new InvalidArgumentError('path must be a string');
  if (requested.includes('\0')) throw new InvalidArgumentError('path contains a NUL byte');
  const joined = path.resolve(root, requested === '' ? '.' : requested);
  if (!isInside(root, joined)) throw new PathOutsideWorkspaceError(requested);
  const real = await realpathOfDeepestAncestor(joined);
  if (!isInside(root, real)) throw new PathOutsideWorkspaceError(requested);
  return { abs: real, rel: toPosix(path.relative(root, real)) };
}

export const toPosix = (p: string): string => p.split(path.sep).join('/');

/** The folder holding a workspace-relative path ('' for the root's entries). */
export const parentOf = (rel: string): string => {
  const d = path.posix.dirname(rel);
  return d === '.' ? '' : d;
};
