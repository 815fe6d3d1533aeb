// grep: ripgrep with content / files_with_matches / count modes,
// context lines and head_limit/offset paging.
import { z } from 'zod';
import { grep, GREP_DEFAULT_LIMIT, GREP_MAX_LIMIT } from '../../services/search/grep';
import { formatGrep } from '../../services/search/grepFormat';
import { authorizeSearch, configuredExcludes, searchSummary } from './searchAccess';
import { defineTool, READS_WORKSPACE, success } from './types';
import { absolute, defined, fromHookPath, take } from './claudeShapes';

const lines = (what: string) => z.number().int().min(0).max(50).optional().describe(what);

const schema = z.object({
  pattern: z.string().min(1).describe('Regular expression (Rust regex syntax). Passed to ripgrep as a pattern, never as an option.'),
  path: z.string().optional().describe('File or folder to search, relative to the workspace (default: the whole workspace).'),
  glob: z.string().optional().describe('Only files matching this glob, e.g. "*.ts" or "src/**/*.tsx".'),
  type: z.string().optional().describe('Only files of this ripgrep type, e.g. ts, py, go, rust.'),
  output_mode: z.enum(['content', 'files_with_matches', 'count']).optional().describe('content: `file:line: text` (default); files_with_matches: paths; count: matching lines per file.'),
  '-A': lines('Lines of context after each match (content mode).'),
  '-B': lines('Lines of context before each match (content mode).'),
  '-C': lines('Lines of context before and after each match (content mode).'),
  case_insensitive: z.boolean().optional(),
  multiline: z.boolean().optional().describe('Let the pattern span lines (. does not match newlines unless (?s) is used).'),
  head_limit: z.number().int().min(1).max(GREP_MAX_LIMIT).optional().describe(`Results per call (default ${GREP_DEFAULT_LIMIT}).`),
  offset: z.number().int().min(0).optional().describe('Skip this many results (for the next page).'),
});

const outputSchema = z.looseObject({
  total: z.number().int().describe('Results before paging.'),
  offset: z.number().int(),
  limit: z.number().int(),
  notes: z.array(z.string()),
});

export const grepTool = defineTool({
  name: 'grep',
  title: 'Search file contents',
  ...READS_WORKSPACE,
  kind: 'search',
  summary: searchSummary,
  paths: (args) => [args.path],
  outputSchema,
  description:
    'Search file contents with ripgrep (.gitignore aware). Modes: content (`file:line: text`, with -A/-B/-C context), files_with_matches, count. ' +
    `Returns ${GREP_DEFAULT_LIMIT} results per call with a note saying how many more; page with offset.`,
  schema,
  claudeCode: {
    name: 'Grep',
    input: (a, root) => defined({ pattern: a.pattern, path: absolute(root, a.path), glob: a.glob, type: a.type, output_mode: a.output_mode, '-A': a['-A'], '-B': a['-B'], '-C': a['-C'], '-i': a.case_insensitive, multiline: a.multiline, head_limit: a.head_limit, offset: a.offset }),
    args: (i, was, root) => ({ ...was, pattern: take(i, 'pattern', was.pattern), path: fromHookPath(root, i.path, was.path), glob: take(i, 'glob', was.glob), type: take(i, 'type', was.type), output_mode: take(i, 'output_mode', was.output_mode), case_insensitive: take(i, '-i', was.case_insensitive), head_limit: take(i, 'head_limit', was.head_limit) }),
  },
  async run(args, ctx) {
    const reads = await authorizeSearch(ctx, args.path, 'grep', `search ${args.path ?? 'the workspace'} for ${args.pattern}`);
    const r = await grep(ctx.root, {
      pattern: args.pattern,
      path: args.path,
      glob: args.glob,
      type: args.type,
      outputMode: args.output_mode,
      after: args['-A'],
      before: args['-B'],
      context: args['-C'],
      caseInsensitive: args.case_insensitive,
      multiline: args.multiline,
      headLimit: args.head_limit,
      offset: args.offset,
      exclude: await configuredExcludes(ctx),
      visible: reads.visible,
      signal: ctx.signal,
    });
    if (reads.note) r.notes.push(reads.note);
    return success(formatGrep(r), { ...r });
  },
});
