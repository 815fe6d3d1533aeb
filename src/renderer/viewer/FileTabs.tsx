import { CloseIcon, FileIcon } from '../app/icons';
import { useApp } from '../store';
import { fileColor } from '../tree/fileKind';

/** The files open in the viewer, one tab each; a middle click or × closes one. */
export function FileTabs() {
  const tabs = useApp((s) => s.fileTabs);
  const shown = useApp((s) => s.openFile?.path ?? null);
  const open = useApp((s) => s.openFilePath);
  const close = useApp((s) => s.closeFileTab);
  const dirty = useApp((s) => s.dirtyFiles);
  return (
    <div className="file-tabs" role="tablist" aria-label="Open files" data-testid="file-tabs">
      {tabs.map((path) => {
        const name = path.slice(path.lastIndexOf('/') + 1);
        const active = path === shown;
        const unsaved = dirty.includes(path);
        return (
          <div
            key={path}
            role="tab"
            aria-selected={active}
            className={active ? 'viewer-tab file-tab active' : 'viewer-tab file-tab'}
            title={path}
            data-testid="file-tab"
            data-path={path}
            data-dirty={unsaved ? 'true' : undefined}
            onClick={() => !active && void open(path)}
            onAuxClick={(e) => e.button === 1 && close(path)}
          >
            <FileIcon size={14} style={{ color: fileColor(name) }} />
            <span className="viewer-tab-name" data-testid={active ? 'file-viewer-title' : undefined}>
              {name}
            </span>
            {unsaved && <span className="file-tab-dirty" title="Unsaved edits" aria-label="unsaved" />}
            <button
              type="button"
              className="icon-btn file-tab-close"
              aria-label={`Close ${path}`}
              title="Close"
              onClick={(e) => {
                e.stopPropagation();
                close(path);
              }}
            >
              <CloseIcon size={12} />
            </button>
          </div>
        );
      })}
    </div>
  );
}
