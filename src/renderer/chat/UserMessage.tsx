import { useApp, type ChatItem } from '../store';

/**
 * The person's message, with "Undo changes from here" (this request's changes and every later
 * one's, after a preview) or, once undone, Redo.
 */
export function UserMessage({ item }: { item: Extract<ChatItem, { kind: 'user' }> }) {
  const corr = item.correlationId;
  const running = useApp((s) => s.chatRunning !== null);
  const undoneBy = useApp((s) => (corr ? s.undone[corr] : undefined));
  const redoBusy = useApp((s) => s.redoBusy === corr);
  const preview = useApp((s) => s.previewUndo);
  const redo = useApp((s) => s.redo);
  return (
    <div className="chat-user" data-correlation-id={corr}>
      <div className="chat-msg user" data-testid="chat-message" data-role="user">
        {item.text}
      </div>
      {corr && !running && (
        <div className="chat-user-actions">
          {undoneBy ? (
            <button type="button" className="chat-user-action" data-testid="message-redo" disabled={redoBusy} title={`Apply the undone changes again (rolls back ${undoneBy})`} onClick={() => void redo(corr)}>
              ↷ Redo
            </button>
          ) : (
            <button type="button" className="chat-user-action" data-testid="message-undo" title="Undo the changes of this request and of every later one (shows what would change first)" onClick={() => void preview(corr)}>
              ↶ Undo changes from here
            </button>
          )}
        </div>
      )}
    </div>
  );
}
