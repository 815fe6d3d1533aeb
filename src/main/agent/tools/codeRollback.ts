// code_rollback: reverses one modification, cleanly or by a three-way merge with later changes;
// refuses with ROLLBACK_CONFLICT, changing nothing, when they overlap. Given a group id (a
// command's writes, an undo) it reverses the whole group as one step, and given `undo_request`
// it undoes that request and every later one of its session (docs/architecture.md, "Undo a
// request"); either is itself a group whose rollback redoes it.
import { z } from 'zod';
import { InvalidArgumentError } from '../../errors';
import { isGroup, requestsFrom, rollbackGroup, undoRequests, type GroupRollbackResult } from '../../services/modlog/groupRollback';
import { rollbackModification } from '../../services/modlog/rollback';
import { authorizeWrite } from '../edit/authorizeWrite';
import { foreseeFiles, groupLanded, mergeViews, type ForeseenFiles } from '../edit/foresee';
import { diagnosticsSchema, withDiagnostics } from './diagnosticsText';
import { correlationOf, defineTool, success, type ToolContext } from './types';

const schema = z.object({
  modification_id: z.string().min(1).optional().describe('The modification to reverse (mod-…), or a group id (cmd-…, undo-…, redo-…, grp-…) to reverse the whole group.'),
  undo_request: z.string().min(1).optional().describe('Instead of modification_id: a request id (correlation id) whose changes, and those of every later request of its session, are undone as one step.'),
  hunk: z.number().int().min(0).optional().describe('Reverse only this hunk (0-based, in the order of the modification’s diff).'),
  reason: z.string().optional().describe('Why, in a few words (kept in the modification log).'),
  correlation_id: z.string().optional().describe('Id of the user request this rollback serves.'),
});

const outputSchema = z.looseObject({
  status: z.literal('rolled_back'),
  rollback_id: z.string().describe('The rollback modification, or for a group or an undo the id of the new group (code_rollback with it redoes).'),
  file: z.string().optional(),
  files: z.array(z.string()).optional().describe('For a group or an undo: the files changed.'),
  rolled_back: z.array(z.string()).optional().describe('For a group or an undo: the modifications reversed, newest first.'),
  lines_restored: z.number().int().optional(),
  merged: z.boolean().optional(),
  git_staged: z.boolean().optional(),
  diagnostics: diagnosticsSchema.optional(),
});

type Args = z.output<typeof schema>;

/** Each file's reversal foreseen by the language server, then authorized with that on its card. */
const foresight = (ctx: ToolContext) =>
  foreseeFiles(ctx.lsp, {
    signal: ctx.signal,
    modlog: ctx.modlog,
    logger: ctx.logger,
    authorize: (rel, before, after, diagnostics) => authorizeWrite(ctx, { rel, tool: 'code_rollback', before, after, signal: ctx.signal, diagnostics }),
  });

async function rollbackMany(args: Args, ctx: ToolContext, seen: ForeseenFiles): Promise<{ out: GroupRollbackResult; what: string }> {
  const confirm = seen.confirm;
  if (args.undo_request) {
    const scope = requestsFrom(await ctx.modlog.index().sync(), args.undo_request);
    const later = scope.correlations.length - 1;
    const what = `request ${args.undo_request}${later ? ` and ${later} later request${later === 1 ? '' : 's'}` : ''}`;
    const out = await undoRequests(ctx.modlog, scope, { onConflict: 'refuse', tool: 'code_rollback', reason: args.reason ?? `undo ${what}`, signal: ctx.signal, confirm });
    return { out, what };
  }
  const what = `group ${args.modification_id}`;
  const out = await rollbackGroup(ctx.modlog, args.modification_id!, {
    ...ctx.session.writer,
    tool: 'code_rollback',
    reason: args.reason ?? `roll back ${what}`,
    correlationId: correlationOf(ctx, args),
    signal: ctx.signal,
    confirm,
  });
  return { out, what };
}

export const codeRollbackTool = defineTool({
  name: 'code_rollback',
  title: 'Undo a modification',
  effect: 'write',
  permission: 'edit',
  correlated: true,
  idempotent: false,
  openWorld: false,
  summary: (args) =>
    args.undo_request ? `undo ${args.undo_request} and later` : !args.modification_id ? '(no modification named)' : args.hunk === undefined ? args.modification_id : `${args.modification_id} hunk ${args.hunk}`,
  outputSchema,
  description:
    'Undo one modification by id (or one hunk of it), a whole group by its id (the files one command changed, an earlier undo: undoing an undo redoes it), ' +
    'or with undo_request every change of a request and of the later requests of its session. Changes made since to the same files are kept: ' +
    'the undo is merged with them, and refused with ROLLBACK_CONFLICT (nothing changed) when they overlap. The rollback is itself a modification and can be rolled back.',
  schema,
  async run(args, ctx) {
    if (!args.modification_id === !args.undo_request) throw new InvalidArgumentError('Give either modification_id or undo_request (a request id), not both.');
    if (args.undo_request && args.hunk !== undefined) throw new InvalidArgumentError('hunk applies to one modification, not to undo_request.');
    if (args.undo_request || (await isGroup(ctx.modlog, args.modification_id!))) {
      if (args.hunk !== undefined) throw new InvalidArgumentError(`${args.modification_id} is a group; hunk applies to one modification.`);
      const seen = foresight(ctx);
      const { out, what } = await seen.land(
        () => rollbackMany(args, ctx, seen),
        ({ out }) => groupLanded(ctx.modlog, out.group_id),
      );
      const skipped = out.skipped.length ? ` Left as they are (conflicts): ${out.skipped.map((s) => s.file).join(', ')}.` : '';
      const done = success(
        `Undid ${what}: ${out.rolled_back.length} modification${out.rolled_back.length === 1 ? '' : 's'} in ${out.files.length} file${out.files.length === 1 ? '' : 's'} (${out.files.slice(0, 20).join(', ')}${out.files.length > 20 ? ', …' : ''}). ` +
          `This is group ${out.group_id}: code_rollback with it redoes it. Read changed files again before editing them.${skipped}`,
        { status: 'rolled_back', rollback_id: out.group_id, files: out.files, rolled_back: out.rolled_back },
      );
      return withDiagnostics(done, mergeViews(seen.views()), out.files[0] ?? '');
    }
    const seen = foresight(ctx);
    const out = await seen.land(() => rollbackModification(ctx.modlog, {
      modificationId: args.modification_id!,
      hunk: args.hunk,
      ...ctx.session.writer,
      tool: 'code_rollback',
      reason: args.reason,
      correlationId: correlationOf(ctx, args),
      signal: ctx.signal,
      confirm: seen.confirmOne,
    }), (done) => new Map([[done.file, done.rollback_id]]));
    // The file changed under the model's feet: its line numbers are stale until it reads again.
    const how = out.merged ? ', merged with the later changes to it' : '';
    const done = success(`Rolled back ${args.modification_id}${args.hunk !== undefined ? ` (hunk ${args.hunk})` : ''} in ${out.file}${how}: ${out.lines_restored} lines restored. Rollback ${out.rollback_id}; read the file again before editing it.`, { ...out });
    return withDiagnostics(done, seen.views().get(out.file), out.file);
  },
});
