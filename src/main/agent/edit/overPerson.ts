// A write based on a read that the person's own saves have since moved on from (docs/architecture.md,
// "The person's own edits"). Read-first refuses a write based on content the model did not see;
// but when everything that changed the file since that read is the person's saves from the
// viewer (modifications of tool `person`, chained from the content read to the content now), the
// model's change is known exactly: what it meant to do to the text it read. So it is made on that
// text and merged three ways onto the person's, as a colleague's change would be; the result says
// what the person changed, so the model sees every line it now holds. Changes that touch the same
// lines refuse as before (FILE_CHANGED_SINCE_READ), and nothing is written.
import { FileChangedSinceReadError } from '../../services/files/errors';
import { sha256 } from '../../services/files/hash';
import type { LoadedFile } from '../../services/files/textFile';
import { merge3 } from '../../services/modlog/merge3';
import type { ModificationLog } from '../../services/modlog/modificationLog';
import { PERSON_TOOL } from '../../services/modlog/types';
import { unifiedDiff } from '../../services/modlog/unifiedDiff';

/** How far back a chain of the person's saves is followed. */
const MAX_SAVES = 50;
/** The person's change as shown to the model, cut past this. */
const MAX_DIFF_CHARS = 4000;

export interface PersonMoved {
  /** The file as the model read it. */
  base: LoadedFile;
  /** The person's saves since, oldest first. */
  saves: string[];
}

/**
 * The content the model read, when every change since (`seenHash` → `now`) is a save of the
 * person's in the viewer; null otherwise (another writer, or a change the log does not know).
 */
export async function movedByPerson(log: ModificationLog, rel: string, seenHash: string, now: LoadedFile): Promise<PersonMoved | null> {
  const list = (await log.index().sync()).ofFile(rel);
  const saves: string[] = [];
  let want = now.hash;
  for (let i = list.length - 1; i >= 0 && saves.length < MAX_SAVES; i--) {
    const e = list[i].entry;
    if (e.tool !== PERSON_TOOL || e.after_sha256 !== want || !e.before_sha256) return null;
    saves.unshift(e.modification_id);
    want = e.before_sha256;
    if (want !== seenHash) continue;
    const buf = await log.blobs.get(want).catch(() => null);
    if (!buf || sha256(buf) !== seenHash) return null;
    return { base: { buf, text: buf.toString('utf8'), hash: seenHash, mode: now.mode }, saves };
  }
  return null;
}

/**
 * `mine` (the model's change made on the text it read) merged onto the person's text now.
 * Throws FILE_CHANGED_SINCE_READ (with `snippet()`, what the model is shown of the file now) when
 * both changed the same lines.
 */
export async function mergeOverPerson(rel: string, now: LoadedFile, moved: PersonMoved, mine: string, snippet: () => string | undefined, signal?: AbortSignal): Promise<string> {
  const m = await merge3(now.buf, moved.base.buf, Buffer.from(mine, 'utf8'), signal);
  if (m.clean) return m.merged.toString('utf8');
  throw new FileChangedSinceReadError(rel, snippet(), `the person edited the same lines in the editor: ${moved.saves.join(', ')}`);
}

/** For the result: what the person changed, so the model knows every line the file holds now. */
export function personNote(rel: string, now: LoadedFile, moved: PersonMoved): string {
  const diff = unifiedDiff(rel, moved.base.text, now.text);
  const shown = diff.length > MAX_DIFF_CHARS ? `${diff.slice(0, MAX_DIFF_CHARS)}\n… (the rest of their change is left out: read the file again)` : diff;
  return `The person edited ${rel} in the editor after your read (${moved.saves.join(', ')}); your change was made on the text you read and merged with theirs. Their change:\n${shown}`;
}

/** The 1-based lines of `after` that differ from `before` (line breaks as LF). */
export function changedLines(before: string, after: string): [number, number] {
  const a = before.split('\n');
  const b = after.split('\n');
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  return [head + 1, Math.max(head + 1, b.length - tail)];
}
