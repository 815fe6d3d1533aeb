// code_modify: replace / insert_before / insert_after / delete on
// 1-based inclusive lines of a file the model has read, through the modification log; the
// result carries the unified diff, whether it was staged, and optionally the test results.
import path from 'node:path';
import { z } from 'zod';
import { LoupeError } from '../../errors';
import { FileChangedSinceReadError, FileNotReadError, FileTooLargeError, NotAFileError } from '../../services/files/errors';
import { numberLines } from '../../services/files/lineNumbers';
import { MAX_FILE_BYTES, isSymlink, loadTextFile } from '../../services/files/textFile';
import { applyLineEdit } from '../../services/modlog/lineEdit';
import { changedLines, mergeOverPerson, movedByPerson, personNote } from '../edit/overPerson';
import { toLf } from '../edit/canonical';
import { unifiedDiff } from '../../services/modlog/unifiedDiff';
import { resolveInWorkspace } from '../../services/workspace/pathGuard';
import { checkWrite } from '../edit/authorizeWrite';
import { landWrite } from '../edit/foresee';
import { runTestsFor, summariseRun } from './runTests';
import { describeChanges } from './commandChanges';
import { diagnosticsSchema, withDiagnostics } from './diagnosticsText';
import { correlationOf, defineTool, success, type ToolContext } from './types';

const line = z.number().int();
const schema = z.object({
  file_path: z.string().min(1).describe('File path, relative to the workspace.'),
  operation: z.enum(['replace', 'insert_before', 'insert_after', 'delete']),
  line_range: z.tuple([line, line]).optional().describe('replace/delete: [first, last] line, 1-based, inclusive.'),
  line: line.optional().describe('insert_before/insert_after: the line to insert next to (insert_after 0 inserts at the top).'),
  new_content: z.string().optional().describe('The new lines (replace and inserts). Unindented content takes the target line’s indentation.'),
  reason: z.string().optional().describe('Why, in a few words (kept in the modification log).'),
  correlation_id: z.string().optional().describe('Id of the user request this change serves.'),
  auto_test: z.boolean().optional().describe('Run the project’s tests afterwards and attach the results.'),
});

/** The current lines around the target, numbered, so a retry can be based on them. */
function around(text: string, from: number, to: number): string {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const first = Math.max(1, from - 3);
  return numberLines(lines.slice(first - 1, Math.min(lines.length, to + 3)), first);
}

async function target(ctx: ToolContext, requested: string) {
  const { abs, rel } = await resolveInWorkspace(ctx.root, requested);
  if (rel === '') throw new NotAFileError(rel);
  if (await isSymlink(path.resolve(ctx.root, requested))) throw new LoupeError('INVALID_PATH', `${requested} is a symbolic link; modify the file it points to (${rel}) instead.`);
  return { abs, rel };
}

const outputSchema = z.looseObject({
  status: z.literal('success'),
  file_path: z.string(),
  operation: z.enum(['replace', 'insert_before', 'insert_after', 'delete']),
  lines_changed: z.number().int(),
  lines_affected: z.tuple([z.number().int(), z.number().int()]),
  git_diff: z.string(),
  git_staged: z.boolean(),
  modification_id: z.string(),
  warnings: z.array(z.string()),
  test_results: z.looseObject({ status: z.string(), passed: z.number().int(), failed: z.number().int() }).nullable(),
  diagnostics: diagnosticsSchema.optional(),
});

export const codeModifyTool = defineTool({
  name: 'code_modify',
  title: 'Change lines of a file',
  effect: 'write',
  permission: 'edit',
  correlated: true,
  idempotent: false,
  openWorld: false,
  summary: (args) => `${args.operation} ${args.file_path}${args.line_range ? ` ${args.line_range[0]}-${args.line_range[1]}` : args.line !== undefined ? ` at ${args.line}` : ''}`,
  paths: (args) => [args.file_path],
  guidance: 'For changes you know by line number from your latest numbered read; a change you can describe by its text is safer as a text edit.',
  outputSchema,
  description:
    'Change whole lines of a file read earlier in this session: replace or delete line_range [first, last], or insert new_content before/after a line. ' +
    'Line numbers are those read_file showed; your own modifications keep them current, anything else changing the file means reading it again. ' +
    'Line endings are kept; unindented new_content takes the target line’s indentation. Warns when brackets stop balancing. auto_test runs the tests after.',
  schema,
  async run(args, ctx) {
    const { abs, rel } = await target(ctx, args.file_path);
    const done = await ctx.modlog.withFileLock(abs, async () => {
      const file = await loadTextFile(abs, rel, { root: ctx.root });
      const seen = ctx.session.lastRead(abs);
      if (!seen) throw new FileNotReadError(rel);
      const [from, to] = args.line_range ?? [args.line ?? 1, args.line ?? 1];
      const seenNow = () => {
        ctx.session.recordRead(abs, file.hash);
        return around(file.text, from, to);
      };
      // Only the person's saves since the read: the line numbers mean the text read, and the change made there is merged onto theirs.
      const over = seen.hash === file.hash ? null : await movedByPerson(ctx.modlog, rel, seen.hash, file);
      if (seen.hash !== file.hash && !over) throw new FileChangedSinceReadError(rel, seenNow());
      const planned = applyLineEdit((over?.base ?? file).text, { operation: args.operation, range: args.line_range, line: args.line, content: args.new_content }, rel);
      if (planned.text === (over?.base ?? file).text) throw new LoupeError('EDIT_NO_CHANGE', `The ${args.operation} leaves ${rel} as it is. Check the line numbers and new_content.`);
      const merged = over ? await mergeOverPerson(rel, file, over, planned.text, seenNow, ctx.signal) : null;
      // Merged: the lines are where the change landed in the person's text.
      const edit = over && merged !== null ? { ...planned, text: merged, linesAffected: changedLines(toLf(file.text), toLf(merged)), told: personNote(rel, file, over) } : { ...planned, told: '' };
      const bytes = Buffer.from(edit.text, 'utf8');
      if (bytes.length > MAX_FILE_BYTES) throw new FileTooLargeError(rel, bytes.length, MAX_FILE_BYTES);
      const foreseen = await checkWrite(ctx, { rel, tool: 'code_modify', before: file.text, after: edit.text, signal: ctx.signal });
      const res = await landWrite(foreseen, () => ctx.modlog.apply({
        file: rel,
        abs,
        content: bytes,
        tool: 'code_modify',
        operation: args.operation,
        ...ctx.session.writer,
        reason: args.reason,
        correlationId: correlationOf(ctx, args),
        linesAffected: edit.linesAffected,
        linesChanged: edit.linesChanged,
        expectBeforeSha: file.hash,
        diagnostics: foreseen.view,
      }));
      ctx.session.recordWrite(abs, res.afterSha);
      return { edit, res, diff: unifiedDiff(rel, file.text, edit.text), diagnostics: foreseen.view };
    });
    // The edit is written whatever happens to the tests: a refused or failed run is a note.
    const tests = args.auto_test ? await runTestsFor({ correlation_id: args.correlation_id }, ctx).catch((err: unknown) => (err instanceof LoupeError ? err : Promise.reject(err))) : null;
    const ran = tests instanceof LoupeError ? null : tests;
    const { edit, res, diff, diagnostics } = done;
    const data = {
      status: 'success',
      file_path: rel,
      operation: args.operation,
      lines_changed: edit.linesChanged,
      lines_affected: edit.linesAffected,
      git_diff: diff,
      git_staged: res.gitStaged,
      modification_id: res.modificationId,
      warnings: edit.warnings,
      test_results: ran && { status: ran.status, passed: ran.tests_passed, failed: ran.tests_failed, skipped: ran.tests_skipped, failing: ran.failing_tests, duration_ms: ran.duration_ms, command: ran.command },
      ...(tests instanceof LoupeError ? { test_error: { code: tests.code, message: tests.message } } : {}),
    };
    const testNote = tests instanceof LoupeError ? `The tests did not run: ${tests.code}: ${tests.message}` : tests ? summariseRun(tests) : null;
    const notes = (reader: 'model' | 'person') => {
      const changed = ran ? describeChanges(ran.changes, reader) : '';
      // What the person changed meanwhile is told to the model; the person knows it.
      const told = reader === 'model' && edit.told ? [edit.told] : [];
      return [...edit.warnings.map((w) => `Warning: ${w}`), ...told, ...(testNote ? [testNote] : []), ...(changed ? [changed] : [])];
    };
    const head = `${args.operation} on ${rel} lines ${edit.linesAffected[0]}-${edit.linesAffected[1]} (${edit.linesChanged} changed${res.gitStaged ? ', staged' : ''}). Modification ${res.modificationId}.`;
    return withDiagnostics({ ...success([head, ...notes('model'), diff].join('\n'), data), for_person: [head, ...notes('person'), diff].join('\n') }, diagnostics, rel);
  },
});
