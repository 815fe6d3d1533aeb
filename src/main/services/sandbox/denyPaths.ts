// Concrete paths behind the project's `read` deny rules, so the sandbox can hide them from
// commands the analysis cannot see into. The walk is bounded: a huge tree stops early rather
// than delay every command.
import { readdirSync, type Dirent } from 'node:fs';
import path from 'node:path';
import { coversPath } from '../permissions/patterns';

const SKIP = new Set(['node_modules', '.git']);
export const DENY_WALK_LIMIT = 5000;

export function expandDenyGlobs(root: string, patterns: readonly string[], limit = DENY_WALK_LIMIT): string[] {
  if (patterns.length === 0) return [];
  const out: string[] = [];
  const queue = [''];
  let seen = 0;
  while (queue.length && seen < limit) {
    const rel = queue.shift()!;
    let entries: Dirent[];
    try {
      entries = readdirSync(path.join(root, rel), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (++seen > limit) break;
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (patterns.some((p) => coversPath(p, r))) {
        out.push(path.join(root, r));
        continue; // hiding a folder hides what is inside
      }
      if (e.isDirectory() && !SKIP.has(e.name)) queue.push(r);
    }
  }
  return out;
}
