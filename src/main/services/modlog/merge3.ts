// Three-way merge with `git merge-file` on temp files: it needs no repository, so it works
// in plain folders too. Applies the change base→other onto current; a conflict is reported,
// never written.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { GitRunner } from '../git/gitRunner';

export type MergeResult = { clean: true; merged: Buffer } | { clean: false; why: string };

export async function merge3(current: Buffer, base: Buffer, other: Buffer, signal?: AbortSignal): Promise<MergeResult> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-merge-'));
  try {
    const [c, b, o] = ['current', 'base', 'other'].map((n) => path.join(dir, n));
    await Promise.all([writeFile(c, current), writeFile(b, base), writeFile(o, other)]);
    const out = await new GitRunner(dir, { repository: false }).exec(['merge-file', '-p', '-q', c, b, o], { signal });
    if (out.exitCode === 0) return { clean: true, merged: out.stdout };
    // A positive exit status is the number of conflicts; anything else is a failure to merge.
    if (out.exitCode > 0 && out.exitCode < 128) return { clean: false, why: `${out.exitCode} conflicting region${out.exitCode === 1 ? '' : 's'}` };
    return { clean: false, why: `the merge could not run (${out.stderr.trim() || `exit ${out.exitCode}`})` };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
