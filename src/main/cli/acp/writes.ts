// What a tool call wrote, read back from the modification log: the modifications its result names
// (`modification_id`, `rollback_id` — a group's when it names one — and a command's
// `changes.files`), each with its before and after text from the blob store. An ACP client shows
// them as diffs; the log stays the one record of the change.
import type { ModificationLog } from '../../services/modlog/modificationLog';
import { sidesOf } from '../../services/modlog/rollback';
import type { Operation } from '../../services/modlog/types';

/** Larger sides are not sent as diff text (the timeline still shows them). */
export const MAX_DIFF_BYTES = 1024 * 1024;

export interface Write {
  modificationId: string;
  /** Workspace-relative. */
  file: string;
  operation: Operation;
  /** null: the file did not exist on that side. */
  before: string | null;
  after: string | null;
  /** The bytes are not text to show (binary, or over MAX_DIFF_BYTES): no diff is sent. */
  opaque: boolean;
  /** A command's rename: the old path's deletion names the new path, and the other way round. */
  renamedTo?: string;
  renamedFrom?: string;
  /** First line the change touched (1-based), when the log says. */
  line?: number;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

/**
 * The modifications a tool result names, and the one id that stands for them all (the
 * modification, or the group a command's or an undo's changes form): what `code_rollback` takes.
 */
export function namedModifications(data: Record<string, unknown> | undefined): { ids: string[]; head: string | undefined } {
  if (!data) return { ids: [], head: undefined };
  const ids: string[] = [];
  const own = str(data.modification_id) ?? str(data.rollback_id);
  if (own) ids.push(own);
  const changes = data.changes && typeof data.changes === 'object' ? (data.changes as Record<string, unknown>) : undefined;
  const files = Array.isArray(changes?.files) ? changes.files : [];
  for (const f of files) {
    const id = f && typeof f === 'object' ? str((f as Record<string, unknown>).modification_id) : undefined;
    if (id) ids.push(id);
  }
  return { ids: [...new Set(ids)], head: own ?? str(changes?.group_id) ?? ids[0] };
}

const text = (b: Buffer | null): string | null => (b === null ? null : b.toString('utf8'));
const opaque = (b: Buffer | null): boolean => !!b && (b.length > MAX_DIFF_BYTES || b.subarray(0, 8000).includes(0));

/** Each named modification with its sides (a group id stands for its members); ids the log does not know are left out. */
export async function readWrites(log: ModificationLog, ids: string[]): Promise<Write[]> {
  if (!ids.length) return [];
  const fold = await log.index().sync();
  const out: Write[] = [];
  const seen = new Set<string>();
  for (const id of ids) {
    const members = fold.get(id) ? [fold.get(id)!] : fold.ofGroup(id);
    for (const f of members) {
      if (seen.has(f.id)) continue;
      seen.add(f.id);
      const e = f.entry;
      const sides = await sidesOf(log, e).catch(() => null);
      if (!sides) continue;
      const hidden = opaque(sides.before) || opaque(sides.after);
      out.push({
        modificationId: e.modification_id,
        file: e.file,
        operation: e.operation,
        before: hidden ? null : text(sides.before),
        after: hidden ? null : text(sides.after),
        opaque: hidden,
        ...(e.renamed_to ? { renamedTo: e.renamed_to } : {}),
        ...(e.renamed_from ? { renamedFrom: e.renamed_from } : {}),
        ...(e.lines_affected ? { line: e.lines_affected[0] } : {}),
      });
    }
  }
  return out;
}
