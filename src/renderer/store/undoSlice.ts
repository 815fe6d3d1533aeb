// "Undo changes from here" on a user message: the preview first (nothing changes until the person
// chooses), then the undo as one group, and Redo, which rolls that group back.
import type { UndoPreviewView } from '../../shared/contract';
import { errorMessage } from '../host-client';
import type { SliceCreator } from './types';

export interface UndoDialog {
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
  /** A redo in flight, by correlation. */
  redoBusy: string | null;
  undoNotice: string | null;

  setUndone(list: { correlation_id: string; group_id: string }[] | undefined): void;
  previewUndo(correlationId: string): Promise<void>;
  selectUndoFile(file: string): void;
  confirmUndo(onConflict: 'skip' | 'refuse'): Promise<void>;
  cancelUndo(): void;
  redo(correlationId: string): Promise<void>;
  dismissUndoNotice(): void;
}

export const createUndoSlice: SliceCreator<UndoSlice> = (set, get, { client }) => ({
  undoDialog: null,
  undone: {},
  redoBusy: null,
  undoNotice: null,

  setUndone: (list) => set({ undone: Object.fromEntries((list ?? []).map((u) => [u.correlation_id, u.group_id])) }),

  async previewUndo(correlationId) {
    const sessionId = get().chatSessionId;
    if (!sessionId) return;
    set({ undoDialog: { correlationId, status: 'loading', view: null, error: null, selected: null }, undoNotice: null });
    try {
      const view = await client.request('chat.undoPreview', { session_id: sessionId, correlation_id: correlationId });
      if (get().undoDialog?.correlationId !== correlationId) return;
      const first = view.files.find((f) => f.conflict) ?? view.files[0];
      set({ undoDialog: { correlationId, status: 'ready', view, error: null, selected: first?.file ?? null } });
    } catch (err) {
      set((s) => (s.undoDialog?.correlationId === correlationId ? { undoDialog: { ...s.undoDialog, status: 'error', error: errorMessage(err) } } : {}));
    }
  },

  selectUndoFile: (file) => set((s) => (s.undoDialog ? { undoDialog: { ...s.undoDialog, selected: file } } : {})),

  async confirmUndo(onConflict) {
    const d = get().undoDialog;
    const sessionId = get().chatSessionId;
    if (!d?.view || !sessionId || d.status !== 'ready') return;
    set({ undoDialog: { ...d, status: 'applying' } });
    try {
      const r = await client.request('chat.undo', { session_id: sessionId, correlation_id: d.correlationId, digest: d.view.digest, on_conflict: onConflict });
      const skipped = r.skipped.length ? `; left ${r.skipped.length} conflicting file${r.skipped.length === 1 ? '' : 's'} as they are` : '';
      set((s) => ({
        undoDialog: null,
        undone: { ...s.undone, [d.correlationId]: r.group_id },
        undoNotice: `Undid ${r.rolled_back} change${r.rolled_back === 1 ? '' : 's'} in ${r.files.length} file${r.files.length === 1 ? '' : 's'}${skipped}.`,
      }));
      void get().loadModifications();
    } catch (err) {
      set({ undoDialog: { ...d, status: 'error', error: errorMessage(err) } });
    }
  },

  cancelUndo: () => set({ undoDialog: null }),

  async redo(correlationId) {
    const group = get().undone[correlationId];
    if (!group || get().redoBusy) return;
    set({ redoBusy: correlationId, undoNotice: null });
    try {
      const r = await client.request('modlog.rollback', { modification_id: group, reason: 'redo' });
      set((s) => {
        const undone = { ...s.undone };
        delete undone[correlationId];
        const n = r.files?.length ?? 1;
        return { undone, redoBusy: null, undoNotice: `Redid the undone changes in ${n} file${n === 1 ? '' : 's'}.` };
      });
      void get().loadModifications();
    } catch (err) {
      set({ redoBusy: null, undoNotice: `Redo failed: ${errorMessage(err)}` });
    }
  },

  dismissUndoNotice: () => set({ undoNotice: null }),
});
