// What a new worktree gets besides its checkout, as the person's settings list it: untracked
// files copied from the main folder (`.env`) and folders linked to the main folder's
// (`node_modules`, so a session need not install again). Each source must be a real entry of
// the main folder (reached without following links: a clone cannot point the copy at a file of
// the person's elsewhere), and nothing the checkout made is replaced.
import { lstat, mkdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import { lstatInside, readInside } from '../files/safeOpen';
import { writeAtomicInside } from '../files/safeWrite';
import type { Prepared } from './worktrees';

const inside = (rel: string) => rel.length > 0 && !path.isAbsolute(rel) && !rel.split(/[\\/]/).includes('..');

export async function prepareWorktree(root: string, target: string, setup: { copy: string[]; link: string[] }): Promise<Prepared> {
  const out: Prepared = { copied: [], linked: [], skipped: [] };
  const taken = async (rel: string) => (await lstat(path.join(target, rel)).catch(() => null)) !== null;
  for (const rel of setup.copy) {
    if (!inside(rel)) out.skipped.push({ path: rel, why: 'not a path inside the folder' });
    else if (await taken(rel)) out.skipped.push({ path: rel, why: 'the checkout has it already' });
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
    else if (await taken(rel)) out.skipped.push({ path: rel, why: 'the checkout has it already' });
    else {
      const st = (() => {
        try {
          return lstatInside(root, path.join(root, rel));
        } catch {
          return null;
        }
      })();
      if (!st || st.isSymbolicLink() || !st.isDirectory()) out.skipped.push({ path: rel, why: st ? 'not a real folder in the main folder' : 'not in the main folder' });
      else {
        await mkdir(path.dirname(path.join(target, rel)), { recursive: true });
        await symlink(path.join(root, rel), path.join(target, rel), 'dir');
        out.linked.push(rel);
      }
    }
  }
  return out;
}
