// list_files: `rg --files` filtered by a glob, most recently modified first.
import { configuredExcludes } from '../../services/config/loupeConfig';
import { z } from 'zod';
import { gateFor } from '../../services/permissions/workspaceGate';
import { resolveInWorkspace } from '../../services/workspace/pathGuard';
import { formatListFiles, LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT, listFiles } from '../../services/search/listFiles';
import { READ_RULES_NOTE } from './searchNotes';
import { defineTool, success } from './types';

const schema = z.object({
  pattern: z.string().optional().describe('Glob such as "*.ts" or "src/**/*.test.ts" (default: every file).'),
  path: z.string().optional().describe('Folder to list, relative to the workspace.'),
  limit: z.number().int().min(1).max(LIST_MAX_LIMIT).optional().describe(`How many files (default ${LIST_DEFAULT_LIMIT}).`),
});

export const listFilesTool = defineTool({
  name: 'list_files',
  description: `List workspace files matching a glob (.gitignore aware), most recently modified first; ${LIST_DEFAULT_LIMIT} by default with a note when there are more.`,
  schema,
  async run(args, ctx) {
    // Outside the workspace is refused outright (DESIGN §4), before any rule is consulted.
    const { rel } = await resolveInWorkspace(ctx.root, args.path ?? '');
    const gate = gateFor(ctx);
    await gate.authorize({ query: { kind: 'read', path: rel || '.' }, tool: 'list_files', summary: `list ${args.pattern ?? 'files'} in ${args.path ?? 'the workspace'}`, signal: ctx.signal });
    const reads = await gate.readFilter();
    const r = await listFiles(ctx.root, { pattern: args.pattern, path: args.path, limit: args.limit, exclude: await configuredExcludes(ctx.root), visible: reads.visible, signal: ctx.signal });
    if (reads.limited) r.notes.push(READ_RULES_NOTE);
    return success(formatListFiles(r), { files: r.files.map((f) => ({ path: f.path, mtime: new Date(f.mtimeMs).toISOString() })), total: r.total });
  },
});
