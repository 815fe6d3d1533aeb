import { useCallback, useMemo, useRef, type KeyboardEvent } from 'react';
import { useApp } from '../store';
import { flattenTree } from './flatten';
import { FileTreeRow, ROW_HEIGHT, rowId } from './FileTreeRow';
import { treeKeyAction } from './treeKeys';
import { useVirtualRows } from './useVirtualRows';
import './tree.css';

/**
 * The explorer: a virtualised list of the visible rows, so a folder of 10,000 files costs
 * as much DOM as a screenful. Folders are listed lazily as they are expanded.
 */
export function FileTree() {
  const listings = useApp((s) => s.listings);
  const expanded = useApp((s) => s.expanded);
  const loadingDirs = useApp((s) => s.loadingDirs);
  const gitStatus = useApp((s) => s.gitStatus);
  const gitDirs = useApp((s) => s.gitDirs);
  const selectedPath = useApp((s) => s.selectedPath);
  const viewingPath = useApp((s) => s.openFile?.path);
  const treeError = useApp((s) => s.treeError);
  const activatePath = useApp((s) => s.activatePath);
  const selectPath = useApp((s) => s.selectPath);
  const expandDir = useApp((s) => s.expandDir);
  const collapseDir = useApp((s) => s.collapseDir);

  const containerRef = useRef<HTMLDivElement>(null);
  const rows = useMemo(() => flattenTree(listings, expanded), [listings, expanded]);
  const { start, end, viewportHeight } = useVirtualRows(containerRef, ROW_HEIGHT, rows.length);
  const selectedIndex = selectedPath === null ? -1 : rows.findIndex((r) => r.path === selectedPath);

  const onActivate = useCallback(
    (path: string, kind: 'file' | 'dir') => {
      containerRef.current?.focus({ preventScroll: true });
      activatePath(path, kind);
    },
    [activatePath],
  );

  const reveal = (path: string) => {
    const el = containerRef.current;
    const index = rows.findIndex((r) => r.path === path);
    if (!el || index < 0) return;
    const top = index * ROW_HEIGHT;
    if (top < el.scrollTop) el.scrollTop = top;
    else if (top + ROW_HEIGHT > el.scrollTop + el.clientHeight) el.scrollTop = top + ROW_HEIGHT - el.clientHeight;
  };

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const pageSize = Math.max(1, Math.floor(viewportHeight / ROW_HEIGHT) - 1);
    const action = treeKeyAction(rows, selectedPath, e.key, pageSize);
    if (action.type === 'none') return;
    e.preventDefault();
    if (action.type === 'move') {
      selectPath(action.path);
      reveal(action.path);
    } else if (action.type === 'expand') expandDir(action.path);
    else if (action.type === 'collapse') collapseDir(action.path);
    else activatePath(action.path, action.kind);
  };

  const root = listings[''];
  return (
    <div
      ref={containerRef}
      className="tree"
      role="tree"
      aria-label="Files"
      tabIndex={0}
      data-testid="file-tree"
      aria-activedescendant={selectedIndex >= start && selectedIndex < end ? rowId(selectedIndex) : undefined}
      onKeyDown={onKeyDown}
    >
      {treeError && <div className="tree-message error">{treeError}</div>}
      {!treeError && !root && <div className="tree-message">Loading…</div>}
      {root && rows.length === 0 && <div className="tree-message">This folder is empty.</div>}
      <div className="tree-canvas" style={{ height: rows.length * ROW_HEIGHT }}>
        {rows.slice(start, end).map((row, i) => (
          <FileTreeRow
            key={row.path}
            row={row}
            index={start + i}
            selected={row.path === selectedPath}
            viewing={row.path === viewingPath}
            loading={loadingDirs[row.path] === true && !listings[row.path]}
            badge={gitStatus[row.path]}
            nested={row.kind === 'dir' ? gitDirs[row.path] : undefined}
            onActivate={onActivate}
          />
        ))}
      </div>
    </div>
  );
}
