import { useCallback, useLayoutEffect } from 'react';
import { CloseIcon } from '../app/icons';
import { useNarrow } from '../app/useNarrow';
import { useApp } from '../store';
import { fileColor } from '../tree/fileKind';
import { diagnosticsLabel, linesLabel, modificationWords, OPERATION_LABEL, PERSON_TOOL, requestLabel, undoneRequest, shortTime, splitPath, statusLabel } from './format';
import { CheckIcon, DiffIcon, FileDiffIcon, InlineIcon, SideBySideIcon, UndoIcon, WarningIcon } from './icons';
import type { DiffBodyProps } from './DiffBody';
import { diffBody, markDiffOpened } from './diffLoad';
import './review.css';

/**
 * The diff view over the file viewer: one modification (before → after) or a whole file
 * (HEAD → now), with approve, rollback and per-hunk revert for a modification.
 */
/** What rolling a modification's whole group back means, by the group's kind. */
const GROUP_ACTION = {
  command: { label: 'Roll back command', title: 'Undo every file this command changed, as one step' },
  undo: { label: 'Redo', title: 'Apply again everything this undo reversed' },
  redo: { label: 'Undo again', title: 'Reverse everything this redo applied' },
  rollback: { label: 'Roll back group', title: 'Reverse this whole group rollback' },
  worktree: { label: 'Roll back apply', title: 'Undo every file this worktree apply changed in the main folder, as one step' },
} as const;

/**
 * Below this pane width two sides are too narrow to read (at 1024 px the centre is ~420 px): the
 * diff shows inline, the header wraps (review.css) and the person's choice returns when it widens.
 */
const SIDE_BY_SIDE_MIN = 800;

export default function DiffPane() {
  const [paneRef, narrow] = useNarrow<HTMLElement>(SIDE_BY_SIDE_MIN);
  const diff = useApp((s) => s.diff);
  const id = diff?.target.kind === 'modification' ? diff.target.id : null;
  const mod = useApp((s) => (id ? s.modifications.find((m) => m.modification_id === id) : undefined));
  const chosenLayout = useApp((s) => s.diffLayout);
  const layout = narrow ? 'inline' : chosenLayout;
  const busy = useApp((s) => s.reviewBusy);
  const reviewError = useApp((s) => s.reviewError);
  const conflict = useApp((s) => s.conflict);
  const reverted = mod?.reverted_hunks;
  const setLayout = useApp((s) => s.setDiffLayout);
  const closeDiff = useApp((s) => s.closeDiff);
  const approve = useApp((s) => s.approveModification);
  const rollback = useApp((s) => s.rollbackModification);
  const rollbackGroup = useApp((s) => s.rollbackGroup);
  const revertHunk = useApp((s) => s.revertHunk);
  const restoreHunk = useApp((s) => s.restoreHunk);
  const openModification = useApp((s) => s.openModification);
  const openFileDiff = useApp((s) => s.openFileDiff);
  const dismiss = useApp((s) => s.dismissReviewMessage);
  const pendingId = diff?.target.kind === 'approval' ? diff.target.id : null;
  const fileProblems = useApp((s) => (s.diff?.target.kind === 'file' ? s.problems[s.diff.target.path]?.problems : undefined));
  // A proposed edit: what the server said it would introduce, read before anything was written.
  const pendingProblems = useApp((s) => (pendingId ? s.approvals.find((r) => r.id === pendingId)?.edit?.diagnostics?.introduced : undefined));

  // A modification's header says what it was, in words; its id and sides stay in the tooltip.
  const words = useApp((s) => {
    if (!mod) return null;
    const undone = mod.group_kind === 'undo' || mod.group_kind === 'redo' ? undoneRequest(mod, (x) => s.modifications.find((m) => m.modification_id === x)) : undefined;
    return modificationWords(mod, undone, (x) => s.requestNames[x]);
  });
  const requestName = useApp((s) => (mod?.correlation_id ? s.requestNames[mod.correlation_id] : undefined));
  const sides = diff?.sides ?? null;
  const canReverse = id !== null && mod !== undefined && mod.status !== 'rolled_back';
  // A created or deleted file goes back whole: the host reverts hunks of edits only.
  const hunksRevertable = canReverse && diff?.status === 'ready' && sides !== null && sides.before !== null && sides.after !== null;
  const onRevertHunk = useCallback(
    (index: number) => {
      if (id) void revertHunk(id, index);
    },
    [id, revertHunk],
  );
  const onRestoreHunk = useCallback(
    (index: number) => {
      if (id) void restoreHunk(id, index);
    },
    [id, restoreHunk],
  );

  if (!diff) return null;
  const file = diff.target.kind === 'file' || diff.target.kind === 'worktree' ? diff.target.path : (mod?.file ?? sides?.file ?? '');
  const { name, dir } = splitPath(file);
  // A modification's diff marks what it introduced; the file's diff, like the viewer, what the server sees now.
  const problems = diff.target.kind === 'file' ? fileProblems : diff.target.kind === 'approval' ? pendingProblems : mod?.diagnostics?.introduced;
  const introduced = mod ? diagnosticsLabel(mod) : null;
  const targetLabel = diff.target.kind === 'modification' ? diff.target.id : diff.target.kind === 'approval' ? 'proposed edit' : diff.target.kind === 'worktree' ? `base → worktree ${diff.target.name}` : 'HEAD → working tree';

  return (
    <section
      ref={paneRef}
      className="diff-pane"
      data-testid="diff-view"
      data-state={diff.status}
      data-kind={diff.target.kind}
      data-modification-id={id ?? undefined}
      data-approval-id={pendingId ?? undefined}
      data-file={file}
      data-worktree={diff.target.kind === 'worktree' ? diff.target.name : undefined}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && !e.defaultPrevented) closeDiff();
      }}
    >
      <div className="viewer-header diff-header">
        <div className="viewer-tab diff-tab" title={file}>
          <DiffIcon size={14} style={{ color: fileColor(name) }} />
          <span className="viewer-tab-name">{name || 'Diff'}</span>
          <button className="icon-btn diff-close" title="Close diff (Esc)" aria-label="Close diff" data-testid="diff-close" onClick={closeDiff}>
            <CloseIcon size={13} />
          </button>
        </div>
        <div className="viewer-crumbs diff-label">
          {dir && <span className="diff-dir">{dir}/</span>}
          <span className="diff-sides" data-testid="diff-words" title={sides?.label ?? targetLabel}>
            {words ?? sides?.label ?? targetLabel}
          </span>
        </div>
        <div className="diff-actions">
          <div className="segmented" role="group" aria-label="Diff layout">
            <button
              className={layout === 'side-by-side' ? 'active' : ''}
              aria-pressed={layout === 'side-by-side'}
              disabled={narrow}
              title={narrow ? 'Side by side needs a wider pane: widen the window or hide a column (shown inline meanwhile)' : 'Side by side'}
              data-testid="diff-layout-side-by-side"
              onClick={() => setLayout('side-by-side')}
            >
              <SideBySideIcon size={14} />
            </button>
            <button className={layout === 'inline' ? 'active' : ''} aria-pressed={layout === 'inline'} title="Inline" data-testid="diff-layout-inline" onClick={() => setLayout('inline')}>
              <InlineIcon size={14} />
            </button>
          </div>
          {file && diff.target.kind !== 'worktree' && (
            <button
              className={diff.target.kind === 'file' ? 'icon-btn active' : 'icon-btn'}
              title={`Whole file: ${file}, HEAD → now`}
              aria-label="Compare the whole file with HEAD"
              data-testid="diff-whole-file"
              onClick={() => void openFileDiff(file)}
            >
              <FileDiffIcon size={15} />
            </button>
          )}
          {pendingId && <PendingEditActions id={pendingId} />}
          {id && (
            <>
              <span className="diff-sep" />
              <button
                className="btn btn-sm"
                data-testid="review-rollback"
                disabled={!canReverse || busy !== null}
                title={mod?.status === 'rolled_back' ? `Already rolled back${mod.rolled_back_by ? ` by ${mod.rolled_back_by}` : ''}` : 'Undo this modification on disk'}
                onClick={() => void rollback(id)}
              >
                <UndoIcon size={14} />
                {busy === 'rollback' ? 'Rolling back…' : 'Roll back'}
              </button>
              {mod?.group_id && mod.group_kind && (
                <button
                  className="btn btn-sm"
                  data-testid="review-rollback-group"
                  data-group-id={mod.group_id}
                  disabled={busy !== null}
                  title={`${GROUP_ACTION[mod.group_kind].title} (${mod.group_id})`}
                  onClick={() => void rollbackGroup(mod.group_id!, id)}
                >
                  {busy === 'group' ? 'Working…' : GROUP_ACTION[mod.group_kind].label}
                </button>
              )}
              <button
                className="btn btn-sm btn-primary"
                data-testid="review-approve"
                disabled={!mod || mod.status !== 'applied' || busy !== null}
                title={mod?.status === 'approved' ? 'Approved' : 'Mark this modification reviewed and approved'}
                onClick={() => void approve(id)}
              >
                <CheckIcon size={14} />
                {mod?.status === 'approved' ? 'Approved' : busy === 'approve' ? 'Approving…' : 'Approve'}
              </button>
            </>
          )}
        </div>
        {diff.status === 'loading' && <div className="viewer-progress" aria-hidden="true" />}
      </div>

      {mod && (
        <div className="diff-meta">
          <span className={`tl-status tl-status-${mod.status}`} data-testid="diff-status">
            {statusLabel(mod)}
          </span>
          <span className={`tl-op tl-op-${mod.operation}`}>{OPERATION_LABEL[mod.operation] ?? mod.operation}</span>
          {linesLabel(mod) && <span className="tl-lines">{linesLabel(mod)}</span>}
          {mod.correlation_id && (
            <span className={requestName ? 'tl-corr tl-request' : 'tl-corr'} title={`Request ${mod.correlation_id}${requestName ? `: ${requestName}` : ''}`}>
              {requestName ?? requestLabel(mod.correlation_id)}
            </span>
          )}
          {/* An undo's or a redo's own reason names the request by id; the header says it in words. */}
          <span className={mod.command ? 'diff-reason tl-command' : 'diff-reason'} title={mod.command ?? mod.reason}>
            {mod.command ? `$ ${mod.command}` : mod.group_kind === 'undo' || mod.group_kind === 'redo' ? '' : (mod.reason ?? '')}
          </span>
          <span className="diff-meta-right">
            {introduced && (
              <span className={`tl-diag tl-diag-${introduced.tone}`} title={introduced.title} data-testid="diff-diagnostics">
                {introduced.label}
              </span>
            )}
            {mod.test_results && (
              <span className={`tl-tests ${mod.test_results.failed > 0 ? 'fail' : 'pass'}`}>
                {mod.test_results.passed} passed · {mod.test_results.failed} failed
              </span>
            )}
            <span className="muted">
              {mod.tool === PERSON_TOOL ? 'you, in the editor' : mod.tool} · {shortTime(mod.timestamp)}
            </span>
          </span>
        </div>
      )}

      {conflict && conflict.modificationId === id && (
        <div className="review-banner conflict" role="alert" data-testid="review-conflict">
          <WarningIcon size={16} />
          <div className="review-banner-text">
            <strong>Cannot roll back {conflict.modificationId} cleanly.</strong>{' '}
            {conflict.blockers.length > 0 ? (
              <>
                Later {conflict.blockers.length === 1 ? 'modification' : 'modifications'} changed the same lines:{' '}
                {conflict.blockers.map((b, i) => (
                  <span key={b}>
                    {i > 0 && ', '}
                    <button className="link" data-testid="review-conflict-link" data-modification-id={b} onClick={() => void openModification(b)}>
                      {b}
                    </button>
                  </span>
                ))}
                . Roll {conflict.blockers.length === 1 ? 'it' : 'them'} back first, newest first; nothing was changed.
              </>
            ) : (
              <>The file changed since in a way that conflicts with undoing it; nothing was changed.</>
            )}
            <div className="review-banner-detail">{conflict.message}</div>
          </div>
          <button className="icon-btn" aria-label="Dismiss" onClick={dismiss}>
            <CloseIcon size={13} />
          </button>
        </div>
      )}
      {reviewError && (
        <div className="review-banner error" role="alert" data-testid="review-error">
          <WarningIcon size={16} />
          <div className="review-banner-text">{reviewError}</div>
          <button className="icon-btn" aria-label="Dismiss" onClick={dismiss}>
            <CloseIcon size={13} />
          </button>
        </div>
      )}

      <div className="diff-body">
        {diff.status === 'error' && (
          <div className="viewer-notice error" role="alert">
            <div className="viewer-notice-title">Could not load the diff</div>
            <div className="viewer-notice-detail">{diff.error}</div>
          </div>
        )}
        {sides?.binary && (
          <div className="viewer-notice" data-testid="diff-binary">
            <div className="viewer-notice-title">Binary file</div>
            <div className="viewer-notice-detail">
              {sides.sizes?.[0] === null ? 'created' : `${sides.sizes?.[0]?.toLocaleString()} bytes`} → {sides.sizes?.[1] === null ? 'deleted' : `${sides.sizes?.[1]?.toLocaleString()} bytes`}. Rolling back restores it byte for byte.
            </div>
          </div>
        )}
        {sides && !sides.binary && (
          <LoadedDiffBody
            sides={sides}
            modelKey={`${sides.file}\u0000${sides.label}`}
            layout={layout}
            modificationId={id}
            revertable={hunksRevertable}
            busy={busy}
            reverted={reverted}
            onRestoreHunk={onRestoreHunk}
            onRevertHunk={onRevertHunk}
            problems={problems}
          />
        )}
      </div>
    </section>
  );
}

/** The editor and hunk list, or a notice while (or if) Monaco's chunk cannot be shown yet. */
function LoadedDiffBody(props: DiffBodyProps) {
  const { Component: Body, error } = diffBody.use();
  useLayoutEffect(() => {
    markDiffOpened();
  }, []);
  if (Body) return <Body {...props} />;
  if (error)
    return (
      <div className="viewer-notice error" role="alert">
        <div className="viewer-notice-title">Could not load the editor</div>
        <div className="viewer-notice-detail">{error}</div>
      </div>
    );
  return <div className="viewer-notice muted">Loading editor…</div>;
}

/** Accept or Reject an edit that waits for approval: the same answers as its card in the chat. */
function PendingEditActions({ id }: { id: string }) {
  const answer = useApp((s) => s.answerApproval);
  const busy = useApp((s) => Boolean(s.approvalBusy[id]));
  return (
    <>
      <span className="diff-sep" />
      <button className="btn btn-sm btn-danger" data-testid="pending-edit-reject" disabled={busy} title="Reject: nothing is written, and the agent is told" onClick={() => void answer(id, { answer: 'deny' })}>
        <CloseIcon size={13} />
        Reject
      </button>
      <button className="btn btn-sm btn-primary" data-testid="pending-edit-accept" disabled={busy} title="Accept: the edit is written (once)" onClick={() => void answer(id, { answer: 'once' })}>
        <CheckIcon size={14} />
        Accept
      </button>
    </>
  );
}
