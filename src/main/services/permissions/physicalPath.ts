// Where the kernel will put a file that a command opens, not where the text says: `..` after a
// symlink climbs out of the symlink's target, and a dangling symlink is followed to the file it
// would create. Lexical normalisation (path.resolve) gets both wrong.
import { lstatSync, readlinkSync } from 'node:fs';
import path from 'node:path';

const MAX_LINKS = 40;

/**
 * The physical absolute path `abs` (absolute, unnormalised) designates; null when it loops.
 * Components after the first missing one are taken as written.
 */
export function physicalPath(abs: string): string | null {
  let pending = abs.split('/').filter(Boolean);
  let cur = '/';
  let links = 0;
  while (pending.length) {
    const part = pending.shift()!;
    if (part === '.') continue;
    if (part === '..') {
      cur = path.dirname(cur);
      continue;
    }
    const next = cur === '/' ? `/${part}` : `${cur}/${part}`;
    let isLink: boolean;
    try {
      isLink = lstatSync(next).isSymbolicLink();
    } catch {
      // Missing: the kernel creates it here (or fails, when more components follow).
      return path.join(next, ...pending);
    }
    if (!isLink) {
      cur = next;
      continue;
    }
    if (++links > MAX_LINKS) return null;
    const target = readlinkSync(next);
    if (target.startsWith('/')) cur = '/';
    pending = [...target.split('/').filter(Boolean), ...pending];
  }
  return cur;
}

export function insideRel(root: string, real: string): string | null {
  const rel = path.relative(root, real);
  if (rel === '') return '';
  return rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel) ? null : rel.split(path.sep).join('/');
}
