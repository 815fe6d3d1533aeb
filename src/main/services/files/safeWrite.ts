// Writes under a workspace through folders held open (safeOpen): the temp file is created in
// the held folder with O_EXCL|O_NOFOLLOW and renamed within it, so a folder or file swapped for
// a link at any moment cannot send the bytes outside. Write-then-rename keeps the old or the
// new bytes under the name after a crash, never a mix; fdatasync flushes what reading back needs.
import { randomBytes } from 'node:crypto';
import { constants as C } from 'node:fs';
import { link, lstat, open, readdir, rename, rm, unlink } from 'node:fs/promises';
import path from 'node:path';
import { FileNotFoundError } from '../../errors';
import { confirmIdentity, holdDir, O_NOFOLLOW, type HoldOptions } from './safeOpen';

const TEMP_SUFFIX = '.loupe-tmp';
const tempName = (base: string) => `.${base}.${randomBytes(6).toString('hex')}${TEMP_SUFFIX}`;

export interface AtomicWriteOptions {
  /** Permission bits; new files otherwise get 0666 & ~umask. */
  mode?: number;
  /** Create missing parent folders (each checked like an existing one). */
  mkdirs?: boolean;
  dirMode?: number;
  /** false: no fdatasync (a cache Loupe can rebuild, never the person's bytes or the log). Default true. */
  durable?: boolean;
}

/** Replaces `abs` (inside `root`) atomically with `data`. */
export async function writeAtomicInside(root: string, abs: string, data: Buffer | string, opts: AtomicWriteOptions = {}): Promise<void> {
  const name = path.basename(abs);
  const dir = holdDir(root, path.dirname(abs), { create: opts.mkdirs, mode: opts.dirMode });
  if (!dir) throw new FileNotFoundError(path.dirname(abs));
  try {
    const tmp = dir.at(tempName(name));
    const fh = await open(tmp, C.O_WRONLY | C.O_CREAT | C.O_EXCL | O_NOFOLLOW, 0o666);
    let st;
    try {
      // Without descriptor paths, the temp file must be the one the checked folder holds.
      await confirmIdentity(dir, path.basename(tmp), await fh.stat());
      await fh.writeFile(data);
      if (opts.mode !== undefined) await fh.chmod(opts.mode);
      if (opts.durable !== false) await fh.datasync();
      st = await fh.stat();
    } catch (err) {
      await fh.close().catch(() => undefined);
      await unlink(tmp).catch(() => undefined);
      throw err;
    }
    await fh.close();
    try {
      await rename(tmp, dir.at(name));
    } catch (err) {
      await unlink(tmp).catch(() => undefined);
      throw err;
    }
    // And the bytes must have landed under the name asked for (a no-op with descriptor paths).
    await confirmIdentity(dir, name, st);
  } finally {
    dir.close();
  }
}

/** Removes `abs` itself (a link is removed, never followed). false when it was not there. */
export async function unlinkInside(root: string, abs: string): Promise<boolean> {
  const dir = holdDir(root, path.dirname(abs));
  if (!dir) return false;
  try {
    await unlink(dir.at(path.basename(abs)));
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  } finally {
    dir.close();
  }
}

/** Removes `abs` (inside `root`) and, when it is a folder, all it holds; a link is removed, never followed. */
export async function removeTreeInside(root: string, abs: string): Promise<void> {
  const dir = holdDir(root, path.dirname(abs));
  if (!dir) return;
  try {
    await rm(dir.at(path.basename(abs)), { recursive: true, force: true });
  } finally {
    dir.close();
  }
}

/** Makes sure `absDir` is a real folder reached through real folders, creating what is missing. */
export function ensureDirInside(root: string, absDir: string, opts: HoldOptions = {}): void {
  holdDir(root, absDir, { create: true, ...opts })?.close();
}

/** Names in the folder `absDir`; [] when it does not exist. */
export async function readdirInside(root: string, absDir: string): Promise<string[]> {
  const dir = holdDir(root, absDir);
  if (!dir) return [];
  try {
    return await readdir(dir.self);
  } finally {
    dir.close();
  }
}

/** Removes temp files a killed writer left next to `abs` (callers hold the file's lock). */
export async function sweepTempsInside(root: string, abs: string): Promise<number> {
  const dir = holdDir(root, path.dirname(abs));
  if (!dir) return 0;
  try {
    const prefix = `.${path.basename(abs)}.`;
    const names = await readdir(dir.self).catch(() => [] as string[]);
    const stale = names.filter((n) => n.startsWith(prefix) && n.endsWith(TEMP_SUFFIX) && n.length === prefix.length + 12 + TEMP_SUFFIX.length);
    await Promise.all(stale.map((n) => unlink(dir.at(n)).catch(() => undefined)));
    return stale.length;
  } finally {
    dir.close();
  }
}

const LINK_SUFFIX = '.loupe-link';

/**
 * Creates `abs` with `data` only if nothing is there, and never lets it be seen partly written
 * (where the file system has hard links; `linkFile` is for tests of the others):
 * the bytes go to a temp file that is then hard-linked to the name (link fails if the name
 * exists). false when something already sits there. The temp file's name carries this process's
 * id so that one left by a killed process can be swept (sweepLinkTempsInside).
 */
export async function createWholeInside(root: string, abs: string, data: Buffer | string, mode = 0o644, linkFile: typeof link = link): Promise<boolean> {
  const name = path.basename(abs);
  const dir = holdDir(root, path.dirname(abs));
  if (!dir) throw new FileNotFoundError(path.dirname(abs));
  try {
    const tmp = dir.at(`.${name}.${process.pid}.${randomBytes(4).toString('hex')}${LINK_SUFFIX}`);
    const fh = await open(tmp, C.O_WRONLY | C.O_CREAT | C.O_EXCL | O_NOFOLLOW, mode);
    try {
      await fh.writeFile(data);
    } finally {
      await fh.close();
    }
    try {
      await linkFile(tmp, dir.at(name));
      return true;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return false;
      if (!NO_HARD_LINKS.has(code ?? '')) throw err;
    } finally {
      await unlink(tmp).catch(() => undefined);
    }
    // A file system without hard links (FAT, exFAT, some network shares): create the name
    // itself, then write. It can be seen empty for a moment; readers allow for that.
    const fh2 = await open(dir.at(name), C.O_WRONLY | C.O_CREAT | C.O_EXCL | O_NOFOLLOW, mode).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'EEXIST') return null;
      throw err;
    });
    if (!fh2) return false;
    try {
      await fh2.writeFile(data);
    } finally {
      await fh2.close();
    }
    return true;
  } finally {
    dir.close();
  }
}

/** What link() says on file systems that have no hard links. */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EMLINK']);

/** Removes createWholeInside's temp files for `abs` whose process `isGone` says has died. */
export async function sweepLinkTempsInside(root: string, abs: string, isGone: (pid: number) => boolean): Promise<number> {
  const dir = holdDir(root, path.dirname(abs));
  if (!dir) return 0;
  try {
    const prefix = `.${path.basename(abs)}.`;
    let swept = 0;
    for (const n of await readdir(dir.self).catch(() => [] as string[])) {
      if (!n.startsWith(prefix) || !n.endsWith(LINK_SUFFIX)) continue;
      const pid = Number.parseInt(n.slice(prefix.length), 10);
      if (!Number.isInteger(pid) || pid <= 0 || !isGone(pid)) continue;
      const st = await lstat(dir.at(n)).catch(() => null);
      if (st?.isFile() && (await unlink(dir.at(n)).then(() => true, () => false))) swept++;
    }
    return swept;
  } finally {
    dir.close();
  }
}
