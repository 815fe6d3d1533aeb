import { useApp } from '../store';
import { FileTabs } from './FileTabs';

/** The viewer's title bar: a tab per open file, then the shown file's folder as a breadcrumb. */
export function ViewerHeader({ path, language, loading }: { path: string; language?: string; loading: boolean }) {
  const parts = path.split('/');
  const name = parts[parts.length - 1];
  const dirs = parts.slice(0, -1);

  return (
    <div className="viewer-header">
      <FileTabs />
      <div className="viewer-crumbs" aria-label="Path">
        {/* A top-level file's path is its name, which the tab already shows. */}
        {dirs.length > 0 && (
          <>
            {dirs.map((d, i) => (
              <span key={i} className="viewer-crumb">
                {d}
                <span className="viewer-crumb-sep">›</span>
              </span>
            ))}
            <span className="viewer-crumb current">{name}</span>
          </>
        )}
      </div>
      <OpenInEditor />
      <span className="viewer-meta">
        {language && language !== 'plaintext' && <span>{language}</span>}
        <span className="viewer-pill">Read-only</span>
      </span>
      {loading && <div className="viewer-progress" aria-hidden="true" />}
    </div>
  );
}

function OpenInEditor() {
  const open = useApp((s) => s.openInEditor);
  return (
    <button type="button" className="btn btn-sm viewer-editor-btn" data-testid="open-in-editor" title="Open in your editor ($VISUAL, $EDITOR, VS Code, Zed or the system default)" onClick={() => void open()}>
      Open in editor
    </button>
  );
}
