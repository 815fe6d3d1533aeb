import { useEffect, useMemo, useRef, type KeyboardEvent } from 'react';
import { CloseIcon } from '../app/icons';
import { useApp } from '../store';
import { awaitsCommit } from './format';
import { CheckIcon, CommitIcon, WarningIcon } from './icons';

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The timeline toolbar's "commit approved": toggles the message form below the filters. */
export function CommitApprovedButton() {
  const modifications = useApp((s) => s.modifications);
  const isGitRepo = useApp((s) => s.workspace?.isGitRepo ?? false);
  const open = useApp((s) => s.commitDraft !== null);
  const openForm = useApp((s) => s.openCommitForm);
  const cancel = useApp((s) => s.cancelCommit);
  const { count, files, committed } = useMemo(() => {
    const approved = modifications.filter(awaitsCommit);
    return { count: approved.length, files: new Set(approved.map((m) => m.file)).size, committed: modifications.some((m) => m.committed) };
  }, [modifications]);

  const why = !isGitRepo
    ? 'This folder is not a git repository, so there is nothing to commit to'
    : count === 0
      ? committed
        ? 'Every approved modification is committed: approve more in the diff view, then commit them'
        : 'Nothing is approved yet: approve modifications in the diff view, then commit them'
      : `Commit the approved changes to git: ${plural(count, 'modification')} in ${plural(files, 'file')}`;
  return (
    <button
      className={open ? 'btn btn-sm tl-commit-btn active' : 'btn btn-sm tl-commit-btn'}
      data-testid="review-commit-approved"
      title={why}
      aria-label={isGitRepo && count > 0 ? 'Commit approved changes' : `Commit approved changes (unavailable: ${why})`}
      aria-expanded={open}
      disabled={!isGitRepo || count === 0}
      onClick={() => (open ? cancel() : openForm())}
    >
      <CommitIcon size={14} />
      Commit
      {count > 0 && isGitRepo && <span className="tl-commit-count">{count}</span>}
    </button>
  );
}

/** The message form (Enter commits, Shift+Enter breaks the line, Escape cancels) and its outcome. */
export function CommitApprovedPanel() {
  const draft = useApp((s) => s.commitDraft);
  const busy = useApp((s) => s.commitBusy);
  const error = useApp((s) => s.commitError);
  const result = useApp((s) => s.commitResult);
  const setDraft = useApp((s) => s.setCommitDraft);
  const commit = useApp((s) => s.commitApproved);
  const cancel = useApp((s) => s.cancelCommit);
  const dismiss = useApp((s) => s.dismissCommitResult);
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const open = draft !== null;

  useEffect(() => {
    const el = inputRef.current;
    if (!open || !el) return;
    // The subject is selected: type to replace it, or an arrow key to keep and edit it.
    el.focus();
    const subjectEnd = el.value.indexOf('\n');
    el.setSelectionRange(0, subjectEnd === -1 ? el.value.length : subjectEnd);
  }, [open]);

  if (draft === null) {
    if (!result) return null;
    return (
      <div className="tl-commit-result" role="status" data-testid="review-commit-result" data-commit={result.commit}>
        <CheckIcon size={14} />
        <div className="tl-commit-result-text">
          Committed{' '}
          <code className="tl-commit-hash" title={result.commit}>
            {result.commit.slice(0, 7)}
          </code>{' '}
          with {plural(result.files.length, 'file')}:
          <ul className="tl-commit-files">
            {result.files.map((f) => (
              <li key={f} title={f}>
                {f}
              </li>
            ))}
          </ul>
        </div>
        <button className="icon-btn" aria-label="Dismiss" onClick={dismiss}>
          <CloseIcon size={13} />
        </button>
      </div>
    );
  }

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void commit();
    } else if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      cancel();
    }
  };

  return (
    <form
      className="tl-commit"
      data-testid="review-commit-form"
      aria-label="Commit approved changes"
      onSubmit={(e) => {
        e.preventDefault();
        void commit();
      }}
    >
      <textarea
        ref={inputRef}
        className="tl-commit-message"
        aria-label="Commit message"
        title="Enter commits · Shift+Enter starts a new line · Esc cancels"
        data-testid="review-commit-message"
        rows={Math.min(6, Math.max(2, draft.split('\n').length))}
        value={draft}
        disabled={busy}
        spellCheck={false}
        onChange={(e) => setDraft(e.target.value)}
        onKeyDown={onKeyDown}
      />
      {error && (
        <div className="tl-commit-error" role="alert" data-testid="review-commit-error">
          <WarningIcon size={14} />
          <span>{error}</span>
        </div>
      )}
      <div className="tl-commit-actions">
        <span className="tl-commit-hint" title="Enter commits · Shift+Enter starts a new line · Esc cancels">
          Enter commits · Esc cancels
        </span>
        <button type="button" className="btn btn-sm" onClick={cancel} disabled={busy}>
          Cancel
        </button>
        <button type="submit" className="btn btn-sm btn-primary" data-testid="review-commit-submit" disabled={busy || !draft.trim()}>
          {busy ? 'Committing…' : 'Commit'}
        </button>
      </div>
    </form>
  );
}
