import { useMemo, useState } from 'react';
import type { DiffSides } from '../../shared/contract';
import type { ReviewAction } from '../store/reviewSlice';
import DiffEditorView from './DiffEditorView';
import { computeHunks } from './hunks';

export { warmUpDiffEditor } from './DiffEditorView';

export interface DiffBodyProps {
  sides: DiffSides;
  modelKey: string;
  layout: 'side-by-side' | 'inline';
  /** Set for one modification's diff: its hunks can be reverted. */
  modificationId: string | null;
  revertable: boolean;
  busy: ReviewAction | null;
  reverted: number[] | undefined;
  onRevertHunk(index: number): void;
  /** Puts a reverted hunk back (rolls back its hunk rollback). */
  onRestoreHunk(index: number): void;
}

/**
 * The editor and, beside it, the list of hunks: each one jumps to its place, and for a
 * modification reverts on disk. Loaded lazily with Monaco (see DiffPane).
 */
export default function DiffBody({ sides, modelKey, layout, modificationId, revertable, busy, reverted, onRevertHunk, onRestoreHunk }: DiffBodyProps) {
  const hunks = useMemo(() => computeHunks(sides.file, sides.before, sides.after), [sides]);
  const [reveal, setReveal] = useState<{ hunk: number; nonce: number } | null>(null);

  return (
    <>
      <DiffEditorView
        modelKey={modelKey}
        before={sides.before ?? ''}
        after={sides.after ?? ''}
        language={sides.language}
        // A new or deleted file has one side: one pane, not a hatched empty half beside it.
        layout={sides.before === null || sides.after === null ? 'inline' : layout}
        hunks={hunks}
        reverted={reverted}
        revertable={modificationId !== null && revertable && busy === null}
        onRevertHunk={onRevertHunk}
        reveal={reveal}
      />
      <aside className="hunk-list" aria-label="Hunks" data-testid="hunk-list">
        <div className="hunk-list-title">
          {hunks.length} {hunks.length === 1 ? 'change' : 'changes'}
          {sides.before === null && <span className="hunk-note">new file</span>}
          {sides.after === null && <span className="hunk-note">deleted</span>}
        </div>
        {hunks.length === 0 && <div className="hunk-empty">The two sides are identical.</div>}
        {hunks.map((h) => {
          const done = reverted?.includes(h.index) ?? false;
          return (
            <div key={h.index} className={done ? 'hunk done' : 'hunk'} data-testid="review-hunk" data-hunk={h.index}>
              <button className="hunk-jump" title="Show in the editor" onClick={() => setReveal({ hunk: h.index, nonce: Date.now() })}>
                <span className="hunk-range">
                  L{h.newStart}
                  {h.newLines > 1 ? `–${h.newStart + h.newLines - 1}` : ''}
                </span>
                <span className="hunk-counts">
                  {h.removed > 0 && <span className="del">−{h.removed}</span>}
                  {h.added > 0 && <span className="add">+{h.added}</span>}
                </span>
                <span className="hunk-preview">{done ? 'reverted on disk' : h.preview || '(blank lines)'}</span>
              </button>
              {modificationId &&
                (done ? (
                  <button
                    className="hunk-revert"
                    data-testid="review-restore-hunk"
                    data-hunk={h.index}
                    disabled={busy !== null}
                    title={`Reverted. Put hunk ${h.index + 1} back on disk (rolls back the rollback that reverted it)`}
                    onClick={() => onRestoreHunk(h.index)}
                  >
                    {busy === `hunk:${h.index}` ? '…' : 'Restore'}
                  </button>
                ) : (
                  <button
                    className="hunk-revert"
                    data-testid="review-revert-hunk"
                    data-hunk={h.index}
                    disabled={!revertable || busy !== null}
                    title={revertable ? `Revert hunk ${h.index + 1} on disk` : 'Roll back the whole modification instead'}
                    onClick={() => onRevertHunk(h.index)}
                  >
                    {busy === `hunk:${h.index}` ? '…' : 'Revert'}
                  </button>
                ))}
            </div>
          );
        })}
      </aside>
    </>
  );
}
