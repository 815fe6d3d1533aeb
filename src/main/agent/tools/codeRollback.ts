// code_rollback: reverses one modification, cleanly or by a three-way
// merge with later changes; refuses with ROLLBACK_CONFLICT, changing nothing, when they overlap.
import { z } from 'zod';
import { rollbackModification } from '../../services/modlog/rollback';
import { authorizeWrite } from '../edit/authorizeWrite';
import { defineTool, success } from './types';

const schema = z.object({
  modification_id: z.string().min(1).describe('The modification to reverse (mod-…), from modification_log or a write tool’s result.'),
  hunk: z.number().int().min(0).optional().describe('Reverse only this hunk (0-based, in the order of the modification’s diff).'),
  reason: z.string().optional().describe('Why, in a few words (kept in the modification log).'),
  correlation_id: z.string().optional().describe('Id of the user request this rollback serves.'),
});

const outputSchema = z.looseObject({
  status: z.literal('rolled_back'),
  rollback_id: z.string(),
  file: z.string(),
  lines_restored: z.number().int(),
  merged: z.boolean(),
  git_staged: z.boolean(),
});

export const codeRollbackTool = defineTool({
  name: 'code_rollback',
  title: 'Undo a modification',
  effect: 'write',
  permission: 'edit',
  correlated: true,
  idempotent: false,
  openWorld: false,
  summary: (args) => (args.hunk === undefined ? args.modification_id : `${args.modification_id} hunk ${args.hunk}`),
  outputSchema,
  description:
    'Undo one modification by id (or one hunk of it). Changes made since to the same file are kept: the undo is merged with them, and refused ' +
    'with ROLLBACK_CONFLICT (nothing changed) when they overlap. The rollback is itself a modification and can be rolled back.',
  schema,
  async run(args, ctx) {
    const out = await rollbackModification(ctx.modlog, {
      modificationId: args.modification_id,
      hunk: args.hunk,
      sessionId: ctx.session.id,
      tool: 'code_rollback',
      reason: args.reason,
      correlationId: args.correlation_id,
      signal: ctx.signal,
      confirm: ({ file, before, after }) => authorizeWrite(ctx, { rel: file, tool: 'code_rollback', before, after, signal: ctx.signal }),
    });
    // The file changed under the model's feet: its line numbers are stale until it reads again.
    const how = out.merged ? ', merged with the later changes to it' : '';
    return success(`Rolled back ${args.modification_id}${args.hunk !== undefined ? ` (hunk ${args.hunk})` : ''} in ${out.file}${how}: ${out.lines_restored} lines restored. Rollback ${out.rollback_id}; read the file again before editing it.`, { ...out });
  },
});
