import type { FileProblemsView, LspStatusView } from '../../shared/contract';
import type { SliceCreator } from './types';

export interface ProblemsSlice {
  /** The open folder's language servers, for the status bar. */
  lspServers: LspStatusView[];
  /** The latest problems per file (workspace-relative path) the servers reported. */
  problems: Record<string, FileProblemsView>;
  /** The bottom pane shows the Problems list (instead of a terminal or the processes). */
  problemsOpen: boolean;
  showProblems(open: boolean): void;
  loadLspStatus(): Promise<void>;
  /** Every file's latest problems the servers reported, for the Problems list after a (re)load. */
  loadKnownProblems(): Promise<void>;
  lspStatusChanged(servers: LspStatusView[]): void;
  problemsChanged(view: FileProblemsView): void;
  /** Asks the file's server about the file as it is on disk now (the viewer's markers). */
  loadProblems(path: string): Promise<void>;
  resetProblems(): void;
}

export const createProblemsSlice: SliceCreator<ProblemsSlice> = (set, get, { client }) => ({
  lspServers: [],
  problems: {},
  problemsOpen: false,

  showProblems(open) {
    // The Problems list takes the pane from the processes; a terminal tab takes it back.
    set(open ? { problemsOpen: true, processesOpen: false } : { problemsOpen: false });
  },

  async loadLspStatus() {
    try {
      set({ lspServers: await client.request('lsp.status', undefined) });
    } catch {
      set({ lspServers: [] });
    }
    await get().loadKnownProblems();
  },

  async loadKnownProblems() {
    const root = get().workspace?.root;
    try {
      const known = await client.request('lsp.knownProblems', undefined);
      if (get().workspace?.root !== root) return;
      // What arrived meanwhile (an event is newer than this answer) wins.
      const merged: Record<string, FileProblemsView> = {};
      for (const v of known) merged[v.file] = v;
      set({ problems: { ...merged, ...get().problems } });
    } catch {
      // An older host has no list to give: the list fills as servers report.
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
