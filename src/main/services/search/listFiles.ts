// list_files: `rg --files` filtered by a glob, most recently modified first, so what the
// user is working on right now comes before the rest.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { runRipgrep } from './ripgrep';
import { BASE_RG_ARGS, byPath, clampInt, cleanPath, excludeArgs, searchTarget, showsAll, type PathFilter } from './searchScope';

export const LIST_DEFAULT_LIMIT = 100;
export const LIST_MAX_LIMIT = 1000;
const STAT_CONCURRENCY = 64;

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

export interface ListFilesResult {
  files: { path: string; mtimeMs: number }[];
  total: number;
  notes: string[];
}

async function mtimes(root: string, files: string[]): Promise<number[]> {
  const out = new Array<number>(files.length).fill(0);
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const i = next++;
      try {
        out[i] = (await stat(path.join(root, files[i]))).mtimeMs;
      } catch {
        // Deleted since rg listed it: sorts last.
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(STAT_CONCURRENCY, files.length) }, worker));
  return out;
}

export async function listFiles(root: string, q: ListFilesQuery): Promise<ListFilesResult> {
  const target = await searchTarget(root, q.path);
  const limit = clampInt(q.limit, LIST_DEFAULT_LIMIT, 1, LIST_MAX_LIMIT);
  const args = ['--files', ...BASE_RG_ARGS, '--null'];
  if (q.pattern && q.pattern !== '*' && q.pattern !== '**' && q.pattern !== '**/*') args.push('--glob', q.pattern);
  args.push(...excludeArgs(q.exclude), '--', target.arg);
  const files: string[] = [];
  await runRipgrep({
    cwd: root,
    args,
    separator: '\0',
    signal: q.signal,
    timeoutMs: q.timeoutMs,
    visible: q.visible,
    onRecord: (r) => {
      const file = cleanPath(r.toString('utf8'));
      if ((q.visible ?? showsAll)(file)) files.push(file);
    },
  });
  const times = await mtimes(root, files);
  const rows = files.map((p, i) => ({ path: p, mtimeMs: times[i] }));
  rows.sort((a, b) => b.mtimeMs - a.mtimeMs || byPath(a.path, b.path));
  const notes: string[] = [];
  if (rows.length > limit) notes.push(`Showing the ${limit} most recently modified of ${rows.length} files; use a narrower pattern or path to see others.`);
  return { files: rows.slice(0, limit), total: rows.length, notes };
}

export function formatListFiles(r: ListFilesResult): string {
  if (r.total === 0) return 'No files found.';
  return [...r.files.map((f) => f.path), ...(r.notes.length ? ['', ...r.notes] : [])].join('\n');
}
