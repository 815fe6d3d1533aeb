// list_files: `rg --files` filtered by a glob, most recently modified first, so what the
// user is working on right now comes before the rest.
import { statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { runRipgrep } from './ripgrep';
import { BASE_RG_ARGS, byPath, clampInt, cleanPath, excludeArgs, searchTarget, showsAll, type PathFilter } from './searchScope';
import { TopK } from './topK';

export const LIST_DEFAULT_LIMIT = 100;
export const LIST_MAX_LIMIT = 1000;

export interface ListFilesQuery {
  pattern?: string;
  path?: string;
  limit?: number;
  /** Globs never searched (`search.exclude` of .loupe/config.json); they win over \`glob\`. */
  exclude?: readonly string[];
  /** Paths the listing may show (read rules). */
  visible?: PathFilter;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface Recent {
  path: string;
  mtimeMs: number;
}

/** Newest first; equal times by path, so the order never depends on rg's walk. */
export const newerFirst = (a: Recent, b: Recent): number => b.mtimeMs - a.mtimeMs || byPath(a.path, b.path);

export interface ListFilesResult {
  files: Recent[];
  total: number;
  notes: string[];
}

/** A file's mtime, or 0 (sorts last) when it went away since rg listed it or cannot be read. */
function mtimeOf(abs: string): number {
  try {
    return statSync(abs, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  } catch {
    return 0;
  }
}

/**
 * rg walks with every core but one: the stats of what it lists run here meanwhile, on the core
 * left over (on 2 cores, 100,000 stats took as long as rg's walk, and fighting rg for both
 * cores cost 20-40%, glob or not).
 */
const rgThreads = (): string[] => ['--threads', String(Math.max(1, availableParallelism() - 1))];

export async function listFiles(root: string, q: ListFilesQuery): Promise<ListFilesResult> {
  const target = await searchTarget(root, q.path);
  const limit = clampInt(q.limit, LIST_DEFAULT_LIMIT, 1, LIST_MAX_LIMIT);
  const glob = q.pattern && q.pattern !== '*' && q.pattern !== '**' && q.pattern !== '**/*' ? q.pattern : null;
  const args = ['--files', ...BASE_RG_ARGS, '--null', ...rgThreads()];
  if (glob) args.push('--glob', glob);
  args.push(...excludeArgs(q.exclude), '--', target.arg);
  const visible = q.visible ?? showsAll;
  const prefix = root.endsWith(path.sep) ? root : root + path.sep;
  const top = new TopK(limit, newerFirst);
  let total = 0;
  await runRipgrep({
    cwd: root,
    args,
    separator: '\0',
    signal: q.signal,
    timeoutMs: q.timeoutMs,
    visible: q.visible,
    // Each file is stat'ed as its name arrives (a chunk of names at a time), while rg goes on
    // walking; only the newest `limit` are kept, so nothing sorts the whole listing.
    onRecord: (r) => {
      const file = cleanPath(r.toString('utf8'));
      if (!visible(file)) return;
      total++;
      top.add({ path: file, mtimeMs: mtimeOf(prefix + file) });
    },
  });
  const notes: string[] = [];
  if (total > limit) notes.push(`Showing the ${limit} most recently modified of ${total} files; use a narrower pattern or path to see others.`);
  return { files: top.sorted(), total, notes };
}

export function formatListFiles(r: ListFilesResult): string {
  if (r.total === 0) return 'No files found.';
  return [...r.files.map((f) => f.path), ...(r.notes.length ? ['', ...r.notes] : [])].join('\n');
}
