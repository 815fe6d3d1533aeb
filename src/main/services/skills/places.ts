// The folders skills and commands are found in, and how each is read. A repository's folders
// (`.claude/skills`, `.github/prompts`, …) came with a clone: they are reached through real
// folders of the workspace, a link is followed only when its target is inside the workspace, a
// FIFO or device is never waited on, and a file the read rules keep from the agent is not read.
// The person's own folders (`~/.claude/skills`, the config folder's) are theirs: links there are
// followed wherever they lead (dotfiles), and files are still opened without blocking.
import { lstatSync, readdirSync, statSync, type Dirent, type Stats } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { LoupeError } from '../../errors';
import { FileTooLargeError, NotAFileError, UnsafePathError } from '../files/errors';
import { holdDir, readInside } from '../files/safeOpen';
import { isInside, toPosix } from '../workspace/pathGuard';
import type { Scope } from './types';

/** A skill or command file over this is skipped: these are prompts, not data. */
export const MAX_FILE_BYTES = 1024 * 1024;

export interface Place {
  scope: Scope;
  /** As a person writes it: `.claude/commands`, `~/.codex/prompts`. */
  label: string;
  /** The folder as named (it may not exist). */
  abs: string;
  /** Repository places: the workspace root (realpath) they must stay inside. */
  root?: string;
  /** Repository places: why the read rules keep a workspace-relative path from the agent, null when they do not. */
  refusal?: (rel: string) => string | null;
}

export interface PlaceEntry {
  name: string;
  isDir: boolean;
  /** The real path (a link followed). */
  abs: string;
  /** Workspace-relative real path, for a repository place. */
  rel?: string;
  st: Stats;
}

export interface ReadFile {
  text: string;
  /** dev:ino:size:mtime:ctime, so an unchanged file is not parsed again. */
  key: string;
}

export const statKey = (st: Stats): string => `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;

export class PlaceError extends LoupeError {
  constructor(message: string) {
    super('FILE_READ_ERROR', message);
  }
}

/** The place's folder as a real path it may be read at; null when it does not exist. */
export async function placeDir(place: Place): Promise<string | null> {
  const real = await realpath(place.abs).catch(() => null);
  if (!real) return null;
  if (place.root && !isInside(place.root, real)) throw new PlaceError(`${place.label} is a link out of the workspace, so nothing in it is read`);
  return (await stat(real).catch(() => null))?.isDirectory() ? real : null;
}

/**
 * The entries of a folder of the place (a real path from placeDir or an earlier entry), links
 * followed as the place allows. Entries that cannot be used are reported, not thrown. Read with
 * synchronous calls through one held folder: a stat each, no promise per file (500 command files
 * are listed on every use).
 */
export async function listDir(place: Place, dir: string, report: (what: string, why: string) => void): Promise<PlaceEntry[]> {
  const held = place.root ? holdDir(place.root, dir) : null;
  if (place.root && !held) return [];
  const at = (name: string) => (held ? held.at(name) : path.join(dir, name));
  const out: PlaceEntry[] = [];
  try {
    let names: Dirent[];
    try {
      names = readdirSync(held ? held.self : dir, { withFileTypes: true });
    } catch {
      return [];
    }
    for (const e of names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const named = path.join(dir, e.name);
      let abs = named;
      let st: Stats | undefined;
      if (e.isSymbolicLink()) {
        const real = await realpath(named).catch(() => null);
        if (!real) continue;
        if (place.root && !isInside(place.root, real)) {
          report(shown(place, named), 'is a link out of the workspace, so it is not read');
          continue;
        }
        abs = real;
        st = statSync(real, { throwIfNoEntry: false });
      } else {
        // Through the held folder: the name as it is in this very folder.
        st = statSync(at(e.name), { throwIfNoEntry: false });
      }
      if (!st || !(st.isDirectory() || st.isFile())) {
        if (st) report(shown(place, named), 'is not a file or a folder (a FIFO, socket or device), so it is not read');
        continue;
      }
      out.push({ name: e.name, isDir: st.isDirectory(), abs, st, ...(place.root ? { rel: toPosix(path.relative(place.root, abs)) } : {}) });
    }
  } finally {
    held?.close();
  }
  return out;
}

/** The file or folder `name` in `dir` (a real path of the place), a link followed as the place allows; null when there is none to use. */
export async function entryAt(place: Place, dir: string, name: string, report?: (what: string, why: string) => void): Promise<PlaceEntry | null> {
  const named = path.join(dir, name);
  let abs = named;
  if (place.root) {
    // Its metadata only: what is read of it is read through real folders (readPlaceFile).
    const own = lstatSync(named, { throwIfNoEntry: false });
    if (!own) return null;
    if (own.isSymbolicLink()) {
      const real = await realpath(named).catch(() => null);
      if (!real || !isInside(place.root, real)) return null;
      abs = real;
    }
  } else {
    abs = (await realpath(named).catch(() => null)) ?? named;
  }
  const st = statSync(abs, { throwIfNoEntry: false });
  if (!st || !(st.isDirectory() || st.isFile())) {
    if (st) report?.(shown(place, named), 'is not a file or a folder (a FIFO, socket or device), so it is not read');
    return null;
  }
  return { name, isDir: st.isDirectory(), abs, st, ...(place.root ? { rel: toPosix(path.relative(place.root, abs)) } : {}) };
}

/** How a path of the place is shown to the person: workspace-relative, or with ~ for the home folder. */
export function shown(place: Place, abs: string): string {
  if (place.root) return toPosix(path.relative(place.root, abs));
  return homeRelative(abs);
}

export function homeRelative(abs: string, home = os.homedir()): string {
  return home && (abs === home || abs.startsWith(`${home}/`)) ? `~${abs.slice(home.length)}` : abs;
}

/**
 * A file of the place (a real path), read without ever waiting on a FIFO and, in a repository,
 * only through real folders of the workspace and when the read rules let the agent read it.
 */
export async function readPlaceFile(place: Place, entry: { abs: string; rel?: string }): Promise<ReadFile> {
  const name = shown(place, entry.abs);
  if (place.root && entry.rel !== undefined) {
    const refused = place.refusal?.(entry.rel);
    if (refused) throw new PlaceError(refused);
  }
  try {
    const read = await readInside(place.root ?? path.dirname(entry.abs), entry.abs, { maxBytes: MAX_FILE_BYTES, rel: name });
    if (!read) throw new PlaceError('is gone');
    const text = read.buf.toString('utf8');
    if (text.includes('\0')) throw new PlaceError('is not text');
    return { text, key: statKey(read.st) };
  } catch (err) {
    throw new PlaceError(whyUnread(err));
  }
}

export function whyUnread(err: unknown): string {
  if (err instanceof PlaceError) return err.message;
  if (err instanceof UnsafePathError) return 'goes through a symbolic link, so it is not read';
  if (err instanceof NotAFileError) return /FIFO|socket|device/.test(err.message) ? 'is a FIFO, socket or device, not a file, so it is not read' : 'is a folder, not a file';
  if (err instanceof FileTooLargeError) return `is over ${MAX_FILE_BYTES / 1024 / 1024} MB, too large for a prompt`;
  return `could not be read (${err instanceof Error ? err.message : String(err)})`;
}

export interface PlaceProblem {
  /** The file or folder, workspace-relative or with ~. */
  path: string;
  reason: string;
}

/** One file found, parsed. */
export interface ParsedFile<P extends Place, X, H> {
  place: P;
  entry: PlaceEntry;
  /** What the listing said of it (a skill's folder, a command's name parts). */
  extra: X;
  header: H;
}

/**
 * The files of every place that exists, each once (the same file reached twice, a folder linked
 * into two places or a workspace inside the home folder, counts once), parsed again only when
 * its stat changed; a file gone is forgotten. What cannot be read is a problem, never a throw.
 */
export class ParsedFiles<H> {
  private readonly parsed = new Map<string, { key: string; header: H }>();

  async look<P extends Place, X>(
    places: P[],
    problems: PlaceProblem[],
    files: (place: P, dir: string) => Promise<{ entry: PlaceEntry; extra: X }[]>,
    parse: (text: string, found: { place: P; entry: PlaceEntry; extra: X }) => H,
  ): Promise<ParsedFile<P, X, H>[]> {
    const out: ParsedFile<P, X, H>[] = [];
    const seen = new Set<string>();
    const live = new Set<string>();
    for (const place of places) {
      let dir: string | null;
      try {
        dir = await placeDir(place);
      } catch (err) {
        problems.push({ path: place.label, reason: whyUnread(err) });
        continue;
      }
      if (!dir) continue;
      for (const { entry, extra } of await files(place, dir)) {
        const identity = `${entry.st.dev}:${entry.st.ino}`;
        if (seen.has(identity)) continue;
        seen.add(identity);
        live.add(entry.abs);
        const key = statKey(entry.st);
        const known = this.parsed.get(entry.abs);
        let header = known?.key === key ? known.header : null;
        if (!header) {
          try {
            const read = await readPlaceFile(place, entry);
            header = parse(read.text, { place, entry, extra });
            this.parsed.set(entry.abs, { key: read.key, header });
          } catch (err) {
            problems.push({ path: shown(place, entry.abs), reason: whyUnread(err) });
            continue;
          }
        }
        out.push({ place, entry, extra, header });
      }
    }
    for (const k of this.parsed.keys()) if (!live.has(k)) this.parsed.delete(k);
    return out;
  }
}
