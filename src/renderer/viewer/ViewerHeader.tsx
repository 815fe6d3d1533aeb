import { modKey } from '../app/platform';
import { useApp } from '../store';
import { FileTabs } from './FileTabs';
import { OpenInEditor } from './OpenInEditor';

/** The viewer's title bar: a tab per open file, then the shown file's folder as a breadcrumb. */
export function ViewerHeader({ path, language, readOnly, loading }: { path: string; language?: string; readOnly?: string; loading: boolean }) {
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
      <OpenInEditor path={path} />
      <span className="viewer-meta">
        {language && language !== 'plaintext' && <span>{language}</span>}
        {readOnly !== undefined ? (
          <span className="viewer-pill" title={`Read-only: ${readOnly}`} data-testid="viewer-read-only">
            Read-only
          </span>
        ) : (
          !loading && <SaveButton path={path} />
        )}
      </span>
      {loading && <div className="viewer-progress" aria-hidden="true" />}
    </div>
  );
}

/** Save (Ctrl+S): the person's text goes to disk as their own modification; "Saved" says it went. */
function SaveButton({ path }: { path: string }) {
  const dirty = useApp((s) => s.dirtyFiles.includes(path));
  const saving = useApp((s) => s.savingFile === path);
  const saved = useApp((s) => (s.lastSave?.path === path ? s.lastSave : null));
  const run = useApp((s) => s.runViewerCommand);
  const word = saving ? 'Saving…' : dirty ? 'Unsaved' : saved ? (saved.merged ? 'Saved, merged with changes on disk' : 'Saved') : '';
  return (
    <>
      {word && (
        <span className={dirty && !saving ? 'viewer-save-state dirty' : 'viewer-save-state'} data-testid="file-save-state" aria-live="polite">
          {word}
        </span>
      )}
      <button
        type="button"
        className={dirty ? 'btn btn-sm btn-primary viewer-save-btn' : 'btn btn-sm viewer-save-btn'}
        data-testid="file-save"
        disabled={!dirty || saving}
        title={`Save your edits (${modKey}+S): they become your own change in the timeline, and undoing the agent never overwrites them`}
        onClick={() => run('save')}
      >
        Save
      </button>
    </>
  );
}
