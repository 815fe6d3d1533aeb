// write_file: new files freely; an existing file only when this session read it and it is
// unchanged since; never through a symlink. The file's BOM and CRLF line endings are kept.
import path from 'node:path';
import { z } from 'zod';
import { LoupeError } from '../../errors';
import { FileChangedSinceReadError, FileNotReadError, FileTooLargeError, NotAFileError } from '../../services/files/errors';
import { MAX_FILE_BYTES, isSymlink, loadTextFile, statFile } from '../../services/files/textFile';
import { linesTouched } from '../../services/modlog/unifiedDiff';
import { resolveInWorkspace } from '../../services/workspace/pathGuard';
import { checkWrite } from '../edit/authorizeWrite';
import { landWrite } from '../edit/foresee';
import { canonicalise } from '../edit/canonical';
import { mergeOverPerson, movedByPerson, personNote } from '../edit/overPerson';
import { diagnosticsSchema, withDiagnostics } from './diagnosticsText';
import { correlationOf, defineTool, success } from './types';
import { absolute, fromHookPath, take } from './claudeShapes';

const schema = z.object({
  path: z.string().min(1).describe('File path, relative to the workspace.'),
  content: z.string().describe('The complete new content of the file.'),
  reason: z.string().optional().describe('Why, in a few words (kept in the modification log).'),
  correlation_id: z.string().optional().describe('Id of the user request this change serves.'),
});

/** An overwrite keeps the existing file's BOM and CRLF endings unless the content sets its own. */
export function keepFileConventions(existing: string, content: string): { content: string; kept: string[] } {
  const kept: string[] = [];
  const old = canonicalise(existing);
  let out = content;
  if (old.eol === '\r\n' && out.includes('\n') && !out.includes('\r\n')) {
    out = out.split('\n').join('\r\n');
    kept.push('CRLF line endings');
  }
  if (old.bom && !out.startsWith('\uFEFF')) {
    out = '\uFEFF' + out;
    kept.push('the UTF-8 BOM');
  }
  return { content: out, kept };
}

const lineCount = (s: string) => (s === '' ? 0 : s.split('\n').length - (s.endsWith('\n') ? 1 : 0));

const outputSchema = z.looseObject({
  path: z.string(),
  operation: z.enum(['create', 'overwrite', 'none']),
  bytes: z.number().int().optional(),
  lines: z.number().int().optional(),
  modification_id: z.string().optional().describe('Absent when nothing was written.'),
  git_staged: z.boolean().optional(),
  diagnostics: diagnosticsSchema.optional(),
});

export const writeFileTool = defineTool({
  name: 'write_file',
  title: 'Write file',
  effect: 'write',
  permission: 'edit',
  correlated: true,
  idempotent: true,
  openWorld: false,
  summary: (args) => args.path,
  paths: (args) => [args.path],
  guidance: 'Only for new files and whole rewrites.',
  outputSchema,
  description:
    'Create a file, or replace an existing file whole. An existing file must have been read in this session (read_file) and be ' +
    'unchanged since. Prefer edit_file for changes to part of a file.',
  schema,
  claudeCode: {
    name: 'Write',
    input: (a, root) => ({ file_path: absolute(root, a.path), content: a.content }),
    args: (i, was, root) => ({ ...was, path: fromHookPath(root, i.file_path, was.path), content: take(i, 'content', was.content) }),
  },
  async run(args, ctx) {
    const { abs, rel } = await resolveInWorkspace(ctx.root, args.path);
    if (rel === '') throw new NotAFileError(rel);
    if (await isSymlink(path.resolve(ctx.root, args.path))) {
      throw new LoupeError('INVALID_PATH', `${args.path} is a symbolic link; write to the file it points to (${rel}) instead.`);
    }
    return ctx.modlog.withFileLock(abs, async () => {
      const st = await statFile(abs, rel);
      let content = args.content;
      let kept: string[] = [];
      let beforeSha: string | null = null;
      let beforeText: string | null = null;
      let told = '';
      if (st) {
        const current = await loadTextFile(abs, rel, { root: ctx.root });
        const seen = ctx.session.lastRead(abs);
        if (!seen) throw new FileNotReadError(rel);
        // Only the person's saves since the read: the rewrite of what was read is merged onto theirs.
        const over = seen.hash === current.hash ? null : await movedByPerson(ctx.modlog, rel, seen.hash, current);
        if (seen.hash !== current.hash && !over) throw new FileChangedSinceReadError(rel);
        ({ content, kept } = keepFileConventions((over?.base ?? current).text, content));
        if (over) {
          const seenNow = () => void ctx.session.recordRead(abs, current.hash);
          content = await mergeOverPerson(rel, current, over, content, seenNow, ctx.signal);
          told = `\n${personNote(rel, current, over)}`;
        }
        beforeSha = current.hash;
        beforeText = current.text;
        if (current.text === content) return success(`${rel} already has this content; nothing written.`, { path: rel, operation: 'none' });
      }
      const bytes = Buffer.from(content, 'utf8');
      if (bytes.length > MAX_FILE_BYTES) throw new FileTooLargeError(rel, bytes.length, MAX_FILE_BYTES);
      const lines = lineCount(args.content);
      const operation = st ? 'overwrite' : 'create';
      const seen = await checkWrite(ctx, { rel, tool: 'write_file', before: beforeText, after: content, signal: ctx.signal });
      const res = await landWrite(seen, () => ctx.modlog.apply({
        file: rel,
        abs,
        content: bytes,
        tool: 'write_file',
        operation,
        ...ctx.session.writer,
        reason: args.reason,
        correlationId: correlationOf(ctx, args),
        linesAffected: [lines ? 1 : 0, lines],
        // A rewrite that changes two lines changed two lines, however long the file is.
        linesChanged: beforeText === null ? lines : linesTouched(beforeText, content),
        expectBeforeSha: beforeSha,
        diagnostics: seen.view,
      }));
      ctx.session.recordWrite(abs, res.afterSha);
      const note = kept.length ? ` Kept the file's ${kept.join(' and ')}.` : '';
      const said = `${operation === 'create' ? 'Created' : 'Overwrote'} ${rel} (${lines} lines, ${bytes.length} bytes).${note} Modification ${res.modificationId}.`;
      const done = success(`${said}${told}`, {
        path: rel,
        operation,
        bytes: bytes.length,
        lines,
        modification_id: res.modificationId,
        git_staged: res.gitStaged,
      });
      // What the person changed meanwhile is told to the model; the person knows it.
      return withDiagnostics(told ? { ...done, for_person: said } : done, seen.view, rel);
    });
  },
});
