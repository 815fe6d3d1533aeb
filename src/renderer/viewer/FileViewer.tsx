import { useCallback, useEffect, useState } from 'react';
import { loadable } from '../app/loadable';
import { modKey } from '../app/platform';
import { usePreloadWhenSettled } from '../app/usePreloadWhenSettled';
import { useApp } from '../store';
import type { MonacoViewProps } from './MonacoView';
import { ViewerHeader } from './ViewerHeader';
import './viewer.css';

// Monaco is most of the bundle: it loads after the first paint, once the index is complete
// and the browser idle, while the user is still looking at the tree, so the first click on a
// file does not wait for it. (loadable, not React.lazy: Suspense would hold a preloaded editor
// back for 300 ms.)
const monacoView = loadable(() => import('./MonacoView'));
const preloadMonaco = () => void monacoView.load().catch(() => undefined);

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

type ViewerState = 'empty' | 'loading' | 'ready' | 'binary' | 'too-large' | 'error';

export function FileViewer() {
  const openFile = useApp((s) => s.openFile);
  const root = useApp((s) => s.workspace?.root ?? '');
  const problems = useApp((s) => (s.openFile ? s.problems[s.openFile.path]?.problems : undefined));
  usePreloadWhenSettled(preloadMonaco);
  // The selection is what the chat's `@` picker offers as "the viewer's selection".
  const setSelection = useApp((s) => s.setViewerSelection);
  const selectedIn = openFile?.path;
  const onSelection = useCallback((lines: [number, number] | null) => setSelection(lines && selectedIn ? { path: selectedIn, lines } : null), [setSelection, selectedIn]);
  // The last text file shown. Monaco stays mounted from the first one on (hidden while a
  // notice shows), so the editor is created once and only its model changes.
  const [shown, setShown] = useState<{ path: string; absPath: string; content: string; language: string; readOnly?: string } | null>(null);
  const command = useApp((s) => s.viewerCommand);
  const onDirty = useApp((s) => s.setFileDirty);
  const onSave = useApp((s) => s.saveFile);
  const runCommand = useApp((s) => s.runViewerCommand);
  const onSaveKey = useCallback(() => runCommand('save'), [runCommand]);
  const unsaved = useApp((s) => s.dirtyFiles.length > 0);
  useLeaveGuard(unsaved);

  const file = openFile?.file ?? null;
  const text = file && !file.binary && !file.tooLarge && file.content !== undefined ? file.content : null;
  if (file && text !== null) {
    const absPath = `${root}/${file.path}`;
    if (shown?.absPath !== absPath || shown.content !== text || shown.language !== file.language || shown.readOnly !== file.read_only) {
      setShown({ path: file.path, absPath, content: text, language: file.language, readOnly: file.read_only });
    }
  }

  let state: ViewerState = 'empty';
  if (openFile?.status === 'error') state = 'error';
  else if (file?.binary) state = 'binary';
  else if (file?.tooLarge) state = 'too-large';
  else if (text !== null) state = 'ready';
  else if (openFile) state = 'loading';

  return (
    <section className="viewer" data-testid="file-viewer" data-path={openFile?.path} data-state={state} data-line={openFile?.reveal?.line}>
      {openFile && <ViewerHeader path={openFile.path} language={file?.language} readOnly={file && text === null ? 'not shown as text' : file?.read_only} loading={openFile.status === 'loading'} />}
      {openFile && <SaveProblemBanner path={openFile.path} />}
      <div className="viewer-body">
        {shown && (
          // While the next file loads the previous one stays up: no blank flash between files.
          <LoadedMonacoView {...shown} root={root} command={command} onDirty={onDirty} onSave={onSave} onSaveKey={onSaveKey} reveal={openFile?.reveal} hidden={state !== 'ready' && state !== 'loading'} problems={state === 'ready' ? problems : undefined} onSelection={onSelection} />
        )}
        {state === 'empty' && <ViewerEmpty />}
        {state === 'binary' && file && <ViewerNotice title="Binary file" detail={`${formatSize(file.size)} · not shown in the viewer`} />}
        {state === 'too-large' && file && <ViewerNotice title="File too large to show" detail={`${formatSize(file.size)} · open it in another editor`} />}
        {state === 'error' && <ViewerNotice title="Could not open file" detail={openFile?.error ?? ''} error />}
      </div>
    </section>
  );
}

/** Leaving the page (a reload, closing the tab or window) with unsaved edits asks first. */
function useLeaveGuard(unsaved: boolean): void {
  useEffect(() => {
    if (!unsaved) return;
    const onLeave = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener('beforeunload', onLeave);
    return () => window.removeEventListener('beforeunload', onLeave);
  }, [unsaved]);
}

/** A save that did not happen: why, and when the disk changed under the edits, the choice. */
function SaveProblemBanner({ path }: { path: string }) {
  const problem = useApp((s) => (s.saveProblem?.path === path ? s.saveProblem : null));
  const run = useApp((s) => s.runViewerCommand);
  const dismiss = useApp((s) => s.dismissSaveProblem);
  if (!problem) return null;
  return (
    <div className="viewer-banner" role="alert" data-testid="save-problem" data-conflict={problem.conflict ? 'true' : undefined}>
      <span className="viewer-banner-text">{problem.message}</span>
      {problem.conflict && (
        <>
          <button type="button" className="btn btn-sm" data-testid="save-overwrite" title="Write your text over the disk's; what it replaces stays in the timeline" onClick={() => run('overwrite')}>
            Save over it
          </button>
          <button type="button" className="btn btn-sm" data-testid="save-revert" title="Drop your unsaved edits and show the file as it is on disk" onClick={() => run('revert')}>
            Take the disk’s version
          </button>
        </>
      )}
      <button type="button" className="btn btn-sm" aria-label="Dismiss" onClick={dismiss}>
        ✕
      </button>
    </div>
  );
}

function LoadedMonacoView(props: MonacoViewProps) {
  const { Component: MonacoView, error } = monacoView.use();
  if (MonacoView) return <MonacoView {...props} />;
  if (error) return <ViewerNotice title="Could not load the editor" detail={error} error />;
  return <div className="viewer-notice muted">Loading editor…</div>;
}

function ViewerNotice({ title, detail, error }: { title: string; detail: string; error?: boolean }) {
  return (
    <div className={error ? 'viewer-notice error' : 'viewer-notice'} role={error ? 'alert' : undefined}>
      <div className="viewer-notice-title">{title}</div>
      <div className="viewer-notice-detail">{detail}</div>
    </div>
  );
}

function ViewerEmpty() {
  return (
    <div className="viewer-empty">
      <p>Select a file in the explorer to view it.</p>
      <dl className="viewer-keys">
        <dt>Open folder</dt>
        <dd>
          <span className="kbd">{modKey}</span> <span className="kbd">O</span>
        </dd>
        <dt>Focus terminal</dt>
        <dd>
          <span className="kbd">Ctrl</span> <span className="kbd">`</span>
        </dd>
        <dt>New terminal</dt>
        <dd>
          <span className="kbd">Ctrl</span> <span className="kbd">Shift</span> <span className="kbd">`</span>
        </dd>
      </dl>
    </div>
  );
}
