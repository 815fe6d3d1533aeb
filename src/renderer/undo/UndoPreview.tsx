import { useMemo } from 'react';
import type { UndoPreviewFile } from '../../shared/contract';
import { useApp } from '../store';
import { diffLines } from './diffLines';
import './undo.css';

/**
 * What "Undo changes from here", or Redo of such an undo, would do, file by file; nothing changes
 * until the person confirms. A file changed since shows as a conflict, said in plain words.
 */
export default function UndoPreview() {
  const d = useApp((s) => s.undoDialog);
  const cancel = useApp((s) => s.cancelUndo);
  if (!d) return null;
  return (
    <div className="dialog-backdrop" onMouseDown={(e) => e.target === e.currentTarget && cancel()}>
      <div className="undo-dialog" role="dialog" aria-modal="true" aria-label={d.kind === 'undo' ? 'Undo changes' : 'Redo changes'} data-testid="undo-preview" data-kind={d.kind} onKeyDown={(e) => e.key === 'Escape' && cancel()} tabIndex={-1}>
        <UndoBody />
      </div>
    </div>
  );
}

function UndoBody() {
  const d = useApp((s) => s.undoDialog)!;
  const cancel = useApp((s) => s.cancelUndo);
  const confirm = useApp((s) => s.confirmUndo);
  const select = useApp((s) => s.selectUndoFile);
  const view = d.view;
  const conflicts = view?.files.filter((f) => f.conflict) ?? [];
  const clean = (view?.files.length ?? 0) - conflicts.length;
  const later = (view?.requests.length ?? 1) - 1;
  const selected = view?.files.find((f) => f.file === d.selected) ?? null;
  const redo = d.kind === 'redo';
  const verb = redo ? 'redo' : 'undo';
  const them = conflicts.length === 1 ? 'it' : 'them';
  return (
    <>
      <div className="undo-title">
        {redo ? 'Redo the undone changes' : 'Undo changes from here'}
        {view && (
          <span className="undo-sub">
            {' '}
            — this request{later ? ` and ${later} later one${later === 1 ? '' : 's'}` : ''}: {view.modifications} change{view.modifications === 1 ? '' : 's'} in {view.files.length} file{view.files.length === 1 ? '' : 's'}
          </span>
        )}
      </div>
      {d.status === 'loading' && <div className="undo-status">Working out what would change…</div>}
      {d.error && (
        <div className="undo-error" role="alert" data-testid="undo-error">
          {d.error}
        </div>
      )}
      {view && view.files.length === 0 && <div className="undo-status">Nothing to {verb}: these requests have no changes in effect.</div>}
      {view && view.files.length > 0 && (
        <div className="undo-main">
          <ul className="undo-files" aria-label="Files">
            {view.files.map((f) => (
              <li key={f.file}>
                <button
                  type="button"
                  className={`undo-file${f.file === d.selected ? ' selected' : ''}${f.conflict ? ' conflict' : ''}`}
                  data-testid="undo-file"
                  data-path={f.file}
                  data-conflict={f.conflict ? 'true' : 'false'}
                  onClick={() => select(f.file)}
                >
                  <span className="undo-file-name">{f.file}</span>
                  {f.conflict ? <span className="undo-badge">conflict</span> : <FileCounts f={f} />}
                </button>
              </li>
            ))}
          </ul>
          <div className="undo-diff">{selected && <FileDiff f={selected} verb={verb} />}</div>
        </div>
      )}
      {conflicts.length > 0 && (
        <div className="undo-conflicts" data-testid="undo-conflicts">
          {conflicts.length} file{conflicts.length === 1 ? ' was' : 's were'} changed since{redo ? ' the undo' : ''}, by you or another program{conflicts.some((c) => c.conflict!.blocking.length) ? ' or later modifications' : ''}: {redo ? 'redoing' : 'undoing'} {them} would overwrite that work. Skip {them} and {verb} the rest, or cancel and change nothing.
        </div>
      )}
      <div className="undo-actions">
        <button type="button" className="btn" data-testid="undo-cancel" onClick={cancel} disabled={d.status === 'applying'}>
          Cancel
        </button>
        {view && clean > 0 && (
          <button type="button" className="btn btn-primary" data-testid="undo-confirm" disabled={d.status !== 'ready'} onClick={() => void confirm(conflicts.length ? 'skip' : 'refuse')} autoFocus>
            {d.status === 'applying' ? (redo ? 'Redoing…' : 'Undoing…') : conflicts.length ? `${redo ? 'Redo' : 'Undo'} ${clean} file${clean === 1 ? '' : 's'}, skip ${conflicts.length}` : `${redo ? 'Redo' : 'Undo'} ${view.modifications} change${view.modifications === 1 ? '' : 's'}`}
          </button>
        )}
      </div>
    </>
  );
}

function FileCounts({ f }: { f: UndoPreviewFile }) {
  if (f.binary) return <span className="undo-counts">binary</span>;
  if (f.before === null && f.after !== null) return <span className="undo-counts add">restored</span>;
  if (f.after === null && f.before !== null) return <span className="undo-counts del">removed</span>;
  return (
    <span className="undo-counts">
      <span className="add">+{f.added}</span> <span className="del">−{f.removed}</span>
    </span>
  );
}

function FileDiff({ f, verb }: { f: UndoPreviewFile; verb: 'undo' | 'redo' }) {
  const lines = useMemo(() => (f.before === undefined || f.after === undefined ? null : diffLines(f.before ?? '', f.after ?? '')), [f]);
  if (f.conflict)
    return (
      <div className="undo-diff-note" data-testid="undo-conflict">
        <strong>Left as it is if you {verb} the rest:</strong> {f.conflict.why}.
        {f.conflict.outside && ' The file was edited outside Loupe since.'}
        {f.conflict.blocking.length > 0 && ` Later modifications in the way: ${f.conflict.blocking.join(', ')}.`}
      </div>
    );
  if (f.binary) return <div className="undo-diff-note">Binary file: it is restored byte for byte.</div>;
  if (!lines) return <div className="undo-diff-note">Too large to show here; the counts above are exact.</div>;
  return (
    <pre className="undo-diff-text" data-testid="undo-diff">
      {lines.map((l, i) => (
        <div key={i} className={`undo-line ${l.kind}`}>
          {l.kind === 'gap' ? '⋯' : `${l.kind === 'add' ? '+' : l.kind === 'del' ? '−' : ' '} ${l.text}`}
        </div>
      ))}
    </pre>
  );
}
