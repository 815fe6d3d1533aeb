import { useEffect, useState } from 'react';
import { useApp } from '../store';

/** How long what an undo or redo did stays before it fades; pointing at it holds it. */
export const UNDO_NOTICE_MS = 6000;

/**
 * What the last undo or redo did, in the flow above the input (it covers nothing), fading after a
 * few seconds: the message's Redo or Undo button and the timeline keep the lasting record. What
 * failed is said in the preview itself, beside the files it concerns.
 */
export function UndoNotice() {
  const notice = useApp((s) => s.undoNotice);
  const dismiss = useApp((s) => s.dismissUndoNotice);
  const [held, setHeld] = useState(false);
  useEffect(() => {
    if (!notice || held) return;
    const t = setTimeout(dismiss, UNDO_NOTICE_MS);
    return () => clearTimeout(t);
  }, [notice, held, dismiss]);
  if (!notice) return null;
  return (
    <div className={held ? 'chat-undo-notice' : 'chat-undo-notice fading'} role="status" data-testid="undo-notice" onMouseEnter={() => setHeld(true)} onMouseLeave={() => setHeld(false)}>
      <span>{notice}</span>
      <button type="button" className="icon-btn" aria-label="Dismiss" onClick={dismiss}>
        ✕
      </button>
    </div>
  );
}
