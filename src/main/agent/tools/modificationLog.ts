// modification_log: the folded log, newest first, with status, reviews and the
// latest test results of each modification.
import { z } from 'zod';
import { defineTool, success } from './types';

const schema = z.object({
  correlation_id: z.string().optional().describe('Only the modifications of this request.'),
  file: z.string().optional().describe('Only the modifications of this file (workspace-relative).'),
  limit: z.number().int().min(1).max(10_000).optional().describe('At most this many, newest first (default 50).'),
});

const outputSchema = z.looseObject({
  modifications: z.array(z.looseObject({ modification_id: z.string(), file: z.string(), status: z.enum(['applied', 'approved', 'rolled_back']) })),
  total: z.number().int(),
});

export const modificationLogTool = defineTool({
  name: 'modification_log',
  title: 'List modifications',
  effect: 'read',
  permission: null,
  correlated: false,
  idempotent: true,
  openWorld: false,
  summary: (args) => [args.file, args.correlation_id].filter(Boolean).join(' ') || 'all',
  outputSchema,
  description: 'List modifications made in this workspace, newest first, with status (applied, approved, rolled_back), rollback links and latest test results.',
  schema,
  async run(args, ctx) {
    const fold = await ctx.modlog.index().sync();
    const { modifications, total } = fold.query({ correlation_id: args.correlation_id, file: args.file, limit: args.limit ?? 50 });
    const lines = modifications.map((m) => {
      const t = m.test_results ? ` tests ${m.test_results.passed}✓ ${m.test_results.failed}✗` : '';
      const lines = m.lines_affected ? ` L${m.lines_affected[0]}-${m.lines_affected[1]}` : '';
      return `${m.modification_id} ${m.status} ${m.operation} ${m.file}${lines}${t}${m.reason ? ` — ${m.reason}` : ''}`;
    });
    const more = total > modifications.length ? `\n(${total - modifications.length} older not shown; raise limit)` : '';
    return success(modifications.length ? `${lines.join('\n')}${more}` : 'No modifications match.', { modifications, total });
  },
});
