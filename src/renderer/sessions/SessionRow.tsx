import type { SessionStatus } from '../../shared/contract';
import { BranchIcon } from '../app/icons';
import { useApp } from '../store';

const STATUS_LABEL: Record<SessionStatus, string> = { new: 'not started', working: 'working', waiting: 'waiting for you', done: 'done' };

/** One worktree session: status, title, branch, and what it changed against its base. */
export function SessionRow({ worktree }: { worktree: string }) {
  const row = useApp((s) => s.worktreeSessions.find((x) => x.worktree === worktree));
  const selected = useApp((s) => s.selectedWorktree === worktree);
  const select = useApp((s) => s.selectWorktreeSession);
  if (!row) return null;
  const status = row.missing ? 'missing' : row.status;
  // Everything it changed is in the main folder now.
  const allApplied = row.files > 0 && row.applied_files === row.files;
  return (
    <div
      className={selected ? 'session-row selected' : 'session-row'}
      role="option"
      aria-selected={selected}
      tabIndex={0}
      data-testid="session-row"
      data-session-id={row.session_id}
      data-worktree={row.worktree}
      data-status={row.status}
      title={row.path}
      onClick={() => void select(worktree)}
      onKeyDown={(e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          void select(worktree);
        }
      }}
    >
      <span className={`session-dot session-${status}`} aria-hidden="true" />
      <div className="session-main">
        <div className="session-title">{row.title}</div>
        <div className="session-sub">
          <span className="session-branch">
            <BranchIcon size={11} /> {row.branch}
          </span>
          <span className={`session-status session-status-${status}`} data-testid="session-status">
            {row.missing ? 'folder deleted' : STATUS_LABEL[row.status]}
          </span>
        </div>
      </div>
      <div
        className="session-stats"
        data-testid="session-stats"
        data-files={row.files}
        data-added={row.added}
        data-removed={row.removed}
        data-applied={row.applied_files}
        title={`${row.files} file${row.files === 1 ? '' : 's'} changed against the base: ${row.added} line${row.added === 1 ? '' : 's'} added, ${row.removed} removed${row.applied_files ? `; ${allApplied ? 'all' : row.applied_files} in the main folder already` : ''}`}
      >
        {allApplied && (
          <span className="session-applied" data-testid="session-applied">
            applied
          </span>
        )}
        <span className="session-files">{row.files}</span>
        <span className="add">+{row.added}</span>
        <span className="del">−{row.removed}</span>
      </div>
    </div>
  );
}
