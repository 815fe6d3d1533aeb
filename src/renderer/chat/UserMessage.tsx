import { useState, type KeyboardEvent } from 'react';
import { useApp, type ChatItem } from '../store';
import { requestChangedFiles } from '../store/changedRequests';
import { MessageAttachments } from './AttachmentChips';
import { BranchSwitch } from './BranchSwitch';

/** Edit and resend: the words again, to fix and send; offers to undo that request's changes first. */
function MessageEditor({ text, corr, done }: { text: string; corr: string; done: () => void }) {
  const resend = useApp((s) => s.editAndResend);
  const preview = useApp((s) => s.previewUndo);
  const undone = useApp((s) => Boolean(s.undone[corr]));
  const [draft, setDraft] = useState(text);
  const send = () => {
    if (!draft.trim()) return;
    done();
    void resend(corr, draft);
  };
  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      send();
    } else if (e.key === 'Escape') done();
  };
  return (
    <div className="chat-user-editor">
      <textarea className="chat-input" data-testid="message-edit-input" aria-label="Edit the message" autoFocus rows={3} value={draft} onChange={(e) => setDraft(e.target.value)} onKeyDown={onKey} />
      <p className="muted">Resending forks the conversation here; the old version stays and can be shown again.</p>
      <div className="chat-user-actions">
        {!undone && (
          <button type="button" className="chat-user-action" data-testid="message-edit-undo" title="Undo the changes of this request and of every later one first (shows what would change)" onClick={() => void preview(corr)}>
            ↶ Undo its changes first…
          </button>
        )}
        <button type="button" className="btn" onClick={done}>
          Cancel
        </button>
        <button type="button" className="btn btn-primary" data-testid="message-resend" disabled={!draft.trim()} onClick={send}>
          Resend
        </button>
      </div>
    </div>
  );
}

/**
 * The person's message, with Edit (fork and resend), "Undo changes from here" (this request's
 * changes and every later one's, after a preview) or, once undone, Redo; and, where an edit forked
 * the conversation, its versions.
 */
export function UserMessage({ item }: { item: Extract<ChatItem, { kind: 'user' }> }) {
  const corr = item.correlationId;
  const running = useApp((s) => s.chatRunning !== null);
  const undoneBy = useApp((s) => (corr ? s.undone[corr] : undefined));
  const redoBusy = useApp((s) => s.redoBusy === corr);
  const changed = useApp((s) => Boolean(corr && requestChangedFiles(s, corr)));
  const fork = useApp((s) => (corr ? s.chatForks.find((f) => f.correlation_id === corr) : undefined));
  const preview = useApp((s) => s.previewUndo);
  const redo = useApp((s) => s.previewRedo);
  const [editing, setEditing] = useState(false);
  if (editing && corr) return <MessageEditor text={item.text} corr={corr} done={() => setEditing(false)} />;
  return (
    <div className={item.steer ? 'chat-user steer' : 'chat-user'} data-correlation-id={corr}>
      {(item.steer || item.mode === 'plan') && <span className="chat-mode-tag">{item.steer ? 'sent while working' : 'plan'}</span>}
      <div className="chat-msg user" data-testid="chat-message" data-role="user">
        {item.text}
      </div>
      {item.expansion && <CommandExpansion expansion={item.expansion} />}
      <MessageAttachments attachments={item.attachments} />
      {corr && (fork || !running) && (
        <div className="chat-user-row">
          {/* The versions stay in full view: the actions beside them fade until hovered. */}
          {fork && <BranchSwitch fork={fork} />}
          {!running && (
            <div className="chat-user-actions">
              <button type="button" className="chat-user-action" data-testid="message-edit" title="Edit and resend: the conversation forks here, the old version is kept" onClick={() => setEditing(true)}>
                ✎ Edit
              </button>
              {undoneBy && (
                <button type="button" className="chat-user-action" data-testid="message-redo" disabled={redoBusy} title={`Apply the undone changes again (rolls back ${undoneBy}; shows what would change first)`} onClick={() => void redo(corr)}>
                  ↷ Redo
                </button>
              )}
              {!undoneBy && changed && (
                <button type="button" className="chat-user-action" data-testid="message-undo" title="Undo the changes of this request and of every later one (shows what would change first)" onClick={() => void preview(corr)}>
                  ↶ Undo changes from here
                </button>
              )}
            </div>
          )}
        </div>
      )}
    </div>
  );
}

const WHOSE = { 'built-in': 'built in', personal: 'yours', repository: "the repository's" } as const;

/** What a slash command became, as the model was sent it: folded away, one click to read. */
function CommandExpansion({ expansion }: { expansion: NonNullable<Extract<ChatItem, { kind: 'user' }>['expansion']> }) {
  return (
    <details className="chat-expansion" data-testid="command-expansion" data-name={expansion.name} data-source={expansion.source}>
      <summary>
        Sent as /{expansion.name} ({WHOSE[expansion.source]}) expanded: {expansion.text.length.toLocaleString()} characters
      </summary>
      <pre className="chat-expansion-text" data-testid="command-expansion-text">
        {expansion.text}
      </pre>
    </details>
  );
}
