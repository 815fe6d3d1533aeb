// What a batch of watcher paths asks of the file index, and the fresh listings that answer it,
// so a saved file costs what it changed instead of a walk of the whole tree (docs/architecture.md,
// "Big folders"). The rules are the walk's own: every listing comes from `rg --files` run
// the same way, so `.gitignore`, `.ignore`, `.rgignore`, global excludes and the `.git`/`.loupe`
// globs decide exactly as they do for the walk.
//
// One catch shapes the code: rg never applies ignore rules to a path it is given, only to what
// it finds below it (`rg --files build` lists an ignored build/). So a folder the index does not
// know is first looked up from its nearest known ancestor, one level at a time: rg lists each of
// those levels with `--debug`, whose "ignoring <path>" lines are the only way rg tells which
// folders its rules hide (a file it hides is simply not listed). The equivalence test
// (indexPatch.property.test.ts) fails if a later rg words them differently.
import { lstatSync } from 'node:fs';
import path from 'node:path';
import { parentOf } from './pathGuard';
import { streamFilesWithRg } from './rgFiles';

/** Files whose rules apply to the folder holding them and everything below it. */
export const IGNORE_FILES = new Set(['.gitignore', '.ignore', '.rgignore']);

export type DiskKind = 'file' | 'dir' | 'other' | 'none';

/** What a path is on disk now, without following links (a linked folder is not walked). */
export function diskKind(root: string, rel: string): DiskKind {
  try {
    const st = lstatSync(path.join(root, rel));
    return st.isFile() ? 'file' : st.isDirectory() ? 'dir' : 'other';
  } catch {
    return 'none';
  }
}

/** The index as the plan needs it: what the last exact state listed. */
export interface IndexView {
  isFile(rel: string): boolean;
  /** A folder with at least one listed file below it (only those are in the index). */
  isDir(rel: string): boolean;
}

export interface PatchPlan {
  /** Folders whose own files are listed again, one level deep. */
  levels: string[];
  /** Folders walked again whole (made, moved in, gone, or holding an ignore file that changed). */
  subtrees: string[];
  /** Folders whose listing may change even when the index does not (an empty folder made or gone). */
  touched: string[];
}

export type Plan = PatchPlan | { full: string };

const isUnder = (rel: string, dir: string): boolean => dir === '' || rel === dir || rel.startsWith(`${dir}/`);

/**
 * The smallest set of listings that brings the index up to date with these paths, or why only
 * the whole walk can. A file still where the index has it is a content change and needs no
 * listing; a temp file that came and went needs none either.
 */
export function planPatch(paths: Iterable<string>, view: IndexView, kindOf: (rel: string) => DiskKind): Plan {
  const levels = new Set<string>();
  const subtrees = new Set<string>();
  const touched = new Set<string>();
  for (const p of paths) {
    if (p === '') return { full: 'the root itself changed' };
    // rg's debug lines (below) are lines: a name with a newline cannot be read back from them.
    if (p.includes('\n')) return { full: 'a name with a line break' };
    const parts = p.split('/');
    const git = parts.indexOf('.git');
    if (git >= 0) {
      // Inside a repository's own folder nothing is listed; the folder coming or going, or its
      // info/exclude, changes which rules apply to everything beside it.
      const rest = parts.slice(git + 1).join('/');
      if (rest === '' || rest === 'info' || rest === 'info/exclude') subtrees.add(parts.slice(0, git).join('/'));
      continue;
    }
    if (parts.includes('.loupe')) continue;
    if (IGNORE_FILES.has(parts[parts.length - 1])) {
      subtrees.add(parentOf(p));
      continue;
    }
    const kind = kindOf(p);
    if (kind === 'file' && view.isFile(p)) continue;
    touched.add(parentOf(p));
    if (kind === 'none' && !view.isFile(p) && !view.isDir(p)) continue;
    levels.add(parentOf(p));
    if (kind === 'dir' || view.isDir(p)) subtrees.add(p);
  }
  if (subtrees.has('')) return { full: 'an ignore rule of the whole tree changed' };
  // A folder listed again whose own folder is gone (a watcher may name only what was inside):
  // what the index had below it goes too, and its parent's listing changes.
  for (let grew = true; grew; ) {
    grew = false;
    for (const l of levels) {
      if (l === '' || kindOf(l) === 'dir') continue;
      levels.delete(l);
      if (!view.isDir(l)) continue;
      subtrees.add(l);
      levels.add(parentOf(l));
      touched.add(parentOf(l));
      grew = true;
    }
  }
  // A walk of a folder covers every listing inside it.
  const walks = [...subtrees].sort().filter((s, i, all) => !all.slice(0, i).some((o) => isUnder(s, o)));
  const kept = [...levels].filter((l) => !walks.some((s) => isUnder(l, s)));
  return { levels: kept, subtrees: walks, touched: [...touched] };
}

/** The ancestors of a folder the index does not know, from its nearest known one down to its parent. */
export function chainTo(dir: string, view: IndexView): string[] {
  const chain: string[] = [];
  for (let d = parentOf(dir); ; d = parentOf(d)) {
    chain.unshift(d);
    if (d === '' || view.isDir(d)) return chain;
  }
}

/**
 * The patch's rg runs walk one thread: its parallel walker shares the rules it builds per folder
 * between threads, and what a run lists or calls ignored then depends on their timing (a clean run
 * under load lost a folder the property's fixed seed keeps on a quiet machine). These runs read a
 * level or a new folder, not the tree: one thread costs little.
 */
const ONE_THREAD = ['--threads', '1'];

/** "ignoring <path>: Ignore(…)" from rg's walker, the path as rg built it from its arguments. */
const IGNORING = /\|ignore::walk\|[^ ]* ignoring (.*): Ignore\(/;

/** The paths rg's `--debug` lines say its rules ignored, workspace-relative. */
export function ignoredByDebug(lines: string): Set<string> {
  const out = new Set<string>();
  for (const line of lines.split('\n')) {
    const m = IGNORING.exec(line);
    if (m) out.add(fromRg(m[1]));
  }
  return out;
}

/** rg's spelling of a path (`./x` under the root, backslashes on Windows) as the index keeps it. */
export function fromRg(p: string): string {
  const posix = path.sep === '/' ? p : p.split(path.sep).join('/');
  return posix.startsWith('./') ? posix.slice(2) : posix;
}

/** The argument that makes rg list a workspace-relative folder ('' is the root). */
export const rgArg = (dir: string): string => (dir === '' ? '.' : dir);

/**
 * The files a fresh walk would list in the plan's folders now: each level's own files and
 * everything in each walked folder, nothing for a folder that is gone, a link, or hidden by
 * the rules. One level deep over the levels and the ancestors to look up (one rg per depth,
 * side by side), then one walk of the folders found visible. null when rg could not read a folder (gone
 * meanwhile, unreadable): then only the whole walk can say.
 */
export async function readRegions(root: string, plan: PatchPlan, view: IndexView, kindOf: (rel: string) => DiskKind, signal?: AbortSignal): Promise<string[] | null> {
  const roots = [...new Set([...plan.levels, ...plan.subtrees])];
  const chains = new Map<string, string[]>();
  const visible = new Set<string>();
  for (const r of roots) {
    if (r !== '' && kindOf(r) !== 'dir') continue;
    if (r === '' || view.isDir(r)) visible.add(r);
    else chains.set(r, chainTo(r, view));
  }
  const levels = new Set([...plan.levels.filter((l) => visible.has(l) || chains.has(l)), ...[...chains.values()].flat()]);
  const byParent = new Map<string, string[]>();
  // One rg per depth, so no folder given to a run lies below another given to it: rg's threads
  // share the rules they build per folder, and a folder that is also an argument was sometimes
  // judged by the rules built for it as one, which miss an anchored rule above it (seen: the
  // root's `/x/y/z` with x/y and x/y/z in one run, no "ignoring x/y/z" in 123 of 300 runs).
  const byDepth = new Map<number, string[]>();
  for (const l of levels) {
    const depth = l === '' ? 0 : l.split('/').length;
    (byDepth.get(depth) ?? byDepth.set(depth, []).get(depth)!).push(l);
  }
  // Each run's own debug text: chunks of two runs side by side would cut each other's lines.
  const debug = [...byDepth.values()].map(() => '');
  const codes = await Promise.all(
    [...byDepth.values()].map((group, i) =>
      streamFilesWithRg(
        root,
        (batch) => {
          for (const f of batch.map(fromRg)) {
            const dir = parentOf(f);
            if (levels.has(dir)) (byParent.get(dir) ?? byParent.set(dir, []).get(dir)!).push(f);
          }
        },
        signal,
        ['--max-depth', '1', ...ONE_THREAD, ...(chains.size ? ['--debug'] : []), '--', ...group.map(rgArg)],
        chains.size ? (t) => void (debug[i] += t) : undefined,
      ),
    ),
  );
  // A folder rg could not read says nothing of what its rules hide: no guess, the walk decides.
  if (codes.includes(2)) return null;
  const ignored = ignoredByDebug(debug.join('\n'));
  for (const [r, chain] of chains) {
    // Each step below the known ancestor must be a real folder its parent's rules keep.
    const steps = [...chain.slice(1), r];
    if (steps.every((d) => !ignored.has(d) && kindOf(d) === 'dir')) visible.add(r);
  }
  const files: string[] = [];
  for (const l of plan.levels) if (visible.has(l)) files.push(...(byParent.get(l) ?? []));
  const walks = plan.subtrees.filter((s) => visible.has(s));
  if (walks.length) {
    const code = await streamFilesWithRg(
      root,
      (batch) => {
        for (const f of batch.map(fromRg)) if (walks.some((s) => f.startsWith(`${s}/`))) files.push(f);
      },
      signal,
      [...ONE_THREAD, '--', ...walks.map(rgArg)],
    );
    if (code === 2) return null;
  }
  return files;
}
