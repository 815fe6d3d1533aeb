// edit_file: validation and formatting around the edit pipeline (agent/edit).
import { z } from 'zod';
import { editFile } from '../edit/runEdit';
import { diagnosticsSchema, withDiagnostics } from './diagnosticsText';
import { correlationOf, defineTool, success } from './types';
import { absolute, defined, fromHookPath, take } from './claudeShapes';

const schema = z.object({
  path: z.string().min(1).describe('File path, relative to the workspace.'),
  old_str: z.string().describe('The exact text to replace, copied from the file. Empty only to create a new file.'),
  new_str: z.string().describe('The replacement text.'),
  expected_replacements: z.number().int().min(1).optional().describe('How many occurrences old_str has and should all be replaced (default 1).'),
  replace_all: z.boolean().optional().describe('Replace every occurrence of old_str.'),
  reason: z.string().optional().describe('Why, in a few words (kept in the modification log).'),
  correlation_id: z.string().optional().describe('Id of the user request this change serves.'),
});

const outputSchema = z.looseObject({
  path: z.string(),
  occurrences: z.number().int(),
  strategy: z.string().describe('How old_str was found: exact, create, or the correction that matched.'),
  modification_id: z.string(),
  git_staged: z.boolean(),
  lines_affected: z.tuple([z.number().int(), z.number().int()]),
  diagnostics: diagnosticsSchema.optional(),
});

export const editFileTool = defineTool({
  name: 'edit_file',
  title: 'Edit file',
  effect: 'write',
  permission: 'edit',
  correlated: true,
  idempotent: false,
  openWorld: false,
  summary: (args) => args.path,
  paths: (args) => [args.path],
  guidance:
    'Copy old_str exactly from the file, without the line-number prefixes ("    12→") a numbered read shows: the smallest snippet that is unique in it, ' +
    'a few lines at most. Prefer several small edits to one large one.',
  outputSchema,
  description:
    'Replace old_str with new_str in a file read earlier in this session. old_str must match exactly one place (or ' +
    'expected_replacements places, or use replace_all); include enough surrounding lines to make it unique. Small escaping, ' +
    'whitespace, indentation, line-number and quote slips are corrected when the intended text is unambiguous; otherwise the edit ' +
    'is refused, nothing is written, and the error shows the closest text and its first differing line. An empty old_str creates a ' +
    'file that does not exist yet.',
  schema,
  claudeCode: {
    name: 'Edit',
    input: (a, root) => defined({ file_path: absolute(root, a.path), old_string: a.old_str, new_string: a.new_str, replace_all: a.replace_all }),
    args: (i, was, root) => ({ ...was, path: fromHookPath(root, i.file_path, was.path), old_str: take(i, 'old_string', was.old_str), new_str: take(i, 'new_string', was.new_str), replace_all: take(i, 'replace_all', was.replace_all) }),
  },
  async run(args, ctx) {
    const data = await editFile({ ...args, correlation_id: correlationOf(ctx, args) }, ctx);
    const what = data.strategy === 'create' ? `Created ${data.path}` : `Edited ${data.path}: ${data.occurrences} replacement${data.occurrences === 1 ? '' : 's'}`;
    const how = (old: string, fresh: string) =>
      data.strategy === 'exact' || data.strategy === 'create' ? '' : ` (matched by ${data.strategy}${data.corrected?.old_str !== undefined ? `; ${old} was corrected` : ''}${data.corrected?.new_str !== undefined ? `; ${fresh} was adjusted` : ''})`;
    const said = (old: string, fresh: string) => `${what}${how(old, fresh)}, from line ${data.preview.lineNumber}. Modification ${data.modification_id}.\n${data.preview.after}`;
    // What the person changed meanwhile is told to the model; the person knows it.
    const over = data.merged_over_person ? `\n${data.merged_over_person.note}` : '';
    return withDiagnostics({ ...success(said('old_str', 'new_str') + over, { ...data }), for_person: said('the text to replace', 'the new text') }, data.diagnostics, data.path);
  },
});
