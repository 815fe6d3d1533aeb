import { useApp } from '../store';
import { tickedFiles } from '../store/worktreeSessionsSlice';

const OP_SIGN = { create: '+', overwrite: '~', delete_file: '−' } as const;

/**
 * The selected worktree session's changes against its base: each file opens in the diff view
 * (hunk by hunk); the ticked ones go to the main folder with "Apply to main folder", which shows
 * every conflict and writes nothing when there is one. "Discard" shows what would be lost first.
 */
export function WorktreeReview() {
  const changes = useApp((s) => s.worktreeChanges);
  const loadError = useApp((s) => s.worktreeChangesError);
  const excluded = useApp((s) => s.worktreeExcluded);
  const conflictsTicked = useApp((s) => s.worktreeConflictsTicked);
  const busy = useApp((s) => s.worktreeBusy);
  const toggle = useApp((s) => s.toggleWorktreeFile);
  const openDiff = useApp((s) => s.openWorktreeFileDiff);
  const openFile = useApp((s) => (s.diff?.target.kind === 'worktree' ? s.diff.target.path : null));
  const apply = useApp((s) => s.applyWorktree);
  const askDiscard = useApp((s) => s.askDiscardWorktree);
  const all = changes ? [...changes.files.map((f) => f.file), ...changes.conflicts.map((c) => c.file)] : [];
  const chosen = changes ? tickedFiles(changes, excluded, conflictsTicked).length : 0;
  return (
    <div className="worktree-review" data-testid="worktree-review">
      {loadError && (
        <div className="worktree-msg error" role="alert">
          {loadError}
        </div>
      )}
      {!changes && !loadError && <div className="worktree-msg muted">Reading its changes…</div>}
      {changes && (
        <>
          <div className="worktree-base muted" title={changes.base}>
            Against base {changes.base.slice(0, 10)}
          </div>
          {changes.files.length === 0 && changes.conflicts.length === 0 && (
            <div className="worktree-msg muted" data-testid="worktree-nothing-to-apply">
              {changes.applied.length ? `The main folder already has ${changes.applied.length === 1 ? 'this change' : `all ${changes.applied.length} changed files`}: nothing left to apply.` : 'No changes yet.'}
            </div>
          )}
          <ul className="worktree-files">
            {changes.files.map((f) => (
              <li key={f.file} className={openFile === f.file ? 'worktree-file open' : 'worktree-file'} data-testid="worktree-file" data-path={f.file}>
                <input type="checkbox" checked={!excluded.includes(f.file)} aria-label={`Apply ${f.file}`} onChange={() => toggle(f.file)} />
                <button type="button" className="worktree-file-name" title={`Review ${f.file}: base → worktree`} onClick={() => void openDiff(f.file)}>
                  <span className={`worktree-op op-${f.operation}`}>{OP_SIGN[f.operation]}</span>
                  {f.file}
                </button>
                <span className="add">+{f.added}</span>
                <span className="del">−{f.removed}</span>
              </li>
            ))}
            {changes.conflicts.map((c) => (
              <li key={c.file} className="worktree-file conflict" data-testid="worktree-file" data-path={c.file} data-conflict="true" title={`Conflicts with the main folder: ${c.why}`}>
                {/* Left out unless ticked: applying a conflict writes nothing at all. */}
                <input type="checkbox" checked={conflictsTicked.includes(c.file)} aria-label={`Apply ${c.file}`} onChange={() => toggle(c.file)} />
                <button type="button" className="worktree-file-name" onClick={() => void openDiff(c.file)}>
                  <span className="worktree-op">!</span>
                  {c.file}
                </button>
                <span className="worktree-why">conflict</span>
              </li>
            ))}
          </ul>
        </>
      )}
      <ApplyOutcome />
      <div className="worktree-actions">
        <button
          type="button"
          className="btn btn-sm btn-primary"
          data-testid="apply-to-main"
          disabled={busy !== null || chosen === 0}
          title="Write the ticked files into the main folder as one group of its timeline (rolled back as one step); nothing is written if any conflicts"
          onClick={() => void apply()}
        >
          {busy === 'applying' ? 'Applying…' : `Apply to main folder${chosen < all.length ? ` (${chosen} of ${all.length})` : ''}`}
        </button>
        <button type="button" className="btn btn-sm btn-danger" data-testid="discard-worktree" disabled={busy !== null} title="Remove the worktree and its branch, after showing what would be lost" onClick={() => void askDiscard()}>
          Discard…
        </button>
      </div>
      <DiscardConfirm />
    </div>
  );
}

/** What the last apply did: its group in the timeline, or each conflict and that nothing changed. */
function ApplyOutcome() {
  const conflicts = useApp((s) => s.worktreeConflicts);
  const error = useApp((s) => s.worktreeError);
  const applied = useApp((s) => s.worktreeApplied);
  const dismiss = useApp((s) => s.dismissWorktreeMessage);
  if (conflicts.length) {
    return (
      <div className="worktree-msg conflict" role="alert" data-testid="apply-conflicts">
        <strong>Nothing was changed:</strong> {conflicts.length} file{conflicts.length === 1 ? '' : 's'} conflict with edits in the main folder.
        <ul>
          {conflicts.map((c) => (
            <li key={c.file} data-testid="apply-conflict" data-path={c.file}>
              <code>{c.file}</code>: {c.why}
            </li>
          ))}
        </ul>
        Untick them to apply the rest, or resolve them, then apply again.{' '}
        <button type="button" className="link" onClick={dismiss}>
          OK
        </button>
      </div>
    );
  }
  if (error)
    return (
      <div className="worktree-msg error" role="alert">
        {error}{' '}
        <button type="button" className="link" onClick={dismiss}>
          OK
        </button>
      </div>
    );
  if (applied)
    return (
      <div className="worktree-msg ok" data-testid="apply-result" data-group-id={applied.group_id}>
        Applied {applied.files.length} file{applied.files.length === 1 ? '' : 's'} to the main folder as group {applied.group_id}; the timeline shows it, and rolls it back as one step.
      </div>
    );
  return null;
}

/** What discarding would lose, asked before anything goes; declining keeps everything. */
function DiscardConfirm() {
  const report = useApp((s) => s.discardReport);
  const busy = useApp((s) => s.worktreeBusy === 'discarding');
  const confirm = useApp((s) => s.confirmDiscardWorktree);
  const cancel = useApp((s) => s.cancelDiscardWorktree);
  if (!report) return null;
  const nothing = !report.uncommitted.length && !report.commits.length;
  return (
    <div className="worktree-discard" role="alertdialog" aria-label={`Discard worktree ${report.worktree}?`} data-testid="discard-report">
      <div>
        Discarding removes <code>{report.path}</code> and branch <code>{report.branch}</code>.{' '}
        {nothing ? 'Nothing there is missing from the main folder.' : 'This would be lost:'}
      </div>
      {!nothing && (
        <ul className="worktree-lost">
          {report.uncommitted.map((l) => (
            <li key={`u${l}`} data-testid="discard-lost">
              uncommitted <code>{l}</code>
            </li>
          ))}
          {report.commits.map((c) => (
            <li key={`c${c}`} data-testid="discard-lost">
              commit <code>{c.slice(0, 10)}</code> {c.slice(41)}
            </li>
          ))}
        </ul>
      )}
      <div className="worktree-actions">
        <button type="button" className="btn btn-sm btn-danger" data-testid="discard-confirm" disabled={busy} onClick={() => void confirm()}>
          {busy ? 'Discarding…' : 'Discard it'}
        </button>
        <button type="button" className="btn btn-sm" data-testid="discard-cancel" autoFocus onClick={cancel}>
          Keep it
        </button>
      </div>
    </div>
  );
}

export default WorktreeReview;
