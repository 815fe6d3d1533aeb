import { FileIcon } from '../app/icons';
import { fileColor } from '../tree/fileKind';

/** The tab-like title bar: the file name, then its folder as a breadcrumb. */
export function ViewerHeader({ path, language, loading }: { path: string; language?: string; loading: boolean }) {
  const parts = path.split('/');
  const name = parts[parts.length - 1];
  const dirs = parts.slice(0, -1);

  return (
    <div className="viewer-header">
      <div className="viewer-tab" title={path} data-testid="file-viewer-title">
        <FileIcon size={14} style={{ color: fileColor(name) }} />
        <span className="viewer-tab-name">{name}</span>
      </div>
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
      <span className="viewer-meta">
        {language && language !== 'plaintext' && <span>{language}</span>}
        <span className="viewer-pill">Read-only</span>
      </span>
      {loading && <div className="viewer-progress" aria-hidden="true" />}
    </div>
  );
}
