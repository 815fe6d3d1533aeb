import { useApp } from '../store';

/** The host's notices about the open folder (e.g. live updates are off), each dismissible. */
export function WorkspaceNotices() {
  const notices = useApp((s) => s.notices);
  const dismiss = useApp((s) => s.dismissNotice);
  if (!notices.length) return null;
  return (
    <>
      {notices.map((message) => (
        <div key={message} className="connection-banner workspace-notice" role="status" data-testid="workspace-notice">
          <span className="workspace-notice-text">{message}</span>
          <button type="button" className="workspace-notice-dismiss" aria-label="Dismiss" onClick={() => dismiss(message)}>
            ×
          </button>
        </div>
      ))}
    </>
  );
}
