import type { TreeListing, WorkspaceInfo } from '../../shared/contract';
import { errorMessage } from '../host-client';
import type { SliceCreator } from './types';

export interface PathCompletionState {
  /** The text the candidates answer; stale answers for older text are dropped. */
  partial: string;
  candidates: string[];
}

export interface WorkspaceSlice {
  workspace: WorkspaceInfo | null;
  /** False until the host has told us whether a folder is already open (avoids a welcome flash). */
  workspaceKnown: boolean;
  recent: string[];
  opening: boolean;
  openError: string | null;
  completion: PathCompletionState;
  folderDialogOpen: boolean;
  /** Bumped to ask the welcome panel's path field to take focus. */
  welcomeFocusNonce: number;
  /** What the host says the person should know about the open folder, until dismissed. */
  notices: string[];
  /** Dismissed for this folder: a reconnect's fresh WorkspaceInfo does not bring them back. */
  dismissedNotices: string[];

  initWorkspace(): Promise<void>;
  openFolder(path: string): Promise<boolean>;
  /** The open-folder command: native picker in Electron, path field in the browser. */
  requestOpenFolder(): Promise<void>;
  closeFolderDialog(): void;
  loadRecent(): Promise<void>;
  /** The folders matching `partial`; null when a later call superseded this one. */
  completePath(partial: string): Promise<string[] | null>;
  clearOpenError(): void;
  /** `rootListing`: the root's listing, when it was asked beside the folder (initWorkspace). */
  workspaceOpened(info: WorkspaceInfo, rootListing?: Promise<TreeListing>): void;
  workspaceNotice(root: string, message: string): void;
  dismissNotice(message: string): void;
}

export const createWorkspaceSlice: SliceCreator<WorkspaceSlice> = (set, get, { client }) => {
  let completionSeq = 0;

  return {
    workspace: null,
    workspaceKnown: false,
    recent: [],
    opening: false,
    openError: null,
    completion: { partial: '', candidates: [] },
    folderDialogOpen: false,
    welcomeFocusNonce: 0,
    notices: [],
    dismissedNotices: [],

    async initWorkspace() {
      void get().loadRecent();
      // The root's listing is asked beside which folder is open, and the workbench waits for
      // both: its first render then has the tree's rows (the host reads the listing ahead, see
      // Host.readAhead), rather than a round trip and a second render later. No folder open:
      // NO_WORKSPACE, nothing to show. Were another folder opened between the two answers, its
      // workspace.opened event lists that folder again.
      const current = client.request('workspace.current', undefined);
      const rootListing = client.request('tree.list', { dir: '' });
      try {
        const [info] = await Promise.all([current, rootListing.catch(() => null)]);
        if (info) get().workspaceOpened(info, rootListing);
      } catch (err) {
        set({ openError: errorMessage(err) });
      } finally {
        set({ workspaceKnown: true });
      }
    },

    async openFolder(path) {
      const trimmed = path.trim();
      if (!trimmed) {
        set({ openError: 'Type the path of a folder to open.' });
        return false;
      }
      set({ opening: true, openError: null });
      try {
        get().workspaceOpened(await client.request('workspace.open', { path: trimmed }));
        // Done with the dialog, also when the folder picked is the one already open.
        get().closeFolderDialog();
        return true;
      } catch (err) {
        set({ openError: errorMessage(err) });
        return false;
      } finally {
        set({ opening: false });
      }
    },

    async requestOpenFolder() {
      if (get().transport === 'electron') {
        set({ opening: true, openError: null });
        try {
          const info = await client.request('workspace.pick', undefined);
          if (info) get().workspaceOpened(info);
        } catch (err) {
          set({ openError: errorMessage(err) });
        } finally {
          set({ opening: false });
        }
        return;
      }
      void get().loadRecent();
      // With nothing open the welcome panel already shows the path field; a second copy in a
      // dialog would only compete with it.
      if (get().workspace) set({ folderDialogOpen: true, openError: null });
      else set((s) => ({ welcomeFocusNonce: s.welcomeFocusNonce + 1 }));
    },

    closeFolderDialog() {
      set({ folderDialogOpen: false, openError: null, completion: { partial: '', candidates: [] } });
    },

    async loadRecent() {
      try {
        set({ recent: await client.request('workspace.recent', undefined) });
      } catch {
        // The list is a convenience; an empty one is an honest fallback.
      }
    },

    async completePath(partial) {
      const seq = ++completionSeq;
      let candidates: string[] = [];
      try {
        ({ candidates } = await client.request('workspace.complete', { partial }));
      } catch {
        // No matches is what a failed completion shows.
      }
      // A later ask owns what the list shows; this caller still gets the answer to its own text
      // (a Tab pressed before the matches came must not lose them to the typing's own ask).
      if (seq === completionSeq) set({ completion: { partial, candidates } });
      return candidates;
    },

    clearOpenError() {
      if (get().openError !== null) set({ openError: null });
    },

    workspaceOpened(info, rootListing) {
      const previous = get().workspace;
      const same = previous?.root === info.root;
      const notices = same ? get().notices : [];
      const dismissed = same ? get().dismissedNotices : [];
      // Only another folder ends the Open Folder dialog. The same folder confirmed late (the
      // host's answer to the page's boot data, another window's echo) must not close a dialog,
      // or clear an error, that the person opened after it was asked.
      const dialog = same ? {} : { openError: null, folderDialogOpen: false };
      set({
        workspace: info,
        workspaceKnown: true,
        ...dialog,
        notices: [...notices, ...(info.notices ?? []).filter((n) => !notices.includes(n) && !dismissed.includes(n))],
        dismissedNotices: dismissed,
      });
      // The open() reply and the workspace.opened event both land here: load once per root. A
      // listing asked with the folder (the page's boot data was this folder) is still taken.
      if (same) {
        if (rootListing) void get().loadDir('', rootListing);
        return;
      }
      const state = get();
      state.resetTree();
      if (info.index_progress) state.indexProgressed(info.root, info.index_progress.files, info.index_progress.done);
      state.closeFile();
      // git status reads every file's metadata: asked once the root listing is in, so the two
      // do not share the machine while the first screen waits for the listing.
      void state.loadDir('', rootListing).finally(() => void get().loadGitStatus());
      void state.loadRecent();
      // Shells outlive a page reload (adopt them), but a newly opened folder deserves a shell
      // that starts in it; the old tabs stay until the user closes them.
      if (previous) void state.createTerminal({ focus: false });
      else void state.ensureTerminal();
    },

    workspaceNotice(root, message) {
      if (get().workspace?.root !== root || get().notices.includes(message) || get().dismissedNotices.includes(message)) return;
      set((s) => ({ notices: [...s.notices, message] }));
    },

    dismissNotice(message) {
      set((s) => ({ notices: s.notices.filter((n) => n !== message), dismissedNotices: [...s.dismissedNotices, message] }));
    },
  };
};
