// What a new worktree gets besides its checkout, as the person's settings list it: untracked
// files copied from the main folder (`.env`) and folders linked to the main folder's
// (`node_modules`, so a session need not install again). Each source must be a real entry of
// the main folder (reached without following links: a clone cannot point the copy at a file of
// the person's elsewhere), and nothing the checkout made is replaced. The worktree is a checkout
// of the repository, so its folders are reached the same way: a link the checkout made on the
// way to a destination refuses it, never redirects it.
import { symlink } from 'node:fs/promises';
import path from 'node:path';
import { holdDir, lstatInside, readInside } from '../files/safeOpen';
import { writeAtomicInside } from '../files/safeWrite';
import type { Prepared } from './worktrees';

const inside = (rel: string) => rel.length > 0 && !path.isAbsolute(rel) && !rel.split(/[\\/]/).includes('..');

export async function prepareWorktree(root: string, target: string, setup: { copy: string[]; link: string[] }): Promise<Prepared> {
  const out: Prepared = { copied: [], linked: [], skipped: [] };
  const stat = (base: string, rel: string) => {
    try {
      return lstatInside(base, path.join(base, rel));
    } catch {
      return 'unsafe' as const;
    }
  };
  // Present, or behind a link of the checkout: either way not ours to write.
  const blocked = (rel: string): string | null => {
    const s = stat(target, rel);
    return s === null ? null : s === 'unsafe' ? 'a link of the checkout is on the way' : 'the checkout has it already';
  };
  for (const rel of setup.copy) {
    if (!inside(rel)) out.skipped.push({ path: rel, why: 'not a path inside the folder' });
    else if (blocked(rel)) out.skipped.push({ path: rel, why: blocked(rel)! });
    else {
      const read = await readInside(root, path.join(root, rel)).catch(() => 'special' as const);
      if (read === 'special') out.skipped.push({ path: rel, why: 'a link or special file in the main folder' });
      else if (!read) out.skipped.push({ path: rel, why: 'not in the main folder' });
      else {
        await writeAtomicInside(target, path.join(target, rel), read.buf, { mode: read.st.mode & 0o7777, mkdirs: true });
        out.copied.push(rel);
      }
    }
  }
  for (const rel of setup.link) {
    if (!inside(rel)) out.skipped.push({ path: rel, why: 'not a path inside the folder' });
    else if (blocked(rel)) out.skipped.push({ path: rel, why: blocked(rel)! });
    else {
      const st = stat(root, rel);
      if (!st || st === 'unsafe' || st.isSymbolicLink() || !st.isDirectory()) out.skipped.push({ path: rel, why: st ? 'not a real folder in the main folder' : 'not in the main folder' });
      else {
        const dir = holdDir(target, path.dirname(path.join(target, rel)), { create: true });
        try {
          await symlink(path.join(root, rel), dir!.at(path.basename(rel)), 'dir');
        } finally {
          dir?.close();
        }
        out.linked.push(rel);
      }
    }
  }
  return out;
}
