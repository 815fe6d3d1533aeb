import type { FileProblemsView, LspStatusView } from '../../shared/contract';
import type { SliceCreator } from './types';

export interface ProblemsSlice {
  /** The open folder's language servers, for the status bar. */
  lspServers: LspStatusView[];
  /** The latest problems per file (workspace-relative path) the servers reported. */
  problems: Record<string, FileProblemsView>;
  loadLspStatus(): Promise<void>;
  lspStatusChanged(servers: LspStatusView[]): void;
  problemsChanged(view: FileProblemsView): void;
  /** Asks the file's server about the file as it is on disk now (the viewer's markers). */
  loadProblems(path: string): Promise<void>;
  resetProblems(): void;
}

export const createProblemsSlice: SliceCreator<ProblemsSlice> = (set, get, { client }) => ({
  lspServers: [],
  problems: {},

  async loadLspStatus() {
    try {
      set({ lspServers: await client.request('lsp.status', undefined) });
    } catch {
      set({ lspServers: [] });
    }
  },

  lspStatusChanged(servers) {
    set({ lspServers: servers });
  },

  problemsChanged(view) {
    set({ problems: { ...get().problems, [view.file]: view } });
  },

  async loadProblems(path) {
    const root = get().workspace?.root;
    try {
      const view = await client.request('lsp.problems', { path });
      // Another folder's answer arriving late must not mark this one's file.
      if (get().workspace?.root === root) get().problemsChanged(view);
    } catch {
      // No markers is the honest answer when the server cannot say.
    }
  },

  resetProblems() {
    set({ problems: {}, lspServers: [] });
  },
});
