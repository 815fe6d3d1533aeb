// Write-then-rename in the target's own folder: a crash at any instant leaves either the
// old bytes or the new ones under the name, never a mix (rename is atomic on one filesystem).
// fdatasync is enough: it flushes the data and the size needed to read it back.
import { randomBytes } from 'node:crypto';
import { open, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';

/** `mode` keeps an existing file's permission bits; new files get the usual 0666 & ~umask. */
const tempName = (base: string) => `.${base}.${randomBytes(6).toString('hex')}.loupe-tmp`;

export async function writeFileAtomic(abs: string, data: Buffer, mode?: number): Promise<void> {
  const tmp = path.join(path.dirname(abs), tempName(path.basename(abs)));
  const fh = await open(tmp, 'wx', 0o666);
  try {
    await fh.writeFile(data);
    if (mode !== undefined) await fh.chmod(mode);
    await fh.datasync();
  } catch (err) {
    await fh.close().catch(() => undefined);
    await rm(tmp, { force: true });
    throw err;
  }
  await fh.close();
  try {
    await rename(tmp, abs);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/** Removes temp files a killed writer left next to `abs` (callers hold the file's lock). */
export async function sweepStaleTemps(abs: string): Promise<number> {
  const dir = path.dirname(abs);
  const prefix = `.${path.basename(abs)}.`;
  const stale = (await readdir(dir).catch(() => [] as string[])).filter(
    (n) => n.startsWith(prefix) && n.endsWith('.loupe-tmp') && n.length === prefix.length + 12 + '.loupe-tmp'.length,
  );
  await Promise.all(stale.map((n) => rm(path.join(dir, n), { force: true })));
  return stale.length;
}
