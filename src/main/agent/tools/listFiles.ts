// list_files: `rg --files` filtered by a glob, most recently modified first.
import { z } from 'zod';
import { formatListFiles, LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT, listFiles } from '../../services/search/listFiles';
import { authorizeSearch, configuredExcludes } from './searchAccess';
import { defineTool, READS_WORKSPACE, success } from './types';
import { absolute, defined, fromHookPath, take } from './claudeShapes';

const schema = z.object({
  pattern: z.string().optional().describe('Glob such as "*.ts" or "src/**/*.test.ts" (default: every file).'),
  path: z.string().optional().describe('Folder to list, relative to the workspace.'),
  limit: z.number().int().min(1).max(LIST_MAX_LIMIT).optional().describe(`How many files (default ${LIST_DEFAULT_LIMIT}).`),
});

const outputSchema = z.looseObject({
  files: z.array(z.object({ path: z.string(), mtime: z.string() })),
  total: z.number().int(),
});

export const listFilesTool = defineTool({
  name: 'list_files',
  title: 'List files',
  ...READS_WORKSPACE,
  kind: 'search',
  paths: (args) => [args.path],
  summary: (args) => [args.pattern ?? '*', args.path && `in ${args.path}`].filter(Boolean).join(' '),
  outputSchema,
  description: `List workspace files matching a glob (.gitignore aware), most recently modified first; ${LIST_DEFAULT_LIMIT} by default with a note when there are more.`,
  schema,
  claudeCode: {
    name: 'Glob',
    input: (a, root) => defined({ pattern: a.pattern ?? '**/*', path: absolute(root, a.path) }),
    args: (i, was, root) => ({ ...was, pattern: take(i, 'pattern', was.pattern), path: fromHookPath(root, i.path, was.path) }),
  },
  async run(args, ctx) {
    const reads = await authorizeSearch(ctx, args.path, 'list_files', `list ${args.pattern ?? 'files'} in ${args.path ?? 'the workspace'}`);
    const r = await listFiles(ctx.root, { pattern: args.pattern, path: args.path, limit: args.limit, exclude: await configuredExcludes(ctx), visible: reads.visible, signal: ctx.signal });
    if (reads.note) r.notes.push(reads.note);
    return success(formatListFiles(r), { files: r.files.map((f) => ({ path: f.path, mtime: new Date(f.mtimeMs).toISOString() })), total: r.total });
  },
});
