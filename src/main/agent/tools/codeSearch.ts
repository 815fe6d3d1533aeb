// code_search: regex search ranked by an explainable relevance score.
import { z } from 'zod';
import { CODE_SEARCH_DEFAULT_LIMIT, CODE_SEARCH_MAX_LIMIT, codeSearch, formatCodeSearch } from '../../services/search/codeSearch';
import { authorizeSearch, configuredExcludes, searchSummary } from './searchAccess';
import { defineTool, READS_WORKSPACE, success } from './types';

const schema = z.object({
  pattern: z.string().min(1).describe('Regular expression, e.g. "handleSubmit|async.*payment".'),
  language: z.string().optional().describe('Only these languages: "typescript", "python", or several as "typescript|javascript".'),
  path: z.string().optional().describe('Folder or file to search, relative to the workspace.'),
  limit: z.number().int().min(1).max(CODE_SEARCH_MAX_LIMIT).optional().describe(`Most relevant matches to return (default ${CODE_SEARCH_DEFAULT_LIMIT}).`),
  exclude_patterns: z.array(z.string()).optional().describe('Globs or folder names to skip, e.g. ["node_modules", "dist", "*.min.js"].'),
});

const outputSchema = z.looseObject({
  matches: z.array(z.looseObject({ path: z.string(), line: z.number().int(), relevance_score: z.number() })),
  total_matches: z.number().int(),
  search_time_ms: z.number(),
  notes: z.array(z.string()),
});

export const codeSearchTool = defineTool({
  name: 'code_search',
  title: 'Search code by relevance',
  ...READS_WORKSPACE,
  kind: 'search',
  summary: searchSummary,
  paths: (args) => [args.path],
  outputSchema,
  description:
    'Find code by regex, most relevant first: definitions of the matched symbol, whole-word matches, files with many matches and shallow ' +
    'source paths rank higher (each match lists why). Returns {matches:[{path, line, context, relevance_score}], total_matches, search_time_ms}.',
  schema,
  async run(args, ctx) {
    const reads = await authorizeSearch(ctx, args.path, 'code_search', `search ${args.path ?? 'the workspace'} for ${args.pattern}`);
    const excludePatterns = [...(await configuredExcludes(ctx)), ...(args.exclude_patterns ?? [])];
    const r = await codeSearch(ctx.root, { pattern: args.pattern, language: args.language, path: args.path, limit: args.limit, excludePatterns, visible: reads.visible, signal: ctx.signal });
    if (reads.note) r.notes.push(reads.note);
    return success(formatCodeSearch(r), { ...r });
  },
});
