// diagnostics: the problems the language servers report (docs/architecture.md, language
// servers). For a file, its server checks the file as it is on disk now; for the whole workspace,
// what the servers have reported so far (the files read or written in this folder, and whatever
// a server reports on its own). Read rules apply as to read_file.
import { z } from 'zod';
import type { ProblemView } from '../../../shared/contract';
import { NotAFileError } from '../../services/files/errors';
import { loadTextFile } from '../../services/files/textFile';
import { sortProblems } from '../../services/lsp/introduced';
import { SEVERITY_ORDER, type Problem, type Severity } from '../../services/lsp/types';
import { resolveInWorkspace } from '../../services/workspace/pathGuard';
import { problemView } from '../edit/foresee';
import { problemSchema } from './diagnosticsText';
import { authorizeSearch } from './searchAccess';
import { READS_WORKSPACE, defineTool, success, type ToolContext } from './types';

const MAX_SHOWN = 200;

const schema = z.object({
  path: z.string().min(1).optional().describe('A file, relative to the workspace. Omit for every file the language servers have reported on.'),
  severity: z.enum(['error', 'warning', 'info']).optional().describe('The least severe problems to include: error (errors only), warning (errors and warnings), info (all, the default).'),
});

const outputSchema = z.looseObject({
  files: z.array(z.looseObject({ path: z.string(), problems: z.array(problemSchema) })),
  total: z.number().int(),
  available: z.boolean().describe('False when no language server could answer for the file.'),
});

type FileReport = { path: string; problems: ProblemView[] };

const line = (file: string, p: ProblemView) => `${file}:${p.line}:${p.column} ${p.severity}: ${p.message.replace(/\s*\n\s*/g, ' — ')} (${p.source}${p.code ? ` ${p.code}` : ''})`;

function render(files: FileReport[], scope: string): string {
  const total = files.reduce((n, f) => n + f.problems.length, 0);
  if (!total) return `No problems ${scope}.`;
  const lines = files.flatMap((f) => f.problems.map((p) => line(f.path, p)));
  const more = lines.length > MAX_SHOWN ? [`… and ${lines.length - MAX_SHOWN} more`] : [];
  return [`${total} problem${total === 1 ? '' : 's'} ${scope}:`, ...lines.slice(0, MAX_SHOWN), ...more].join('\n');
}

async function ofFile(ctx: ToolContext, requested: string, keep: (p: Problem) => boolean) {
  const { abs, rel } = await resolveInWorkspace(ctx.root, requested);
  if (rel === '') throw new NotAFileError(rel);
  await ctx.permissions.authorize({ query: { kind: 'read', path: rel }, tool: 'diagnostics', summary: `diagnostics of ${rel}`, signal: ctx.signal });
  const file = await loadTextFile(abs, rel, { root: ctx.root });
  const found = ctx.lsp ? await ctx.lsp.problemsOf(rel, file.text, ctx.signal) : null;
  if (!found) return success(`No language server serves ${rel} (or they are off for this folder).`, { files: [], total: 0, available: false });
  if ('unavailable' in found) return success(`Diagnostics unavailable for ${rel} (${found.server}: ${found.unavailable}).`, { files: [], total: 0, available: false, reason: found.unavailable });
  const problems = sortProblems(found.problems.filter(keep)).map((p) => problemView(p));
  const files = [{ path: rel, problems }];
  return success(render(files, `in ${rel}`), { files, total: problems.length, available: true, server: found.server });
}

export const diagnosticsTool = defineTool({
  name: 'diagnostics',
  title: 'Problems',
  ...READS_WORKSPACE,
  summary: (args) => args.path ?? 'workspace',
  paths: (args) => [args.path],
  outputSchema,
  description:
    'The problems (type errors, syntax errors, warnings) the language servers report: for a file as it is on disk now, or, without a path, for every file ' +
    'they have reported on in this folder. Each write already ends with the problems it introduced; use this to look at a file before changing it.',
  schema,
  async run(args, ctx) {
    const least = SEVERITY_ORDER[(args.severity ?? 'info') as Severity];
    const keep = (p: Problem) => SEVERITY_ORDER[p.severity] <= least;
    if (args.path) return ofFile(ctx, args.path, keep);
    const access = await authorizeSearch(ctx, undefined, 'diagnostics', 'diagnostics of the workspace');
    const files = (ctx.lsp?.known() ?? [])
      .filter((f) => access.visible(f.file))
      .map((f) => ({ path: f.file, problems: sortProblems(f.problems.filter(keep)).map((p) => problemView(p)) }))
      .filter((f) => f.problems.length)
      .sort((a, b) => a.path.localeCompare(b.path));
    const total = files.reduce((n, f) => n + f.problems.length, 0);
    const scope = 'in the files the language servers have checked (those read or written here)';
    return success([render(files, scope), ...(access.note ? [access.note] : [])].join('\n'), { files, total, available: !!ctx.lsp });
  },
});
