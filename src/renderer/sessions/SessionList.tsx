import { useState } from 'react';
import { PlusIcon } from '../app/icons';
import { useApp } from '../store';
import { loadable } from '../app/loadable';
import { SessionRow } from './SessionRow';
import './sessions.css';

// The review, apply and discard of a selected session: loaded on the first selection, not by the
// first screen (test/rendererBundle.e2e.test.ts keeps that under its size).
const review = loadable(() => import('./WorktreeReview'));

function LazyReview() {
  const { Component, error } = review.use();
  if (Component) return <Component />;
  return <div className="worktree-msg muted">{error ?? 'Reading its changes…'}</div>;
}

/**
 * The sessions working in worktrees of the open folder, side by side: each row its worktree,
 * branch, status and changed lines; the selected one's review, apply and discard below it.
 */
export function SessionList() {
  // One string, not a new array per render: rows re-render on their own values.
  const names = useApp((s) => s.worktreeSessions.map((x) => x.worktree).join('\n'));
  const repo = useApp((s) => s.workspace?.isGitRepo === true);
  const selected = useApp((s) => s.selectedWorktree);
  const [asking, setAsking] = useState(false);
  if (!repo) return null;
  const list = names ? names.split('\n') : [];
  return (
    <section className="sessions-pane" aria-label="Sessions in worktrees">
      <div className="panel-header">
        <span className="panel-title">Sessions</span>
        <button
          type="button"
          className="icon-btn"
          title="New session in a worktree: its own checkout of HEAD on branch loupe/NAME"
          aria-label="New session in a worktree"
          aria-expanded={asking}
          data-testid="new-worktree-session"
          onClick={() => setAsking(true)}
        >
          <PlusIcon size={14} />
        </button>
      </div>
      {asking && <NewWorktreeForm taken={list} onDone={() => setAsking(false)} />}
      <div className="session-list" role="listbox" aria-label="Sessions" data-testid="session-list">
        {list.length === 0 && !asking && <div className="session-empty">No session in a worktree yet. + starts one beside the main folder.</div>}
        {list.map((name) => (
          <div key={name}>
            <SessionRow worktree={name} />
            {selected === name && <LazyReview />}
          </div>
        ))}
      </div>
    </section>
  );
}

/** The name of the new worktree (and of its branch loupe/NAME); the host checks it. */
function NewWorktreeForm({ taken, onDone }: { taken: string[]; onDone(): void }) {
  const create = useApp((s) => s.newWorktreeSession);
  const busy = useApp((s) => s.worktreeBusy === 'creating');
  const error = useApp((s) => s.worktreeError);
  const [name, setName] = useState(() => {
    let n = taken.length + 1;
    while (taken.includes(`session-${n}`)) n++;
    return `session-${n}`;
  });
  const submit = async () => {
    if (await create(name)) onDone();
  };
  return (
    <form
      className="new-worktree"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <input
        className="text-input"
        autoFocus
        value={name}
        aria-label="Worktree name"
        data-testid="new-worktree-name"
        onChange={(e) => setName(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') onDone();
        }}
      />
      <button type="submit" className="btn btn-sm btn-primary" disabled={busy || !name.trim()} data-testid="new-worktree-create">
        {busy ? 'Making…' : 'Start'}
      </button>
      <div className="new-worktree-note muted">
        Branch <code>loupe/{name.trim() || 'NAME'}</code>, a checkout of HEAD beside the main folder.
      </div>
      {error && (
        <div className="new-worktree-error" role="alert">
          {error}
        </div>
      )}
    </form>
  );
}
