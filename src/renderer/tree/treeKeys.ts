import type { TreeRow } from './flatten';

export type TreeKeyAction =
  | { type: 'move'; path: string }
  | { type: 'expand'; path: string }
  | { type: 'collapse'; path: string }
  | { type: 'activate'; path: string; kind: 'file' | 'dir' }
  | { type: 'none' };

/**
 * What a key does in the tree, following the WAI-ARIA tree pattern that VS Code also uses:
 * Right opens a folder or steps into it, Left closes it or steps out to the parent.
 */
export function treeKeyAction(rows: readonly TreeRow[], cursor: string | null, key: string, pageSize: number): TreeKeyAction {
  if (rows.length === 0) return { type: 'none' };
  const index = cursor === null ? -1 : rows.findIndex((r) => r.path === cursor);
  const at = (i: number): TreeKeyAction => ({ type: 'move', path: rows[Math.max(0, Math.min(rows.length - 1, i))].path });
  if (index < 0) {
    return key === 'ArrowDown' || key === 'ArrowUp' || key === 'Home' || key === 'End' ? at(key === 'End' ? rows.length - 1 : 0) : { type: 'none' };
  }
  const row = rows[index];
  switch (key) {
    case 'ArrowDown':
      return at(index + 1);
    case 'ArrowUp':
      return at(index - 1);
    case 'PageDown':
      return at(index + pageSize);
    case 'PageUp':
      return at(index - pageSize);
    case 'Home':
      return at(0);
    case 'End':
      return at(rows.length - 1);
    case 'ArrowRight':
      if (row.kind !== 'dir') return { type: 'none' };
      if (!row.expanded) return { type: 'expand', path: row.path };
      return rows[index + 1]?.parent === row.path ? at(index + 1) : { type: 'none' };
    case 'ArrowLeft':
      if (row.kind === 'dir' && row.expanded) return { type: 'collapse', path: row.path };
      return row.parent === '' ? { type: 'none' } : { type: 'move', path: row.parent };
    case 'Enter':
    case ' ':
      return { type: 'activate', path: row.path, kind: row.kind };
    default:
      return { type: 'none' };
  }
}
