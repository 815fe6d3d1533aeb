import type { ChatItem } from '../store';

/** "Compacted 41 messages into a summary": the summary opens in place. */
export function CompactionNote({ item }: { item: Extract<ChatItem, { kind: 'compaction' }> }) {
  const what = item.mode === 'summary' ? `Compacted ${item.removed} message${item.removed === 1 ? '' : 's'} into a summary` : `Dropped ${item.removed} older message${item.removed === 1 ? '' : 's'} to fit the context window`;
  return (
    <details className="chat-compaction" data-testid="chat-compaction" data-mode={item.mode} data-removed={item.removed}>
      <summary>
        {what} <span className="muted">({item.tokensBefore.toLocaleString('en-US')} → {item.tokensAfter.toLocaleString('en-US')} tokens; your request is kept word for word)</span>
      </summary>
      <div className="chat-compaction-text" data-testid="chat-compaction-summary">
        {item.summary || 'No summary was kept.'}
      </div>
    </details>
  );
}
