// What bash and run_tests tell the model and the chat about the files a command changed: they
// are modifications of the request now, so the model can name them and undo them.
import { z } from 'zod';
import type { CaptureResult } from '../../services/snapshots/commandCapture';

/** The argument both tools take so their writes follow the request. */
export const CORRELATION_ARG = z.string().optional().describe('Id of the user request this command serves: the files it changes are recorded under it.');

/** The `changes` field of their data. */
export const changesSchema = z
  .looseObject({
    group_id: z.string().nullable().describe('The modifications this command made, as one group: code_rollback with this id undoes them all.'),
    files: z.array(z.looseObject({ file: z.string(), change: z.enum(['created', 'changed', 'deleted']), renamed: z.string().optional(), modification_id: z.string(), binary: z.boolean() })),
    ignored_changed: z.number().int().nullable().describe('Entries ignored by git that changed (a wholly ignored folder counts once); never recorded.'),
    not_recorded: z.array(z.string()).describe('Changed links or nested repositories, which are not recorded.'),
    error: z.string().optional(),
  })
  .describe('What the command changed in the workspace, recorded as modifications.');

const SHOWN = 20;

/** One paragraph for the model (or the person): which files changed, under which group id; nothing when nothing did. */
export function describeChanges(c: CaptureResult, reader: 'model' | 'person' = 'model'): string {
  const lines: string[] = [];
  if (c.error) lines.push(`Files it changed could not be recorded: ${c.error}`);
  if (c.group_id) {
    const each = c.files.slice(0, SHOWN).map((f) => {
      if (f.renamed && f.change === 'created') return `renamed ${f.renamed} → ${f.file}`;
      if (f.renamed && f.change === 'deleted') return null;
      const n = f.lines_changed !== undefined && f.change === 'changed' ? ` (${f.lines_changed} lines)` : f.binary ? ' (binary)' : '';
      return `${f.change} ${f.file}${n}`;
    });
    const more = c.files.length > SHOWN ? `; and ${c.files.length - SHOWN} more` : '';
    const undo = reader === 'model' ? '; code_rollback with that id undoes them' : ', undone from the timeline';
    lines.push(`Files changed by this command, recorded as modifications (group ${c.group_id}${undo}): ${each.filter(Boolean).join('; ')}${more}.`);
  }
  if (c.ignored_changed) lines.push(`${c.ignored_changed} path${c.ignored_changed === 1 ? '' : 's'} ignored by git changed too (not recorded).`);
  if (c.not_recorded.length) lines.push(`Changed but not recorded (links or nested repositories): ${c.not_recorded.slice(0, SHOWN).join(', ')}.`);
  return lines.join('\n');
}

/** The capture as the tools' data carries it. */
export function changesData(c: CaptureResult): z.output<typeof changesSchema> {
  return { group_id: c.group_id, files: c.files.map((f) => ({ ...f })), ignored_changed: c.ignored_changed, not_recorded: c.not_recorded, ...(c.error ? { error: c.error } : {}) };
}
