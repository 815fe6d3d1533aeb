// The project's standing instructions, in every form people write them (docs/architecture.md,
// "What the agent is told"): AGENTS.md and CLAUDE.md at the root and in folders the agent works
// in, Cursor's rules (.cursor/rules/*.mdc with their globs and alwaysApply, and the older
// .cursorrules), GitHub Copilot's .github/copilot-instructions.md, and the person's own AGENTS.md
// in their config folder. Looked for on every call (a text is reused only while its file is
// unchanged), so an edit applies at the next turn.
//
// A clone writes these files, so they are read like any workspace file the agent may not
// trust: through real folders, never waiting on a FIFO, a link followed only when it stays
// inside the workspace, and never when the person's read rules keep the file from the agent.
// Anything skipped is said, with why.
import { lstatSync, type Stats } from 'node:fs';
import { readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { InstructionKind } from '../../../shared/contract';
import { LoupeError } from '../../errors';
import { FileTooLargeError, NotAFileError, UnsafePathError } from '../files/errors';
import { holdChild, holdDir, lstatInside, readInside, type HeldDir } from '../files/safeOpen';
import { pathMatcher } from '../permissions/patterns';
import { isInside, toPosix } from '../workspace/pathGuard';
import { parseCursorRule } from './frontMatter';

export type { InstructionKind };

/** When a file applies: always, for work in a folder, for files matching globs, or when the model asks for it. */
export type Applies = { when: 'always' } | { when: 'folder'; folder: string } | { when: 'globs'; globs: string[] } | { when: 'on_request'; description: string };

export interface InstructionFile {
  /** Workspace-relative; the person's own file: its absolute path. */
  path: string;
  kind: InstructionKind;
  applies: Applies;
  /** The text (a Cursor rule without its front matter); empty for a rule read on request. */
  text: string;
}

export interface SkippedInstruction {
  path: string;
  reason: string;
}

export interface InstructionSearch {
  /** Realpath of the workspace. */
  root: string;
  /** The person's config folder, whose AGENTS.md applies to every project; null: none. */
  personalDir: string | null;
  /** Workspace-relative (or absolute inside the workspace) paths the agent has worked in. */
  touched: readonly string[];
  /** The read rules, loaded once per search: why they keep a workspace file from the agent, null when they let it read. */
  readRules?: () => Promise<(rel: string) => string | null>;
  /**
   * Texts read before, by path: reused while the file's identity, size and times are unchanged,
   * so a turn costs an lstat per file instead of a read. Kept by the caller (one per prompt source).
   */
  cache?: Map<string, CachedText>;
}

export interface CachedText {
  /** dev:ino:size:mtime:ctime of the file read. */
  key: string;
  text: string;
  /** dev:ino, so a link and its target are included once. */
  identity: string;
}

/** Files over this are skipped: a standing instruction is prose, not a data dump. */
export const MAX_INSTRUCTION_BYTES = 1024 * 1024;
/** Folders whose instructions are someone else's (dependencies) or Loupe's and git's own. */
const FOREIGN = new Set(['node_modules', '.git', '.loupe']);
const MAX_FOLDERS = 500;
const MAX_RULES = 200;
const MAX_CACHED = 2_000;

const ROOT_FILES: [string, InstructionKind][] = [
  ['AGENTS.md', 'AGENTS.md'],
  ['CLAUDE.md', 'CLAUDE.md'],
  ['.github/copilot-instructions.md', 'copilot-instructions'],
  ['.cursorrules', '.cursorrules'],
];
const FOLDER_FILES: [string, InstructionKind][] = [
  ['AGENTS.md', 'AGENTS.md'],
  ['CLAUDE.md', 'CLAUDE.md'],
];

/** A touched path as a workspace-relative one; null when it is not inside. */
export function relativeInside(root: string, p: string): string | null {
  if (typeof p !== 'string' || p.includes('\0')) return null;
  const rel = path.posix.normalize(toPosix(path.isAbsolute(p) ? path.relative(root, p) : p)).replace(/^(\.\/)+/, '').replace(/\/+$/, '');
  if (rel === '.' || rel === '') return '';
  if (rel === '..' || rel.startsWith('../') || path.isAbsolute(rel) || /^[A-Za-z]:/.test(rel)) return null;
  return rel;
}

/** Every folder on the way to each touched path (the path itself too: it may be a folder), shallow first. */
export function foldersOf(root: string, touched: readonly string[]): string[] {
  const found = new Set<string>();
  for (const t of touched) {
    const rel = relativeInside(root, t);
    if (!rel) continue;
    const parts = rel.split('/');
    for (let i = 1; i <= parts.length && !FOREIGN.has(parts[i - 1]); i++) found.add(parts.slice(0, i).join('/'));
  }
  const depth = (f: string) => f.split('/').length;
  return [...found].sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : a > b ? 1 : 0)).slice(0, MAX_FOLDERS);
}

/** A Cursor glob: with a slash, from the root; without one, a file name at any depth. */
function globMatcher(glob: string): (rel: string) => boolean {
  const g = glob.replace(/^(\.\/)+/, '');
  const m = pathMatcher(g);
  return g.includes('/') ? m : (rel) => m(rel) || m(path.posix.basename(rel));
}

interface Reader {
  files: InstructionFile[];
  skipped: SkippedInstruction[];
  /** dev:ino and text of what was included, so a link or a copy is included once. */
  seen: Map<string, string>;
  refusal: ((rel: string) => string | null) | null;
}

export async function findInstructions(s: InstructionSearch): Promise<{ files: InstructionFile[]; skipped: SkippedInstruction[] }> {
  const r: Reader = { files: [], skipped: [], seen: new Map(), refusal: s.readRules ? await s.readRules() : null };
  if (s.cache && s.cache.size > MAX_CACHED) s.cache.clear();
  if (s.personalDir) await readPersonal(r, s.personalDir);
  for (const [rel, kind] of ROOT_FILES) await include(r, s, rel, kind, { when: 'always' });
  await cursorRules(r, s);
  for (const [folder, name, kind, st] of presentIn(s.root, foldersOf(s.root, s.touched))) await include(r, s, `${folder}/${name}`, kind, { when: 'folder', folder }, undefined, st);
  return { files: r.files, skipped: r.skipped };
}

/**
 * The instruction files present in `folders` (shallow first), found by walking down from the
 * root through held real folders, each opened once through its parent: a child that is not a
 * real folder (a file the agent named, a link, nothing) is not entered. This runs every turn for
 * every folder the conversation touched, so it raises no exception for what is missing.
 */
function presentIn(root: string, folders: string[]): [string, string, InstructionKind, Stats][] {
  const children = new Map<string, string[]>();
  for (const f of folders) {
    const parent = path.posix.dirname(f) === '.' ? '' : path.posix.dirname(f);
    children.set(parent, [...(children.get(parent) ?? []), path.posix.basename(f)]);
  }
  const found: [string, string, InstructionKind, Stats][] = [];
  const visit = (dir: HeldDir) => {
    if (dir.rel) {
      for (const [name, kind] of FOLDER_FILES) {
        const st = lstatSync(dir.at(name), { throwIfNoEntry: false });
        if (st) found.push([dir.rel, name, kind, st]);
      }
    }
    for (const child of children.get(dir.rel) ?? []) {
      if (!lstatSync(dir.at(child), { throwIfNoEntry: false })?.isDirectory()) continue;
      const held = holdChild(dir, child);
      if (!held) continue;
      try {
        visit(held);
      } finally {
        held.close();
      }
    }
  };
  let top;
  try {
    top = holdDir(root, root);
  } catch {
    return [];
  }
  if (!top) return [];
  try {
    visit(top);
  } catch {
    // A folder moved away mid-walk: what was found so far stands; the next turn looks again.
  } finally {
    top.close();
  }
  const depth = (f: string) => f.split('/').length;
  return found.sort((a, b) => depth(a[0]) - depth(b[0]) || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

async function readPersonal(r: Reader, dir: string): Promise<void> {
  const abs = path.join(dir, 'AGENTS.md');
  try {
    // The person's own folder, not a clone's: a link there is theirs to follow (dotfiles).
    const real = await realpath(abs).catch(() => null);
    if (!real) return;
    const read = await readInside(path.dirname(real), real, { maxBytes: MAX_INSTRUCTION_BYTES, rel: abs });
    if (read) add(r, { path: abs, kind: 'personal', applies: { when: 'always' }, text: read.buf.toString('utf8') }, `${read.st.dev}:${read.st.ino}`);
  } catch (err) {
    r.skipped.push({ path: abs, reason: whySkipped(err) });
  }
}

async function cursorRules(r: Reader, s: InstructionSearch): Promise<void> {
  let names: string[];
  try {
    names = await listRules(s.root, '.cursor/rules', 0);
  } catch (err) {
    r.skipped.push({ path: '.cursor/rules', reason: whySkipped(err) });
    return;
  }
  const touched = s.touched.map((t) => relativeInside(s.root, t)).filter((t): t is string => !!t);
  for (const rel of names.slice(0, MAX_RULES)) {
    await include(r, s, rel, 'cursor-rule', null, (text) => {
      const rule = parseCursorRule(text);
      if (rule.alwaysApply) return { applies: { when: 'always' }, text: rule.body };
      if (rule.globs.length) {
        const match = rule.globs.map(globMatcher);
        return touched.some((t) => match.some((m) => m(t))) ? { applies: { when: 'globs', globs: rule.globs }, text: rule.body } : null;
      }
      // Cursor's "agent requested" rule: the model sees its description and reads it when relevant.
      return rule.description ? { applies: { when: 'on_request', description: rule.description }, text: '' } : null;
    });
  }
}

/** `.mdc` files under a rules folder (and its subfolders, as Cursor allows), sorted. */
async function listRules(root: string, rel: string, depth: number): Promise<string[]> {
  const dir = holdDir(root, path.join(root, rel));
  if (!dir) return [];
  let entries;
  try {
    entries = await readdir(dir.self, { withFileTypes: true });
  } finally {
    dir.close();
  }
  const out: string[] = [];
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (e.isDirectory() && depth < 3) out.push(...(await listRules(root, `${rel}/${e.name}`, depth + 1)));
    else if (e.name.endsWith('.mdc') && !e.isDirectory()) out.push(`${rel}/${e.name}`);
  }
  return out;
}

type Shape = (text: string) => { applies: Applies; text: string } | null;

/** Reads one workspace file and adds it (or says why not). `applies` null: `shape` decides from the text. */
async function include(r: Reader, s: InstructionSearch, rel: string, kind: InstructionKind, applies: Applies | null, shape?: Shape, known?: Stats): Promise<void> {
  try {
    const read = await readWorkspaceFile(s, r, rel, known);
    if (!read) return;
    if (read.text.includes('\0')) throw new LoupeError('BINARY_FILE', 'is not text');
    const shaped = shape ? shape(read.text) : { applies: applies!, text: read.text };
    if (shaped) add(r, { path: rel, kind, ...shaped }, read.identity);
  } catch (err) {
    r.skipped.push({ path: rel, reason: whySkipped(err) });
  }
}

function add(r: Reader, file: InstructionFile, identity: string): void {
  const same = r.seen.get(identity) ?? (file.text.trim() ? r.seen.get(`text:${file.text.trim()}`) : undefined);
  if (same !== undefined) {
    r.skipped.push({ path: file.path, reason: `the same as ${same}, included once` });
    return;
  }
  r.seen.set(identity, file.path);
  if (file.text.trim()) r.seen.set(`text:${file.text.trim()}`, file.path);
  r.files.push(file);
}

/**
 * The file at `rel`, or null when there is none. Never through a link that leaves the
 * workspace, never waiting on a FIFO, never when the read rules keep it (or, for a link inside
 * the workspace such as CLAUDE.md → AGENTS.md, its target) from the agent.
 */
async function readWorkspaceFile(s: InstructionSearch, r: Reader, rel: string, known?: Stats): Promise<CachedText | null> {
  const abs = path.join(s.root, rel);
  // `known`: the lstat of this very name, taken through its held folder a moment ago.
  const st = known ?? lstatInside(s.root, abs);
  if (!st) return null;
  let target = rel;
  if (st.isSymbolicLink()) {
    const real = await realpath(abs).catch(() => null);
    if (!real) return null;
    if (!isInside(s.root, real)) throw new LinkOutsideError();
    target = toPosix(path.relative(s.root, real));
  }
  for (const p of new Set([rel, target])) {
    const refusal = r.refusal?.(p);
    if (refusal) throw new ReadRefusedError(refusal);
  }
  // The same regular file as last time (reached through real folders, as the read would be): its text then.
  const now = target === rel ? st : lstatInside(s.root, path.join(s.root, target));
  const hit = now?.isFile() ? s.cache?.get(target) : undefined;
  if (hit && now && hit.key === statKey(now)) return hit;
  const read = await readInside(s.root, path.join(s.root, target), { maxBytes: MAX_INSTRUCTION_BYTES, rel });
  if (!read) return null;
  const fresh = { key: statKey(read.st), text: read.buf.toString('utf8'), identity: `${read.st.dev}:${read.st.ino}` };
  s.cache?.set(target, fresh);
  return fresh;
}

const statKey = (st: Stats): string => `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;

class ReadRefusedError extends LoupeError {
  constructor(reason: string) {
    super('PERMISSION_DENIED', reason);
  }
}

class LinkOutsideError extends LoupeError {
  constructor() {
    super('UNSAFE_PATH', 'is a link to a file outside the workspace, so it is not read');
  }
}

function whySkipped(err: unknown): string {
  if (err instanceof LinkOutsideError || err instanceof ReadRefusedError) return err.message;
  if (err instanceof UnsafePathError) return 'goes through a symbolic link, so it is not read';
  if (err instanceof NotAFileError) return /FIFO|socket|device/.test(err.message) ? 'is a FIFO, socket or device, not a file, so it is not read' : 'is a folder, not a file';
  if (err instanceof FileTooLargeError) return `is over ${MAX_INSTRUCTION_BYTES / 1024 / 1024} MB, too large for standing instructions`;
  if (err instanceof LoupeError && err.code === 'BINARY_FILE') return 'is not text';
  return `could not be read (${err instanceof Error ? err.message : String(err)})`;
}
