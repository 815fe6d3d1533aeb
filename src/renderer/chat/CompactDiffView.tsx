import { memo } from 'react';
import type { CompactDiff } from './compactDiff';

/** Lines shown in the card; the rest is one click away in the full diff. */
const SHOWN = 12;

/**
 * A few changed lines, removed and added, as an edit card shows them; a click opens the whole
 * change in the centre pane's Monaco diff while the chat stays where it is.
 */
export const CompactDiffView = memo(function CompactDiffView({ diff, onOpen, testId = 'tool-call-diff' }: { diff: CompactDiff; onOpen: (() => void) | null; testId?: string }) {
  const more = diff.lines.length - SHOWN;
  return (
    <button type="button" className="tool-diff" data-testid={testId} disabled={!onOpen} title={onOpen ? 'Open the full diff in the editor pane' : undefined} onClick={() => onOpen?.()}>
      <span className="tool-diff-counts">
        <span className="tool-diff-add">+{diff.added}</span> <span className="tool-diff-del">−{diff.removed}</span>
      </span>
      {diff.lines.slice(0, SHOWN).map((l, i) => (
        <span key={i} className={`tool-diff-line ${l.sign === '+' ? 'add' : l.sign === '-' ? 'del' : 'ctx'}`} data-sign={l.sign}>
          {l.sign === ' ' ? ' ' : l.sign === '+' ? '+' : '−'} {l.text}
        </span>
      ))}
      {more > 0 && <span className="tool-diff-more">{more} more {more === 1 ? 'line' : 'lines'} · open the full diff</span>}
    </button>
  );
});
