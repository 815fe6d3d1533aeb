// Opening a workspace path so that the file checked is the file used. Every folder on the way
// is opened without following links, each through the descriptor of its parent
// (/proc/self/fd/N/name resolves inside exactly the folder N is), so a folder swapped for a
// symbolic link between a check and the use cannot redirect the open. The last name is opened
// with O_NOFOLLOW and O_NONBLOCK, then fstat'd: a FIFO, socket or device is refused without
// ever blocking. Where /proc is missing each step is lstat'd instead and the opened file's
// identity compared with the name afterwards.
import fs, { constants as C, type Stats } from 'node:fs';
import { lstat, open, realpath, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { LoupeError, PathOutsideWorkspaceError } from '../../errors';
import { FileTooLargeError, NotAFileError, UnsafePathError } from './errors';

export const O_NOFOLLOW = C.O_NOFOLLOW ?? 0;
const O_DIRECTORY = C.O_DIRECTORY ?? 0;
export const O_NONBLOCK = C.O_NONBLOCK ?? 0;

const errno = (err: unknown) => (err as NodeJS.ErrnoException).code;

function procWorks(): boolean {
  if (process.platform !== 'linux') return false;
  try {
    const fd = fs.openSync('/', C.O_RDONLY | O_DIRECTORY);
    try {
      return fs.readlinkSync(`/proc/self/fd/${fd}`) === '/' && fs.statSync(`/proc/self/fd/${fd}/`).isDirectory();
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return false;
  }
}

let viaDescriptors = procWorks();

/** Tests switch to the portable walk to cover it on Linux too. Returns the previous setting. */
export function useDescriptorWalk(on: boolean): boolean {
  const was = viaDescriptors;
  viaDescriptors = on && procWorks();
  return was;
}

const toPosix = (p: string) => p.split(path.sep).join('/');

/** Workspace-relative form of `abs`; throws when it is not inside `root`. */
export function relInside(root: string, abs: string): string {
  if (!isInsideRoot(root, abs)) throw new PathOutsideWorkspaceError(abs);
  return toPosix(path.relative(root, path.resolve(root, abs)));
}

function isInsideRoot(root: string, abs: string): boolean {
  const rel = path.relative(root, path.resolve(root, abs));
  return !rel.startsWith('..') && !path.isAbsolute(rel);
}

/** A folder held open: names built with at() resolve inside this very folder. */
export interface HeldDir {
  /** The folder's real absolute path. */
  readonly abs: string;
  /** Workspace-relative, '' for the root. */
  readonly rel: string;
  /** A path naming the held folder itself (for readdir). */
  readonly self: string;
  at(name: string): string;
  close(): void;
}

export interface HoldOptions {
  /** Create missing folders (each one checked like an existing one). */
  create?: boolean;
  mode?: number;
}

const realRoots = new Map<string, string>();
function realRoot(root: string): string {
  let real = realRoots.get(root);
  if (real === undefined) {
    real = fs.realpathSync(root);
    if (realRoots.size > 64) realRoots.clear();
    realRoots.set(root, real);
  }
  return real;
}

/**
 * Why `p` (reached as `rel`) could not be opened as a folder: a link is unsafe; anything else
 * means the path does not exist as asked (null), unless folders are to be created there.
 */
function notAFolder(p: string, rel: string, create: boolean | undefined): LoupeError | null {
  let st: Stats | null = null;
  try {
    st = fs.lstatSync(p);
  } catch {
    /* gone meanwhile */
  }
  if (st?.isSymbolicLink()) return new UnsafePathError(rel, 'is a symbolic link where a folder was expected');
  if (!create) return null;
  return new LoupeError('INVALID_PATH', `${rel} is not a folder (it is a file or changed while being opened). Check the path.`);
}

function missingOr(err: LoupeError | null): null {
  if (err) throw err;
  return null;
}

/**
 * Holds the folder `absDir` (inside `root`) open, reached without following any link below
 * the root. null when a folder on the way is missing (and `create` is off).
 */
export function holdDir(root: string, absDir: string, opts: HoldOptions = {}): HeldDir | null {
  const base = realRoot(root);
  // `root` is normally a realpath already; a path given under its real form is inside all the same.
  const rel = isInsideRoot(root, absDir) ? relInside(root, absDir) : relInside(base, absDir);
  const parts = rel === '' ? [] : rel.split('/');
  return viaDescriptors ? holdByDescriptors(base, parts, opts) : holdByLstat(base, parts, opts);
}

function holdByDescriptors(base: string, parts: string[], opts: HoldOptions): HeldDir | null {
  let fd = fs.openSync(base, C.O_RDONLY | O_DIRECTORY);
  try {
    for (let i = 0; i < parts.length; i++) {
      const p = `/proc/self/fd/${fd}/${parts[i]}`;
      const rel = parts.slice(0, i + 1).join('/');
      let next: number;
      try {
        next = fs.openSync(p, C.O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
      } catch (err) {
        if (errno(err) === 'ENOTDIR' || errno(err) === 'ELOOP') {
          const why = notAFolder(p, rel, opts.create);
          if (why) throw why;
          fs.closeSync(fd);
          return null;
        }
        if (errno(err) !== 'ENOENT') throw err;
        if (!opts.create) {
          fs.closeSync(fd);
          return null;
        }
        try {
          fs.mkdirSync(p, opts.mode ?? 0o777);
        } catch (e) {
          if (errno(e) !== 'EEXIST') throw e;
        }
        try {
          next = fs.openSync(p, C.O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
        } catch (e) {
          throw errno(e) === 'ENOTDIR' || errno(e) === 'ELOOP' ? (notAFolder(p, rel, true) ?? e) : e;
        }
      }
      fs.closeSync(fd);
      fd = next;
    }
    // A folder renamed out of the workspace while held would take our writes with it.
    const expected = path.join(base, ...parts);
    if (fs.readlinkSync(`/proc/self/fd/${fd}`) !== expected) throw new UnsafePathError(parts.join('/'), 'moved while being opened');
  } catch (err) {
    fs.closeSync(fd);
    throw err;
  }
  return heldByFd(fd, path.join(base, ...parts), parts.join('/'));
}

function heldByFd(held: number, abs: string, rel: string): HeldDir {
  let open = true;
  return {
    abs,
    rel,
    self: `/proc/self/fd/${held}`,
    at: (name) => `/proc/self/fd/${held}/${checkName(name)}`,
    close: () => {
      if (open) fs.closeSync(held);
      open = false;
    },
  };
}

/**
 * The real folder `name` inside the held folder `dir`, held in turn without walking from the
 * root again (a scan of many nested folders then opens each one once). null when it is missing,
 * not a folder, or a link.
 */
export function holdChild(dir: HeldDir, name: string): HeldDir | null {
  const rel = dir.rel ? `${dir.rel}/${checkName(name)}` : checkName(name);
  const abs = path.join(dir.abs, name);
  if (!viaDescriptors) {
    const st = fs.lstatSync(abs, { throwIfNoEntry: false });
    return st?.isDirectory() ? { abs, rel, self: abs, at: (n) => path.join(abs, checkName(n)), close: () => undefined } : null;
  }
  let fd: number;
  try {
    fd = fs.openSync(dir.at(name), C.O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  } catch (err) {
    if (errno(err) === 'ENOENT' || errno(err) === 'ENOTDIR' || errno(err) === 'ELOOP') return null;
    throw err;
  }
  try {
    if (fs.readlinkSync(`/proc/self/fd/${fd}`) !== abs) throw new UnsafePathError(rel, 'moved while being opened');
  } catch (err) {
    fs.closeSync(fd);
    throw err;
  }
  return heldByFd(fd, abs, rel);
}

function holdByLstat(base: string, parts: string[], opts: HoldOptions): HeldDir | null {
  let cur = base;
  for (let i = 0; i < parts.length; i++) {
    cur = path.join(cur, parts[i]);
    const rel = parts.slice(0, i + 1).join('/');
    let st: Stats;
    try {
      st = fs.lstatSync(cur);
    } catch (err) {
      if (errno(err) === 'ENOTDIR') return missingOr(notAFolder(cur, rel, opts.create));
      if (errno(err) !== 'ENOENT') throw err;
      if (!opts.create) return null;
      try {
        fs.mkdirSync(cur, opts.mode ?? 0o777);
      } catch (e) {
        if (errno(e) !== 'EEXIST') throw e;
      }
      st = fs.lstatSync(cur);
    }
    if (!st.isDirectory()) return missingOr(notAFolder(cur, rel, opts.create));
  }
  const abs = cur;
  return { abs, rel: parts.join('/'), self: abs, at: (name) => path.join(abs, checkName(name)), close: () => undefined };
}

function checkName(name: string): string {
  if (!name || name === '.' || name === '..' || name.includes('/') || name.includes('\0')) throw new Error(`not a single file name: ${name}`);
  return name;
}

/** Where links cannot be caught at open time, the opened file must be the one the checked name leads to. */
export async function confirmIdentity(dir: HeldDir, name: string, st: Stats): Promise<void> {
  if (viaDescriptors) return;
  const [named, real] = await Promise.all([lstat(dir.at(name)).catch(() => null), realpath(dir.abs).catch(() => null)]);
  if (!named || named.ino !== st.ino || named.dev !== st.dev || real !== dir.abs) throw new UnsafePathError(dir.rel ? `${dir.rel}/${name}` : name, 'changed while being opened');
}

export interface OpenedFile {
  fh: FileHandle;
  st: Stats;
  rel: string;
}

/**
 * Opens the regular file `abs` inside `root`. `flags` are open(2) flags; O_NOFOLLOW and
 * O_NONBLOCK are always added. null when it (or a folder on the way) does not exist.
 */
export interface OpenOptions extends HoldOptions {
  fileMode?: number;
  /** How errors name the file (default: its path relative to `root`). */
  rel?: string;
}

export async function openInside(root: string, abs: string, flags: number = C.O_RDONLY, opts: OpenOptions = {}): Promise<OpenedFile | null> {
  const name = path.basename(abs);
  const dir = holdDir(root, path.dirname(abs), opts);
  const rel = opts.rel ?? (dir ? (dir.rel ? `${dir.rel}/${name}` : name) : relInside(root, abs));
  if (!dir) return null;
  let fh: FileHandle;
  try {
    fh = await open(dir.at(name), flags | O_NOFOLLOW | O_NONBLOCK, opts.fileMode ?? 0o666);
  } catch (err) {
    dir.close();
    const code = errno(err);
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    if (code === 'ELOOP') throw new UnsafePathError(rel, 'is a symbolic link');
    if (code === 'EISDIR') throw new NotAFileError(rel);
    if (code === 'ENXIO' || code === 'EOPNOTSUPP') throw new NotAFileError(rel, 'a socket or device');
    throw err;
  }
  try {
    const st = await fh.stat();
    if (st.isDirectory()) throw new NotAFileError(rel);
    if (!st.isFile()) throw new NotAFileError(rel, 'a FIFO, socket or device');
    await confirmIdentity(dir, name, st);
    return { fh, st, rel };
  } catch (err) {
    await fh.close().catch(() => undefined);
    throw err;
  } finally {
    dir.close();
  }
}

export interface ReadResult {
  buf: Buffer;
  st: Stats;
}

/** The whole regular file, or null when it does not exist. Never blocks on a FIFO. */
export async function readInside(root: string, abs: string, opts: { maxBytes?: number; rel?: string } = {}): Promise<ReadResult | null> {
  const opened = await openInside(root, abs, C.O_RDONLY, { rel: opts.rel });
  if (!opened) return null;
  const { fh, st, rel } = opened;
  try {
    const max = opts.maxBytes ?? Infinity;
    if (st.size > max) throw new FileTooLargeError(rel, st.size, max);
    const buf = await fh.readFile();
    if (buf.length > max) throw new FileTooLargeError(rel, buf.length, max);
    return { buf, st };
  } finally {
    await fh.close();
  }
}

/** lstat of `abs` reached through real folders; null when missing. */
export function lstatInside(root: string, abs: string): Stats | null {
  const dir = holdDir(root, path.dirname(abs));
  if (!dir) return null;
  try {
    return fs.lstatSync(dir.at(path.basename(abs)));
  } catch (err) {
    if (errno(err) === 'ENOENT' || errno(err) === 'ENOTDIR') return null;
    throw err;
  } finally {
    dir.close();
  }
}

/** The target of the link `abs`, as bytes, reached through real folders; null when missing or not a link. */
export function readlinkInside(root: string, abs: string): Buffer | null {
  const dir = holdDir(root, path.dirname(abs));
  if (!dir) return null;
  try {
    return fs.readlinkSync(dir.at(path.basename(abs)), { encoding: 'buffer' });
  } catch (err) {
    if (errno(err) === 'ENOENT' || errno(err) === 'ENOTDIR' || errno(err) === 'EINVAL') return null;
    throw err;
  } finally {
    dir.close();
  }
}
