import { useEffect, useState } from 'react';
import { PlusIcon } from '../app/icons';
import { useApp } from '../store';
import { AgentPicker } from './AgentPicker';

/** The session picker and its actions: new, rename, delete (asked first: a deleted conversation is gone). */
export function SessionBar() {
  const sessions = useApp((s) => s.chatSessions);
  const current = useApp((s) => s.chatSessionId);
  const open = useApp((s) => s.openChatSession);
  const create = useApp((s) => s.newChatSession);
  const rename = useApp((s) => s.renameChatSession);
  const openSettings = useApp((s) => s.openSettings);
  // A session in a worktree is opened from the sidebar; the picker names it while it is open.
  const inWorktree = useApp((s) => s.worktreeSessions.find((x) => x.session_id === s.chatSessionId && !s.chatSessions.some((c) => c.id === x.session_id)));
  const [renaming, setRenaming] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const title = sessions.find((s) => s.id === current)?.title ?? '';
  return (
    <>
      <div className="chat-sessions">
        {renaming !== null && current ? (
          <input
            className="text-input chat-rename"
            autoFocus
            value={renaming}
            aria-label="Session title"
            onChange={(e) => setRenaming(e.target.value)}
            onBlur={() => setRenaming(null)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') {
                void rename(current, renaming);
                setRenaming(null);
              } else if (e.key === 'Escape') setRenaming(null);
            }}
          />
        ) : (
          <select className="chat-session-select" aria-label="Session" data-testid="chat-session" value={current ?? ''} onChange={(e) => e.target.value && void open(e.target.value)}>
            {!current && <option value="">New session</option>}
            {inWorktree && (
              <option value={inWorktree.session_id}>
                worktree {inWorktree.worktree} · {inWorktree.title}
              </option>
            )}
            {sessions.map((s) => (
              <option key={s.id} value={s.id}>
                {s.title}
                {s.running ? ' (running)' : ''}
              </option>
            ))}
          </select>
        )}
        <AgentPicker />
        <button type="button" className="icon-btn" title="New session" aria-label="New session" data-testid="chat-new-session" onClick={() => void create(sessions.find((s) => s.id === current)?.agent)}>
          <PlusIcon size={14} />
        </button>
        {current && (
          <>
            <button type="button" className="icon-btn chat-text-btn" title="Rename session" aria-label="Rename session" onClick={() => setRenaming(title)}>
              ✎
            </button>
            <ExportMenu />
            <button
              type="button"
              className="icon-btn chat-text-btn"
              title="Delete session…"
              aria-label="Delete session"
              aria-expanded={confirming === current}
              data-testid="session-delete"
              onClick={() => setConfirming(confirming === current ? null : current)}
            >
              ✕
            </button>
          </>
        )}
        <button type="button" className="icon-btn chat-text-btn" title="Model settings" aria-label="Model settings" data-testid="settings-open" onClick={openSettings}>
          ⚙
        </button>
      </div>
      {confirming !== null && confirming === current && <DeleteConfirm id={confirming} title={title} onDone={() => setConfirming(null)} />}
      <ExportResult />
    </>
  );
}

/** Export the open session: Markdown to read and share, or JSON, complete (for `loupe import`). */
function ExportMenu() {
  const exportSession = useApp((s) => s.exportChatSession);
  const [open, setOpen] = useState(false);
  const pick = (format: 'md' | 'json') => {
    setOpen(false);
    void exportSession(format);
  };
  return (
    <span className="chat-export">
      <button type="button" className="icon-btn chat-text-btn" title="Export session…" aria-label="Export session" aria-haspopup="menu" aria-expanded={open} data-testid="session-export" onClick={() => setOpen(!open)}>
        ⤓
      </button>
      {open && (
        <div className="chat-export-menu" role="menu" onKeyDown={(e) => e.key === 'Escape' && setOpen(false)}>
          <button type="button" role="menuitem" className="chat-export-item" data-testid="session-export-md" autoFocus onClick={() => pick('md')}>
            Markdown <span className="muted">— to read and share</span>
          </button>
          <button type="button" role="menuitem" className="chat-export-item" data-testid="session-export-json" onClick={() => pick('json')}>
            JSON <span className="muted">— complete, for loupe import</span>
          </button>
          <div className="chat-export-note muted">Diffs, tool calls and usage included; secrets from your settings left out.</div>
        </div>
      )}
    </span>
  );
}

/** What the last export did: where the file went, or why it failed. */
function ExportResult() {
  const result = useApp((s) => s.chatExport);
  const dismiss = useApp((s) => s.dismissChatExport);
  useEffect(() => {
    if (!result?.ok) return;
    const t = setTimeout(dismiss, 6000);
    return () => clearTimeout(t);
  }, [result, dismiss]);
  if (!result) return null;
  return (
    <div className={`chat-export-result${result.ok ? '' : ' failed'}`} role="status" data-testid="session-export-result">
      <span>{result.message}</span>
      <button type="button" className="icon-btn" aria-label="Dismiss" onClick={dismiss}>
        ✕
      </button>
    </div>
  );
}

function DeleteConfirm({ id, title, onDone }: { id: string; title: string; onDone(): void }) {
  const remove = useApp((s) => s.deleteChatSession);
  const running = useApp((s) => Boolean(s.chatSessions.find((x) => x.id === id)?.running));
  return (
    <div
      className="chat-delete-confirm"
      role="alertdialog"
      aria-label="Delete this conversation?"
      data-testid="session-delete-prompt"
      onKeyDown={(e) => {
        if (e.key === 'Escape') onDone();
      }}
    >
      <span className="chat-delete-text">
        Delete &ldquo;{title}&rdquo;? {running ? 'Its request is stopped, and the' : 'The'} conversation cannot be recovered; its changes stay in the timeline.
      </span>
      <button
        type="button"
        className="btn btn-sm btn-danger"
        data-testid="session-delete-confirm"
        autoFocus
        onClick={() => {
          onDone();
          void remove(id);
        }}
      >
        Delete
      </button>
      <button type="button" className="btn btn-sm" onClick={onDone}>
        Cancel
      </button>
    </div>
  );
}
