import { CollapseIcon, RefreshIcon } from '../app/icons';
import { SessionList } from '../sessions/SessionList';
import { useApp } from '../store';
import { FileTree } from './FileTree';

export function Sidebar() {
  const name = useApp((s) => s.workspace?.name ?? '');
  const refreshTree = useApp((s) => s.refreshTree);
  const collapseAll = useApp((s) => s.collapseAll);

  return (
    <>
      <SessionList />
      <div className="panel-header">
        <span className="panel-title" title={name}>
          Explorer · {name}
        </span>
        <button type="button" className="icon-btn" title="Refresh" aria-label="Refresh explorer" onClick={() => void refreshTree()}>
          <RefreshIcon size={14} />
        </button>
        <button type="button" className="icon-btn" title="Collapse folders" aria-label="Collapse folders" onClick={collapseAll}>
          <CollapseIcon size={14} />
        </button>
      </div>
      <FileTree />
    </>
  );
}
