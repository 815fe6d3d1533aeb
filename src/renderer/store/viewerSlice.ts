import type { FileContent } from '../../shared/contract';
import { errorMessage } from '../host-client';
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

export interface ViewerSlice {
  openFile: OpenFile | null;
  /** The files open as tabs, in the order they were opened; the shown one is `openFile`. */
  fileTabs: string[];
  /** Closes one tab; closing the shown one shows its neighbour. */
  closeFileTab(path: string): void;
  /** Opens a file in the viewer; `line` scrolls to it and selects it. */
  openFilePath(path: string, line?: number): Promise<void>;
  reloadOpenFile(): Promise<void>;
  /** The shown file in the person's own editor, at the line a link asked for; a failure becomes a notice. */
  openInEditor(): Promise<void>;
  closeFile(): void;
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
    fileTabs: [],

    closeFileTab(path) {
      const tabs = get().fileTabs;
      const at = tabs.indexOf(path);
      if (at < 0) return;
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
      try {
        await client.request('file.openInEditor', { path: file.path, ...(file.reveal ? { line: file.reveal.line } : {}) });
      } catch (err) {
        const root = get().workspace?.root;
        if (root) get().workspaceNotice(root, `Could not open ${file.path} in your editor: ${errorMessage(err)}`);
      }
    },

    async reloadOpenFile() {
      const current = get().openFile;
      if (current) await read(current.path);
    },

    closeFile() {
      seq++;
      set({ openFile: null, fileTabs: [] });
    },
  };
};
