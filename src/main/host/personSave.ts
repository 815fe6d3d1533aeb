// The person's own edit, saved from the viewer (docs/architecture.md, "The person's own edits"):
// one more writer through the modification log, so the save is atomic, staged, in the timeline as
// the person's (tool `person`), and reversible like any change. The editor gives LF text; the
// file's BOM and each untouched line's ending are put back (`applyEditedText`). When the file
// changed on disk after the person began (the agent edited it meanwhile), their edits are merged
// three ways onto what is there; when both changed the same lines nothing is written and the
// person chooses (save over it, or take the disk's).
import type { FileSaveResult, Params } from '../../shared/contract';
import { InvalidArgumentError, LoupeError } from '../errors';
import { applyEditedText, canonicalise } from '../agent/edit/canonical';
import { changedLines } from '../agent/edit/overPerson';
import { sha256 } from '../services/files/hash';
import { readInside } from '../services/files/safeOpen';
import { decodeUtf8, looksBinary, MAX_FILE_BYTES } from '../services/files/textFile';
import { FileTooLargeError } from '../services/files/errors';
import { merge3 } from '../services/modlog/merge3';
import { isProtectedPath, type ModificationLog } from '../services/modlog/modificationLog';
import { ProtectedPathError } from '../services/modlog/errors';
import { PERSON_SESSION, PERSON_TOOL } from '../services/modlog/types';
import { linesTouched } from '../services/modlog/unifiedDiff';
import { resolveInWorkspace } from '../services/workspace/pathGuard';

/** The disk changed under the person's edits on the same lines: nothing was saved. */
export class SaveConflictError extends LoupeError {
  constructor(file: string, why: string, by: string[]) {
    super(
      'FILE_CHANGED_SINCE_READ',
      `${file} changed on disk since you began editing it${by.length ? ` (${by.join(', ')})` : ''}, ${why}. Nothing was saved; your text is still in the editor. ` +
        'Save over it, or take the disk’s version.',
      { file, by: [...by] },
    );
  }
}

/** What is on disk now, as text a save may replace; null when the file is gone. */
async function current(root: string, abs: string, rel: string): Promise<{ buf: Buffer; text: string } | null> {
  const read = await readInside(root, abs, { rel, maxBytes: MAX_FILE_BYTES });
  if (!read) return null;
  const text = looksBinary(read.buf) ? null : decodeUtf8(read.buf);
  if (text === null) throw new InvalidArgumentError(`${rel} is not UTF-8 text on disk now; it cannot be saved from the viewer.`);
  return { buf: read.buf, text };
}

/** The modifications that changed `rel` since its content was `baseSha`, newest first, by id. */
async function changesSince(log: ModificationLog, rel: string, baseSha: string): Promise<string[]> {
  const fold = await log.index().sync();
  const list = fold.ofFile(rel);
  const out: string[] = [];
  for (let i = list.length - 1; i >= 0 && out.length < 5; i--) {
    out.push(list[i].id);
    if (list[i].entry.before_sha256 === baseSha) break;
  }
  return out;
}

export async function savePersonEdit(log: ModificationLog, p: Params<'file.save'>): Promise<FileSaveResult> {
  if (typeof p?.path !== 'string' || typeof p.content !== 'string' || typeof p.base !== 'string') throw new InvalidArgumentError('file.save needs path, content and base as strings.');
  const { abs, rel } = await resolveInWorkspace(log.root, p.path);
  if (!rel) throw new InvalidArgumentError('Give a file path, not the workspace folder.');
  if (isProtectedPath(rel)) throw new ProtectedPathError(rel);
  return log.withFileLock(abs, async () => {
    const now = await current(log.root, abs, rel);
    const baseBuf = Buffer.from(p.base, 'utf8');
    // The bytes the person's text stands for, laid over the file as they began from it (or as it is, when overwriting).
    const over = p.overwrite && now ? now.text : p.base;
    const mine = Buffer.from(applyEditedText(over, p.content), 'utf8');
    if (mine.length > MAX_FILE_BYTES) throw new FileTooLargeError(rel, mine.length, MAX_FILE_BYTES);
    let result: Buffer = mine;
    let merged = false;
    if (!p.overwrite && !(now?.buf.equals(baseBuf) ?? false)) {
      if (now?.buf.equals(mine)) return { file: rel, content: now.text, merged: false };
      const by = await changesSince(log, rel, sha256(baseBuf));
      if (!now) throw new SaveConflictError(rel, 'and it was deleted', by);
      const m = await merge3(now.buf, baseBuf, mine);
      if (!m.clean) throw new SaveConflictError(rel, `on the lines you changed (${m.why})`, by);
      result = m.merged;
      merged = true;
    }
    if (now?.buf.equals(result)) return { file: rel, content: now.text, merged };
    const before = now ? canonicalise(now.text).text : '';
    const after = canonicalise(result.toString('utf8')).text;
    const res = await log.apply({
      file: rel,
      abs,
      content: result,
      tool: PERSON_TOOL,
      operation: now ? 'edit' : 'create',
      sessionId: PERSON_SESSION,
      reason: merged ? 'Saved in the editor, merged with changes made on disk meanwhile' : 'Saved in the editor',
      linesAffected: changedLines(before, after),
      linesChanged: linesTouched(before, after),
      expectBeforeSha: now ? sha256(now.buf) : null,
    });
    return { file: rel, modification_id: res.modificationId, content: result.toString('utf8'), merged };
  });
}
