// edit_file end to end (docs/architecture.md, the edit pipeline): guards, read-first under the file's lock, canonical form,
// the pipeline, then the write through the modification log with BOM and line endings kept.
import { AbortedError, LoupeError } from '../../errors';
import { FileChangedSinceReadError, FileNotReadError, FileTooLargeError } from '../../services/files/errors';
import { numberLines } from '../../services/files/lineNumbers';
import type { FileSession } from '../../services/files/readTracker';
import { MAX_FILE_BYTES, isSymlink, loadTextFile, statFile, type LoadedFile } from '../../services/files/textFile';
import type { ModificationLog } from '../../services/modlog/modificationLog';
import { linesTouched } from '../../services/modlog/unifiedDiff';
import type { PermissionGate } from '../../services/permissions/permissionGate';
import { resolveInWorkspace, type ResolvedPath } from '../../services/workspace/pathGuard';
import { canonicalise, toLf } from './canonical';
import type { EditCorrector } from './corrector';
import {
  AttemptToCreateExistingFileError,
  EditFileNotFoundError,
  EditFileReadError,
  EditInvalidPathError,
  EditNoChangeError,
} from './errors';
import { LineIndex } from './lines';
import { noChangeReason } from './noChange';
import type { Logger } from '../../services/log/logger';
import { runPipeline } from './pipeline';
import { checkWrite } from './authorizeWrite';
import { landWrite } from './foresee';
import type { LanguageServers } from '../../services/lsp/languageServers';
import type { DiagnosticsView } from '../../../shared/contract';
import { buildPreview, type Preview } from './preview';
import { newStarts } from './splice';
import { writeBack } from './writeBack';
import { mergeOverPerson, movedByPerson, personNote, type PersonMoved } from './overPerson';

export interface EditFileArgs {
  path: string;
  old_str: string;
  new_str: string;
  expected_replacements?: number;
  replace_all?: boolean;
  reason?: string;
  correlation_id?: string;
}

export interface EditDeps {
  root: string;
  session: FileSession;
  modlog: ModificationLog;
  corrector: EditCorrector | null;
  signal: AbortSignal;
  logger: Logger;
  /** The workspace's gate: its rules, and whoever answers its questions. */
  permissions: PermissionGate;
  /** What each write introduces, asked before it lands. */
  lsp?: LanguageServers;
}

export interface EditFileData {
  path: string;
  occurrences: number;
  strategy: string;
  corrected?: { old_str?: string; new_str?: string };
  llm_calls: number;
  preview: Preview;
  modification_id: string;
  git_staged: boolean;
  lines_affected: [number, number];
  /** The problems the edit introduced (absent: no language server serves the file). */
  diagnostics?: DiagnosticsView;
  /** The person had saved the file in the editor since the model's read: the edit was merged onto their text. */
  merged_over_person?: { modifications: string[]; note: string };
}

/** edit_file speaks its own dialect of the path and read errors. */
function asEditError(err: unknown, resolving = false): unknown {
  if (!(err instanceof LoupeError)) return err;
  switch (err.code) {
    case 'INVALID_ARGUMENT':
      return resolving ? new EditInvalidPathError(err.message) : err;
    case 'PATH_OUTSIDE_WORKSPACE':
    case 'INVALID_PATH':
      return new EditInvalidPathError(err.message);
    case 'FILE_READ_ERROR':
      return new EditFileReadError(err.message);
    default:
      return err;
  }
}

async function resolveTarget(root: string, requested: string): Promise<ResolvedPath> {
  const target = await resolveInWorkspace(root, requested).catch((err: NodeJS.ErrnoException) => {
    // A symlink loop or an absurd path is a bad path, not an internal error.
    if (!(err instanceof LoupeError) && err.code) throw new EditInvalidPathError(`${requested} cannot be resolved (${err.code}). Use a plain path inside the workspace.`);
    throw asEditError(err, true);
  });
  if (target.rel === '') throw new EditInvalidPathError('The path names the workspace folder itself; give a file path.');
  return target;
}

export async function editFile(args: EditFileArgs, deps: EditDeps): Promise<EditFileData> {
  const { abs, rel } = await resolveTarget(deps.root, args.path);
  if (args.old_str !== '' && toLf(args.old_str) === toLf(args.new_str)) throw await noChange(args, deps, abs, rel);
  try {
    return await deps.modlog.withFileLock(abs, async () => {
      const st = await statFile(abs, rel);
      if (!st) {
        if (args.old_str !== '') throw new EditFileNotFoundError(rel);
        // A dangling symlink: creating "through" it would replace the link, not make its target.
        if (await isSymlink(abs)) throw new EditInvalidPathError(`${rel} is a symbolic link to a missing file; create the file at its real path.`);
        return await createFile(args, deps, abs, rel);
      }
      if (args.old_str === '') throw new AttemptToCreateExistingFileError(rel);
      const file = await loadTextFile(abs, rel, { root: deps.root }).catch((err) => {
        throw (err as LoupeError).code === 'FILE_NOT_FOUND' ? new EditFileNotFoundError(rel) : err;
      });
      const moved = await checkReadFirst(deps, abs, rel, file, args.old_str);
      return await editExisting(args, deps, abs, rel, moved ? moved.base : file, moved ? { now: file, moved } : undefined);
    });
  } catch (err) {
    throw asEditError(err);
  }
}

/** Step 1's no-op guard. What the file holds is told only to a caller that has read it as it is. */
async function noChange(args: EditFileArgs, deps: EditDeps, abs: string, rel: string): Promise<EditNoChangeError> {
  const seen = deps.session.lastRead(abs);
  const file = seen ? await loadTextFile(abs, rel, { root: deps.root }).catch(() => null) : null;
  const text = file && file.hash === seen?.hash ? canonicalise(file.text).text : null;
  return new EditNoChangeError(rel, noChangeReason(text, toLf(args.old_str), args.old_str !== args.new_str));
}

/**
 * Step 2: the model must have seen exactly these bytes, or bytes that only the person's own saves
 * have moved on from (then the edit is made on what it read and merged onto theirs: overPerson.ts).
 */
async function checkReadFirst(deps: EditDeps, abs: string, rel: string, file: LoadedFile, oldStr: string): Promise<PersonMoved | null> {
  const seen = deps.session.lastRead(abs);
  if (!seen) throw new FileNotReadError(rel);
  if (seen.hash === file.hash) return null;
  const moved = await movedByPerson(deps.modlog, rel, seen.hash, file);
  if (moved) return moved;
  // The snippet below is what the model now knows of the file, so a retry can build on it.
  deps.session.recordRead(abs, file.hash);
  throw new FileChangedSinceReadError(rel, regionSnippet(canonicalise(file.text).text, oldStr));
}

/** The first and last offsets where two texts differ: [start, endInA, endInB). */
function changedSpan(a: string, b: string): [number, number, number] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let tail = 0;
  while (tail < a.length - start && tail < b.length - start && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  return [start, a.length - tail, b.length - tail];
}

function regionSnippet(text: string, oldStr: string): string {
  const lines = text.split('\n');
  const probe = toLf(oldStr).split('\n').find((l) => l.trim().length >= 3)?.trim();
  const hit = probe ? lines.findIndex((l) => l.includes(probe)) : -1;
  const from = hit === -1 ? 0 : Math.max(0, hit - 5);
  const to = hit === -1 ? Math.min(lines.length, 20) : Math.min(lines.length, hit + 6);
  return numberLines(lines.slice(from, to), from + 1);
}

async function createFile(args: EditFileArgs, deps: EditDeps, abs: string, rel: string): Promise<EditFileData> {
  const content = Buffer.from(args.new_str, 'utf8');
  if (content.length > MAX_FILE_BYTES) throw new FileTooLargeError(rel, content.length, MAX_FILE_BYTES);
  const index = new LineIndex(toLf(args.new_str));
  const seen = await checkWrite(deps, { rel, tool: 'edit_file', before: null, after: args.new_str, signal: deps.signal });
  const res = await landWrite(seen, () => deps.modlog.apply({
    file: rel,
    abs,
    content,
    tool: 'edit_file',
    operation: 'create',
    ...deps.session.writer,
    reason: args.reason,
    correlationId: args.correlation_id,
    linesAffected: [1, index.lineCount],
    linesChanged: index.lineCount,
    expectBeforeSha: null,
    diagnostics: seen.view,
  }));
  deps.session.recordWrite(abs, res.afterSha);
  const after = buildPreview(index, index, 0, 0, 0, index.text.length);
  return {
    path: rel,
    occurrences: 1,
    strategy: 'create',
    llm_calls: 0,
    preview: { ...after, before: '' },
    modification_id: res.modificationId,
    git_staged: res.gitStaged,
    lines_affected: [1, index.lineCount],
    ...(seen.view ? { diagnostics: seen.view } : {}),
  };
}

/** `file` is what the model read; with `over`, the person's saves moved the disk on to `over.now` since. */
async function editExisting(args: EditFileArgs, deps: EditDeps, abs: string, rel: string, file: LoadedFile, over?: { now: LoadedFile; moved: PersonMoved }): Promise<EditFileData> {
  const canon = canonicalise(file.text);
  const oldStr = toLf(args.old_str);
  const newStr = toLf(args.new_str);
  const lines = new LineIndex(canon.text);
  const result = await runPipeline(
    { text: canon.text, oldStr, newStr, expected: args.expected_replacements, replaceAll: args.replace_all ?? false, lines },
    { file: rel, fileHash: file.hash, corrector: deps.corrector, signal: deps.signal, logger: deps.logger },
  );
  if (deps.signal.aborted) throw new AbortedError('The edit');

  const newIndex = new LineIndex(result.text);
  const starts = newStarts(result.splices);
  const firstLine = newIndex.lineAt(starts[0]);
  const lastSplice = result.splices[result.splices.length - 1];
  const lastEnd = starts[starts.length - 1] + lastSplice.replacement.length;
  const lastLine = newIndex.lineAt(Math.max(starts[starts.length - 1], lastEnd - 1));
  // The lines that changed, not the lines old_str spans: a 28-line old_str that edits two lines changed two.
  const linesChanged = result.splices.reduce((sum, s) => sum + Math.max(1, linesTouched(canon.text.slice(s.start, s.end), s.replacement)), 0);
  const planned = writeBack(file.text, canon, lines, result.splices, result.needle, rel);
  if (over) return landOverPerson(args, deps, abs, rel, over, planned, result);
  const written = planned;
  const seen = await checkWrite(deps, { rel, tool: 'edit_file', before: file.text, after: written, signal: deps.signal });
  const res = await landWrite(seen, () => deps.modlog.apply({
    file: rel,
    abs,
    content: Buffer.from(written, 'utf8'),
    tool: 'edit_file',
    operation: 'edit',
    ...deps.session.writer,
    reason: args.reason,
    correlationId: args.correlation_id,
    linesAffected: [firstLine, lastLine],
    linesChanged,
    expectBeforeSha: file.hash,
    diagnostics: seen.view,
  }));
  deps.session.recordWrite(abs, res.afterSha);
  const first = result.splices[0];
  return {
    path: rel,
    occurrences: result.splices.length,
    strategy: result.strategy,
    ...(result.corrected ? { corrected: result.corrected } : {}),
    llm_calls: result.llmCalls,
    preview: buildPreview(lines, newIndex, first.start, first.end, starts[0], starts[0] + first.replacement.length),
    modification_id: res.modificationId,
    git_staged: res.gitStaged,
    lines_affected: [firstLine, lastLine],
    ...(seen.view ? { diagnostics: seen.view } : {}),
  };
}

/** The edit made on the text the model read, merged onto the person's saves and written over them. */
async function landOverPerson(
  args: EditFileArgs,
  deps: EditDeps,
  abs: string,
  rel: string,
  over: { now: LoadedFile; moved: PersonMoved },
  planned: string,
  result: Awaited<ReturnType<typeof runPipeline>>,
): Promise<EditFileData> {
  const { now, moved } = over;
  const written = await mergeOverPerson(rel, now, moved, planned, () => {
    deps.session.recordRead(abs, now.hash);
    return regionSnippet(canonicalise(now.text).text, args.old_str);
  }, deps.signal);
  const before = canonicalise(now.text).text;
  const after = canonicalise(written).text;
  const oldIndex = new LineIndex(before);
  const newIndex = new LineIndex(after);
  const [start, oldEnd, newEnd] = changedSpan(before, after);
  const firstLine = newIndex.lineAt(start);
  const lastLine = newIndex.lineAt(Math.max(start, newEnd - 1));
  const seen = await checkWrite(deps, { rel, tool: 'edit_file', before: now.text, after: written, signal: deps.signal });
  const res = await landWrite(seen, () => deps.modlog.apply({
    file: rel,
    abs,
    content: Buffer.from(written, 'utf8'),
    tool: 'edit_file',
    operation: 'edit',
    sessionId: deps.session.id,
    reason: args.reason,
    correlationId: args.correlation_id,
    linesAffected: [firstLine, lastLine],
    linesChanged: Math.max(1, linesTouched(before, after)),
    expectBeforeSha: now.hash,
    diagnostics: seen.view,
  }));
  deps.session.recordWrite(abs, res.afterSha);
  return {
    path: rel,
    occurrences: result.splices.length,
    strategy: result.strategy,
    ...(result.corrected ? { corrected: result.corrected } : {}),
    llm_calls: result.llmCalls,
    preview: buildPreview(oldIndex, newIndex, start, oldEnd, start, newEnd),
    modification_id: res.modificationId,
    git_staged: res.gitStaged,
    lines_affected: [firstLine, lastLine],
    merged_over_person: { modifications: moved.saves, note: personNote(rel, now, moved) },
    ...(seen.view ? { diagnostics: seen.view } : {}),
  };
}
