import type { FileContent } from '../../shared/contract';
import { errorMessage } from '../host-client';
import type { SliceCreator } from './types';

export interface OpenFile {
  path: string;
  status: 'loading' | 'ready' | 'error';
  /** The last content read; kept while a reload is in flight so the editor does not blank. */
  file: FileContent | null;
  error: string | null;
}

export interface ViewerSlice {
  openFile: OpenFile | null;
  openFilePath(path: string): Promise<void>;
  reloadOpenFile(): Promise<void>;
  closeFile(): void;
}

export const createViewerSlice: SliceCreator<ViewerSlice> = (set, get, { client }) => {
  let seq = 0;

  const read = async (path: string): Promise<void> => {
    const mine = ++seq;
    try {
      const file = await client.request('file.read', { path });
      if (mine === seq) set({ openFile: { path, status: 'ready', file, error: null } });
    } catch (err) {
      if (mine === seq) set({ openFile: { path, status: 'error', file: null, error: errorMessage(err) } });
    }
  };

  return {
    openFile: null,

    async openFilePath(path) {
      const prev = get().openFile;
      set({ openFile: { path, status: 'loading', file: prev?.path === path ? prev.file : null, error: null } });
      await read(path);
    },

    async reloadOpenFile() {
      const current = get().openFile;
      if (current) await read(current.path);
    },

    closeFile() {
      seq++;
      set({ openFile: null });
    },
  };
};
