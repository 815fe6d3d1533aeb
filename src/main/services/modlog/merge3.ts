// Three-way merge with `git merge-file` on temp files: it needs no repository, so it works
// in plain folders too. Applies the change base→other onto current; a conflict is reported,
// never written.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export type MergeResult = { clean: true; merged: Buffer } | { clean: false; why: string };

export async function merge3(current: Buffer, base: Buffer, other: Buffer, signal?: AbortSignal): Promise<MergeResult> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-merge-'));
  try {
    const [c, b, o] = ['current', 'base', 'other'].map((n) => path.join(dir, n));
    await Promise.all([writeFile(c, current), writeFile(b, base), writeFile(o, other)]);
    return await new Promise<MergeResult>((resolve) => {
      execFile(
        'git',
        ['-c', 'core.hooksPath=/dev/null', 'merge-file', '-p', '-q', c, b, o],
        { cwd: dir, encoding: 'buffer', maxBuffer: 256 * 1024 * 1024, signal },
        (err, stdout, stderr) => {
          if (!err) return resolve({ clean: true, merged: stdout });
          const code = (err as NodeJS.ErrnoException & { code?: unknown }).code;
          // A positive exit status is the number of conflicts; anything else is a failure to merge.
          if (typeof code === 'number' && code > 0 && code < 128) return resolve({ clean: false, why: `${code} conflicting region${code === 1 ? '' : 's'}` });
          resolve({ clean: false, why: `the merge could not run (${stderr.toString().trim() || err.message})` });
        },
      );
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
