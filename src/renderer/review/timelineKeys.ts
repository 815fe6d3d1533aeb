export type TimelineKeyAction = { type: 'none' } | { type: 'move'; index: number } | { type: 'open'; index: number };

/**
 * j/k or the arrows move the cursor, PageUp/PageDown a screenful, Home/End to the ends,
 * Enter (or Space) opens. With no cursor yet, the first move lands on the newest entry.
 */
export function timelineKeyAction(count: number, cursor: number, key: string, pageSize: number): TimelineKeyAction {
  if (count === 0) return { type: 'none' };
  const clamp = (i: number) => Math.max(0, Math.min(count - 1, i));
  const from = cursor < 0 ? -1 : cursor;
  switch (key) {
    case 'j':
    case 'ArrowDown':
      return { type: 'move', index: clamp(from + 1) };
    case 'k':
    case 'ArrowUp':
      return { type: 'move', index: from < 0 ? 0 : clamp(from - 1) };
    case 'PageDown':
      return { type: 'move', index: clamp(from + pageSize) };
    case 'PageUp':
      return { type: 'move', index: clamp(from - pageSize) };
    case 'Home':
      return { type: 'move', index: 0 };
    case 'End':
      return { type: 'move', index: count - 1 };
    case 'Enter':
    case ' ':
      return from < 0 ? { type: 'none' } : { type: 'open', index: from };
    default:
      return { type: 'none' };
  }
}
