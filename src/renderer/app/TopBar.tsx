import { useApp } from '../store';
import { FolderOpenIcon, LogoIcon } from './icons';
import { modKey } from './platform';

export function TopBar() {
  const name = useApp((s) => s.workspace?.name);
  const root = useApp((s) => s.workspace?.root);
  const opening = useApp((s) => s.opening);
  const requestOpenFolder = useApp((s) => s.requestOpenFolder);

  return (
    <header className="topbar">
      <div className="topbar-brand">
        <LogoIcon size={16} />
        <span>Loupe</span>
      </div>
      {name !== undefined && (
        <>
          <span className="topbar-sep" aria-hidden="true">
            /
          </span>
          <span className="topbar-workspace" data-testid="workspace-root" data-root={root} title={root}>
            {name}
          </span>
        </>
      )}
      <button
        type="button"
        className="topbar-open"
        data-testid="open-folder"
        onClick={() => void requestOpenFolder()}
        disabled={opening}
        title={`Open Folder… (${modKey}+O)`}
      >
        <FolderOpenIcon size={14} />
        <span>Open Folder…</span>
      </button>
      <div className="topbar-spacer" />
    </header>
  );
}
