import { useState, type KeyboardEvent } from 'react';
import type { QueuedMessageView } from '../../shared/contract';
import { useApp } from '../store';

/** One message waiting while the agent works: edit it, remove it, or "send now" (given to the model at the next tool boundary). */
function Queued({ m }: { m: QueuedMessageView }) {
  const edit = useApp((s) => s.editQueued);
  const remove = useApp((s) => s.removeQueued);
  const sendNow = useApp((s) => s.sendNow);
  const [draft, setDraft] = useState<string | null>(null);
  const save = () => {
    if (draft !== null && draft.trim()) void edit(m.id, draft);
    setDraft(null);
  };
  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      save();
    } else if (e.key === 'Escape') setDraft(null);
  };
  return (
    <li className={m.steer ? 'chat-queued steer' : 'chat-queued'} data-testid="queued-message" data-steer={m.steer ? 'true' : 'false'}>
      {draft === null ? (
        <button type="button" className="chat-queued-text" title="Edit this message before it is sent" onClick={() => setDraft(m.text)}>
          {m.mode === 'plan' && <span className="chat-mode-tag">plan</span>}
          {m.text}
        </button>
      ) : (
        <textarea className="chat-queued-edit" data-testid="queued-edit" aria-label="Edit the queued message" autoFocus rows={2} value={draft} onChange={(e) => setDraft(e.target.value)} onKeyDown={onKey} onBlur={save} />
      )}
      <span className="chat-queued-state">{m.steer ? 'at the next tool call' : 'queued'}</span>
      {!m.steer && (
        <button type="button" className="chat-user-action" data-testid="send-now" title="Give it to the agent at its next tool call, without waiting for the request to end" onClick={() => void sendNow(m.id)}>
          Send now
        </button>
      )}
      <button type="button" className="icon-btn" data-testid="queued-remove" aria-label="Remove the queued message" title="Remove" onClick={() => void remove(m.id)}>
        ✕
      </button>
    </li>
  );
}

/** Messages sent while the agent works, pending above the composer. */
export function QueuedMessages() {
  const queued = useApp((s) => s.chatQueued);
  if (!queued.length) return null;
  return (
    <ul className="chat-queue" aria-label="Queued messages">
      {queued.map((m) => (
        <Queued key={m.id} m={m} />
      ))}
    </ul>
  );
}
