// "Undo changes from here" on a user message: the preview first (nothing changes until the person
// chooses), then the undo as one group; and Redo, which rolls that group back after the same kind
// of preview (a file changed since the undo shows as a conflict before anything is written).
import type { UndoPreviewView } from '../../shared/contract';
import { errorMessage } from '../host-client';
import type { SliceCreator } from './types';

export interface UndoDialog {
  /** Undo from this request, or redo the undo that started from it. */
  kind: 'undo' | 'redo';
  correlationId: string;
  status: 'loading' | 'ready' | 'applying' | 'error';
  view: UndoPreviewView | null;
  error: string | null;
  /** The file whose diff is shown. */
  selected: string | null;
}

export interface UndoSlice {
  undoDialog: UndoDialog | null;
  /** Requests of the open session undone by a group still in effect (correlation → group), for Redo. */
  undone: Record<string, string>;
  /** A redo's preview being made, by correlation. */
  redoBusy: string | null;
  /** What the last undo or redo did; it fades (UndoNotice). */
  undoNotice: string | null;

  setUndone(list: { correlation_id: string; group_id: string }[] | undefined): void;
  previewUndo(correlationId: string): Promise<void>;
  selectUndoFile(file: string): void;
  confirmUndo(onConflict: 'skip' | 'refuse'): Promise<void>;
  cancelUndo(): void;
  /** Redo's preview: the undo's group reversed, file by file; confirmUndo applies it. */
  previewRedo(correlationId: string): Promise<void>;
  dismissUndoNotice(): void;
}

export const createUndoSlice: SliceCreator<UndoSlice> = (set, get, { client }) => {
  async function preview(kind: UndoDialog['kind'], correlationId: string) {
    const sessionId = get().chatSessionId;
    if (!sessionId) return;
    set({ undoDialog: { kind, correlationId, status: 'loading', view: null, error: null, selected: null }, undoNotice: null, redoBusy: kind === 'redo' ? correlationId : null });
    try {
      const view = await client.request(kind === 'undo' ? 'chat.undoPreview' : 'chat.redoPreview', { session_id: sessionId, correlation_id: correlationId });
      if (get().undoDialog?.correlationId !== correlationId) return;
      const first = view.files.find((f) => f.conflict) ?? view.files[0];
      set({ undoDialog: { kind, correlationId, status: 'ready', view, error: null, selected: first?.file ?? null } });
    } catch (err) {
      set((s) => (s.undoDialog?.correlationId === correlationId ? { undoDialog: { ...s.undoDialog, status: 'error', error: errorMessage(err) } } : {}));
    } finally {
      set({ redoBusy: null });
    }
  }

  return {
    undoDialog: null,
    undone: {},
    redoBusy: null,
    undoNotice: null,

    setUndone: (list) => set({ undone: Object.fromEntries((list ?? []).map((u) => [u.correlation_id, u.group_id])) }),

    previewUndo: (correlationId) => preview('undo', correlationId),
    previewRedo: (correlationId) => preview('redo', correlationId),

    selectUndoFile: (file) => set((s) => (s.undoDialog ? { undoDialog: { ...s.undoDialog, selected: file } } : {})),

    async confirmUndo(onConflict) {
      const d = get().undoDialog;
      const sessionId = get().chatSessionId;
      if (!d?.view || !sessionId || d.status !== 'ready') return;
      set({ undoDialog: { ...d, status: 'applying' } });
      try {
        const r = await client.request(d.kind === 'undo' ? 'chat.undo' : 'chat.redo', { session_id: sessionId, correlation_id: d.correlationId, digest: d.view.digest, on_conflict: onConflict });
        const files = `${r.files.length} file${r.files.length === 1 ? '' : 's'}`;
        const skipped = r.skipped.length ? `; left ${r.skipped.length} conflicting file${r.skipped.length === 1 ? ' as it is' : 's as they are'}` : '';
        set((s) => {
          const undone = { ...s.undone };
          if (d.kind === 'undo') undone[d.correlationId] = r.group_id;
          else delete undone[d.correlationId];
          const did = d.kind === 'undo' ? `Undid ${r.rolled_back} change${r.rolled_back === 1 ? '' : 's'} in ${files}` : `Redid the undone changes in ${files}`;
          return { undoDialog: null, undone, undoNotice: `${did}${skipped}.` };
        });
        void get().loadModifications();
      } catch (err) {
        set({ undoDialog: { ...d, status: 'error', error: errorMessage(err) } });
      }
    },

    cancelUndo: () => set({ undoDialog: null }),

    dismissUndoNotice: () => set({ undoNotice: null }),
  };
};
