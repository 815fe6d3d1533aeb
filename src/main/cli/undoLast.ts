// `loupe run --undo-last [--session ID] [--skip-conflicts] [--json]`: undoes the latest request
// whose changes are still in effect (of that session, or of any), with what "Undo changes from
// here" does in the app: a preview on stderr, conflicting files refused (or skipped when asked),
// one group that rolling back redoes. Nothing reaches a model.
import { InvalidArgumentError } from '../errors';
import { statusOf } from '../services/modlog/fold';
import { planDigest, planUndo, requestsFrom, undoRequests } from '../services/modlog/groupRollback';
import type { WorkspaceServices } from '../workspace/compose';
import { diffCounts } from '../services/modlog/unifiedDiff';

const UNDO_KINDS = new Set(['undo', 'redo']);

export interface UndoLastOptions {
  session?: string;
  skipConflicts: boolean;
  json: boolean;
}

export async function undoLast(services: WorkspaceServices, opts: UndoLastOptions): Promise<number> {
  const log = services.modlog;
  const fold = await log.index().sync();
  const order = fold.order;
  let request: string | undefined;
  for (let i = order.length - 1; i >= 0 && !request; i--) {
    const f = order[i];
    const e = f.entry;
    // The person's own rollbacks from the review pane are not a request to undo.
    if (!f.correlation || UNDO_KINDS.has(e.group_kind ?? '') || e.session_id.startsWith('review-') || statusOf(f) === 'rolled_back') continue;
    if (opts.session && e.session_id !== opts.session) continue;
    request = f.correlation;
  }
  if (!request) throw new InvalidArgumentError(`Nothing to undo: no request${opts.session ? ` of session ${opts.session}` : ''} has changes in effect.`);
  const scope = requestsFrom(fold, request);
  const plan = await planUndo(log, scope);
  const say = (s: string) => process.stderr.write(`${s}\n`);
  say(`Undo request ${request} (session ${scope.sessionId}): ${plan.targets.length} change${plan.targets.length === 1 ? '' : 's'} in ${plan.files.length} file${plan.files.length === 1 ? '' : 's'}`);
  for (const f of plan.files) {
    if (f.conflict) say(`  ! ${f.file}: conflicts (${f.conflict.why}${f.conflict.blocking.length ? `; later: ${f.conflict.blocking.join(', ')}` : ''}${f.conflict.outside ? '; edited outside Loupe' : ''})`);
    else {
      const c = diffCounts(f.current?.toString('utf8') ?? '', f.result?.toString('utf8') ?? '');
      say(`  ${f.result === null ? '-' : f.current === null ? '+' : '~'} ${f.file} (+${c.added} −${c.removed})`);
    }
  }
  const conflicts = plan.files.filter((f) => f.conflict).length;
  if (conflicts && !opts.skipConflicts) {
    say(`Nothing was changed: ${conflicts} file${conflicts === 1 ? '' : 's'} would lose changes made since. Run again with --skip-conflicts to undo the rest.`);
    if (opts.json) process.stdout.write(`${JSON.stringify({ type: 'undo', status: 'refused', request, conflicts })}\n`);
    return 1;
  }
  const out = await undoRequests(log, scope, { onConflict: 'skip', tool: 'undo', digest: planDigest(plan), reason: `undo from request ${request} (loupe run --undo-last)` });
  say(`Undone as group ${out.group_id}${out.skipped.length ? `; left ${out.skipped.length} conflicting file${out.skipped.length === 1 ? '' : 's'} as they are` : ''}. Rolling that group back (timeline, or code_rollback) redoes it.`);
  if (opts.json) process.stdout.write(`${JSON.stringify({ type: 'undo', status: 'done', request, group_id: out.group_id, files: out.files, rolled_back: out.rolled_back, skipped: out.skipped })}\n`);
  return 0;
}
