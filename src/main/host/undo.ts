// "Undo changes from here" for the chat (docs/architecture.md, "Undo a request"): the preview a
// person reads before anything changes, and which requests of a session stand undone (their
// message offers Redo). The planning and the writes are the modification log's.
import type { UndoPreviewView } from '../../shared/contract';
import { statusOf } from '../services/modlog/fold';
import { planDigest, planGroup, planUndo, type RollbackPlan, type UndoScope } from '../services/modlog/groupRollback';
import type { ModificationLog } from '../services/modlog/modificationLog';
import { diffCounts } from '../services/modlog/unifiedDiff';
import { languageOf } from '../services/workspace/language';

/** Sides above this are not sent for the preview's diff; the counts still are. */
const MAX_SIDE_CHARS = 1_000_000;

const isBinary = (b: Buffer | null) => !!b && b.subarray(0, 8000).includes(0);

export async function undoPreview(log: ModificationLog, scope: UndoScope, signal?: AbortSignal): Promise<UndoPreviewView> {
  return previewOf(await planUndo(log, scope, signal), scope);
}

/**
 * What Redo would do: the undo's group reversed, file by file, changing nothing. A file changed
 * since the undo (by the person, another program or a later request) is a conflict, as in undo's.
 */
export async function redoPreview(log: ModificationLog, groupId: string, scope: UndoScope, signal?: AbortSignal): Promise<UndoPreviewView> {
  return previewOf((await planGroup(log, groupId, signal)).plan, scope);
}

function previewOf(plan: RollbackPlan, scope: UndoScope): UndoPreviewView {
  return {
    session_id: scope.sessionId,
    correlation_id: scope.correlations[0],
    requests: scope.correlations,
    modifications: plan.targets.length,
    digest: planDigest(plan),
    files: plan.files.map((f) => {
      const binary = isBinary(f.current) || isBinary(f.result);
      const before = f.current?.toString('utf8') ?? null;
      const after = f.result?.toString('utf8') ?? null;
      const { added, removed } = binary || f.conflict ? { added: 0, removed: 0 } : diffCounts(before ?? '', after ?? '');
      const shown = !binary && (before?.length ?? 0) <= MAX_SIDE_CHARS && (after?.length ?? 0) <= MAX_SIDE_CHARS;
      return {
        file: f.file,
        language: languageOf(f.file),
        binary,
        ...(shown ? { before, after } : {}),
        modifications: f.conflict ? [] : f.steps.map((s) => s.target.id),
        added,
        removed,
        ...(f.conflict ? { conflict: { why: f.conflict.why, blocking: f.conflict.blocking, outside: f.conflict.outside } } : {}),
      };
    }),
  };
}

/** The requests of a session an undo started from that is still in effect, with that undo's group. */
export async function undoneRequests(log: ModificationLog, sessionId: string, correlations: readonly string[]): Promise<{ correlation_id: string; group_id: string }[]> {
  const fold = await log.index().sync();
  const live = new Map<string, string>();
  for (const c of correlations) {
    for (const f of fold.ofCorrelation(c)) {
      const e = f.entry;
      if (e.group_kind !== 'undo' || !e.undo_of || !e.group_id || e.session_id !== sessionId) continue;
      if (statusOf(f) !== 'rolled_back') live.set(e.undo_of, e.group_id);
      else if (live.get(e.undo_of) === e.group_id) live.delete(e.undo_of);
    }
  }
  return [...live].map(([correlation_id, group_id]) => ({ correlation_id, group_id }));
}
