import { useApp } from '../store';
import { OpenFolderForm } from './OpenFolderForm';
import { RecentList } from './RecentList';
import './workspace.css';

/** The browser's "Open Folder…" popover, shown over an open workspace (quick-open style). */
export function OpenFolderDialog() {
  const open = useApp((s) => s.folderDialogOpen);
  const close = useApp((s) => s.closeFolderDialog);
  if (!open) return null;

  return (
    <div className="dialog-backdrop" onMouseDown={(e) => e.target === e.currentTarget && close()}>
      <div className="folder-dialog" role="dialog" aria-modal="true" aria-label="Open folder" data-testid="open-folder-dialog">
        <div className="folder-dialog-title">Open Folder</div>
        <OpenFolderForm autoFocus onCancel={close} />
        <RecentList />
      </div>
    </div>
  );
}
