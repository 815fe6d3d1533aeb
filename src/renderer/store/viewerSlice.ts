import type { EditorOpenView, FileContent, FileSaveResult } from '../../shared/contract';
import { errorMessage, HostRequestError } from '../host-client';
import type { SliceCreator } from './types';

export interface OpenFile {
  path: string;
  status: 'loading' | 'ready' | 'error';
  /** The last content read; kept while a reload is in flight so the editor does not blank. */
  file: FileContent | null;
  error: string | null;
  /** A line to show (1-based), asked for by a link; `seq` tells a second click on the same line from the first. */
  reveal?: { line: number; seq: number };
}

/** Something the person asked of the editor's buffer (it holds the text, so the editor does it). */
export interface ViewerCommand {
  seq: number;
  /** save: Ctrl+S or Save; overwrite: save over what changed on disk; revert: take the disk's text; close: forget the buffer (its tab closed). */
  kind: 'save' | 'overwrite' | 'revert' | 'close';
  path: string;
}

/** The last save that failed: why, and whether the disk changed under the edits (a choice to make). */
export interface SaveProblem {
  path: string;
  message: string;
  conflict: boolean;
}

export interface ViewerSlice {
  openFile: OpenFile | null;
  /** The files open as tabs, in the order they were opened; the shown one is `openFile`. */
  fileTabs: string[];
  /** Closes one tab; closing the shown one shows its neighbour. */
  closeFileTab(path: string): void;
  /** Opens a file in the viewer; `line` scrolls to it and selects it. */
  openFilePath(path: string, line?: number): Promise<void>;
  reloadOpenFile(): Promise<void>;
  /**
   * The shown file in the person's own editor, at the line a link asked for. What happened is
   * `editorOpen`: where it opened, or why nothing could be, with the path to copy.
   */
  openInEditor(): Promise<void>;
  editorOpen: (EditorOpenView & { file: string }) | null;
  dismissEditorOpen(): void;
  closeFile(): void;
  /** Lines selected in the viewer (the chat's `@` picker offers them); null when none. */
  viewerSelection: { path: string; lines: [number, number] } | null;
  setViewerSelection(selection: { path: string; lines: [number, number] } | null): void;
  /** Files whose buffer holds edits not yet saved. */
  dirtyFiles: string[];
  setFileDirty(path: string, dirty: boolean): void;
  viewerCommand: ViewerCommand | null;
  /** Asks the open file's editor to save, save over the disk, or take the disk's text. */
  runViewerCommand(kind: Exclude<ViewerCommand['kind'], 'close'>): void;
  /** The file being saved. */
  savingFile: string | null;
  saveProblem: SaveProblem | null;
  /** The last save, for the header's word ("Saved", "Saved, merged with changes on disk"). */
  lastSave: { path: string; merged: boolean; seq: number } | null;
  /** The person's text through file.save; null when it did not save (saveProblem says why). */
  saveFile(path: string, content: string, base: string, overwrite: boolean): Promise<FileSaveResult | null>;
  dismissSaveProblem(): void;
}

export const createViewerSlice: SliceCreator<ViewerSlice> = (set, get, { client }) => {
  let seq = 0;

  const read = async (path: string): Promise<void> => {
    const mine = ++seq;
    try {
      const file = await client.request('file.read', { path });
      if (mine === seq) set((s) => ({ openFile: { path, status: 'ready', file, error: null, reveal: s.openFile?.path === path ? s.openFile.reveal : undefined } }));
    } catch (err) {
      if (mine === seq) set({ openFile: { path, status: 'error', file: null, error: errorMessage(err) } });
    }
  };

  return {
    openFile: null,
    viewerSelection: null,
    fileTabs: [],
    dirtyFiles: [],
    viewerCommand: null,
    savingFile: null,
    saveProblem: null,
    lastSave: null,

    closeFileTab(path) {
      const tabs = get().fileTabs;
      const at = tabs.indexOf(path);
      if (at < 0) return;
      if (get().dirtyFiles.includes(path) && !window.confirm(`${path} has unsaved changes. Close it and lose them?`)) return;
      // Its buffer goes with the tab: the editor drops the model.
      set((s) => ({ dirtyFiles: s.dirtyFiles.filter((p) => p !== path), viewerCommand: { seq: (s.viewerCommand?.seq ?? 0) + 1, kind: 'close', path }, saveProblem: s.saveProblem?.path === path ? null : s.saveProblem }));
      const rest = tabs.filter((p) => p !== path);
      set({ fileTabs: rest });
      if (get().openFile?.path !== path) return;
      const next = rest[Math.min(at, rest.length - 1)];
      if (next) void get().openFilePath(next);
      else get().closeFile();
    },

    async openFilePath(path, line) {
      const prev = get().openFile;
      const reveal = line && line > 0 ? { line, seq: (prev?.reveal?.seq ?? 0) + 1 } : undefined;
      set((s) => ({ openFile: { path, status: 'loading', file: prev?.path === path ? prev.file : null, error: null, reveal }, fileTabs: s.fileTabs.includes(path) ? s.fileTabs : [...s.fileTabs, path] }));
      await read(path);
    },

    async openInEditor() {
      const file = get().openFile;
      if (!file) return;
      const line = file.reveal?.line;
      try {
        const r = await client.request('file.openInEditor', { path: file.path, ...(line ? { line } : {}) });
        set({ editorOpen: { ...r, file: file.path } });
      } catch (err) {
        // The host could not even be asked: still offer what can be copied.
        const root = get().workspace?.root ?? '';
        set({ editorOpen: { opened: false, reason: errorMessage(err), path: root ? `${root}/${file.path}` : file.path, ...(line ? { line } : {}), host: '', file: file.path } });
      }
    },

    editorOpen: null,
    dismissEditorOpen: () => set({ editorOpen: null }),

    async reloadOpenFile() {
      const current = get().openFile;
      if (current) await read(current.path);
    },

    setViewerSelection(selection) {
      const now = get().viewerSelection;
      if (now === selection || (now && selection && now.path === selection.path && now.lines[0] === selection.lines[0] && now.lines[1] === selection.lines[1])) return;
      set({ viewerSelection: selection });
    },

    closeFile() {
      seq++;
      set({ openFile: null, fileTabs: [], viewerSelection: null, dirtyFiles: [], saveProblem: null, lastSave: null });
    },

    setFileDirty(path, dirty) {
      const has = get().dirtyFiles.includes(path);
      if (has === dirty) return;
      set((s) => ({ dirtyFiles: dirty ? [...s.dirtyFiles, path] : s.dirtyFiles.filter((p) => p !== path) }));
    },

    runViewerCommand(kind) {
      const path = get().openFile?.path;
      if (!path) return;
      // Another choice made: the banner that offered it goes.
      if (kind !== 'save') set({ saveProblem: null });
      set((s) => ({ viewerCommand: { seq: (s.viewerCommand?.seq ?? 0) + 1, kind, path } }));
    },

    dismissSaveProblem() {
      set({ saveProblem: null });
    },

    async saveFile(path, content, base, overwrite) {
      set({ savingFile: path, saveProblem: null });
      try {
        const saved = await client.request('file.save', { path, content, base, ...(overwrite ? { overwrite } : {}) });
        set((s) => ({
          lastSave: { path, merged: saved.merged, seq: (s.lastSave?.seq ?? 0) + 1 },
          // What the disk holds now is what the editor shows as the file: no reload races the save.
          openFile: s.openFile?.path === path && s.openFile.file ? { ...s.openFile, file: { ...s.openFile.file, content: saved.content } } : s.openFile,
        }));
        return saved;
      } catch (err) {
        const conflict = err instanceof HostRequestError && err.code === 'FILE_CHANGED_SINCE_READ';
        set({ saveProblem: { path, message: errorMessage(err), conflict } });
        // The disk's text, for the choice the person now makes.
        if (conflict && get().openFile?.path === path) void get().reloadOpenFile();
        return null;
      } finally {
        set({ savingFile: null });
      }
    },
  };
};
