import type { TreeEntry } from '../../shared/contract';

export interface TreeRow {
  path: string;
  name: string;
  kind: 'file' | 'dir';
  depth: number;
  /** Only meaningful for dirs. */
  expanded: boolean;
  /** Workspace-relative parent dir ('' for top-level rows). */
  parent: string;
}

/**
 * The rows a user can currently see, top to bottom: the tree walked through expanded dirs
 * only. The virtual list renders a window of this array, so it must stay a flat array.
 * Iterative so a deep tree cannot blow the stack.
 */
export function flattenTree(
  listings: Readonly<Record<string, readonly TreeEntry[]>>,
  expanded: Readonly<Record<string, boolean>>,
): TreeRow[] {
  const rows: TreeRow[] = [];
  const root = listings[''];
  if (!root) return rows;
  const stack: { entries: readonly TreeEntry[]; index: number; depth: number; parent: string }[] = [
    { entries: root, index: 0, depth: 0, parent: '' },
  ];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1];
    if (frame.index >= frame.entries.length) {
      stack.pop();
      continue;
    }
    const entry = frame.entries[frame.index++];
    const isOpen = entry.kind === 'dir' && expanded[entry.path] === true;
    rows.push({ path: entry.path, name: entry.name, kind: entry.kind, depth: frame.depth, expanded: isOpen, parent: frame.parent });
    const children = isOpen ? listings[entry.path] : undefined;
    if (children && children.length > 0) {
      stack.push({ entries: children, index: 0, depth: frame.depth + 1, parent: entry.path });
    }
  }
  return rows;
}

/** The parent directory of a workspace-relative path ('' for top level). */
export function parentOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}
