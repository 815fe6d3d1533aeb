// What every search shares: where it runs, and which files it never looks at.
import { stat } from 'node:fs/promises';
import { resolveInWorkspace } from '../workspace/pathGuard';
import { FileNotFoundError } from '../../errors';

/** Hidden files are searched (.github, .env.example) but never Git's or Loupe's own state. */
export const BASE_RG_ARGS = ['--hidden', '--glob', '!.git', '--glob', '!.loupe'];

/** `search.exclude` of .loupe/config.json (and a caller's own excludes) as rg globs. */
export function excludeArgs(patterns: readonly string[] | undefined): string[] {
  return (patterns ?? []).map((p) => p.trim()).filter(Boolean).flatMap((p) => ['--glob', `!${p.replace(/^!/, '')}`]);
}

export interface SearchTarget {
  /** What rg is given after `--`: a workspace-relative path, '.' for the root. */
  arg: string;
  rel: string;
}

/** Resolves the optional `path` argument; throws PATH_OUTSIDE_WORKSPACE / FILE_NOT_FOUND. */
export async function searchTarget(root: string, requested: string | undefined): Promise<SearchTarget> {
  const { abs, rel } = await resolveInWorkspace(root, requested ?? '');
  try {
    await stat(abs);
  } catch {
    throw new FileNotFoundError(requested ?? '.');
  }
  return { arg: rel === '' ? '.' : rel, rel };
}

/** rg prints paths as given: `./src/a.ts` when searching '.', so strip that to workspace-relative. */
export function cleanPath(p: string): string {
  return p.startsWith('./') ? p.slice(2) : p;
}

export function clampInt(value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined || !Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, Math.floor(value)));
}

export const byPath = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Which workspace-relative paths a search may show (the caller's read rules). A path it
 * refuses is dropped before anything is counted, so neither its name, its lines nor a count
 * of its matches comes back.
 */
export type PathFilter = (rel: string) => boolean;

export const showsAll: PathFilter = () => true;
