import type { WorktreeChangesView, WorktreeDiscardReportView, WorktreeSessionView } from '../../shared/contract';
import { errorMessage, HostRequestError } from '../host-client';
import type { SliceCreator } from './types';

/** One file APPLY_CONFLICT named, from the error's `details.conflicts`. */
export interface ApplyConflictView {
  file: string;
  why: string;
}

/** The conflicts in APPLY_CONFLICT's details, well-formed entries only. */
export function conflictsOf(details: Record<string, unknown> | undefined): ApplyConflictView[] {
  const list = Array.isArray(details?.conflicts) ? details.conflicts : [];
  return list.filter((c): c is ApplyConflictView => typeof c === 'object' && c !== null && typeof c.file === 'string' && typeof c.why === 'string').map((c) => ({ file: c.file, why: c.why }));
}

/** Sessions working in worktrees of the open folder: the sidebar's list, one session's review, apply and discard. */
export interface WorktreeSessionsSlice {
  worktreeSessions: WorktreeSessionView[];
  /** The worktree whose session is selected in the sidebar. */
  selectedWorktree: string | null;
  /** What applying the selected worktree would write (its review), as last fetched. */
  worktreeChanges: WorktreeChangesView | null;
  worktreeChangesError: string | null;
  /** Files left out of the apply (unticked in the review). */
  worktreeExcluded: string[];
  /** Conflicting files the person ticked: a conflict is left out unless ticked (applying it would refuse). */
  worktreeConflictsTicked: string[];
  /** `creating`, `applying` or `discarding`: one action at a time. */
  worktreeBusy: 'creating' | 'applying' | 'discarding' | null;
  worktreeError: string | null;
  /** APPLY_CONFLICT's files: nothing was written. */
  worktreeConflicts: ApplyConflictView[];
  /** The last apply: its group in the main folder's timeline. */
  worktreeApplied: { worktree: string; group_id: string; files: string[] } | null;
  /** Discard asked: what would be lost, shown before anything goes. */
  discardReport: WorktreeDiscardReportView | null;

  resetWorktreeSessions(): void;
  loadWorktreeSessions(): Promise<void>;
  worktreeSessionsChanged(sessions: WorktreeSessionView[]): void;
  newWorktreeSession(name: string): Promise<boolean>;
  /** Opens the session's chat and its review. */
  selectWorktreeSession(worktree: string): Promise<void>;
  loadWorktreeChanges(): Promise<void>;
  toggleWorktreeFile(file: string): void;
  openWorktreeFileDiff(file: string): Promise<void>;
  applyWorktree(): Promise<void>;
  askDiscardWorktree(): Promise<void>;
  confirmDiscardWorktree(): Promise<void>;
  cancelDiscardWorktree(): void;
  dismissWorktreeMessage(): void;
}

/** The files an apply would write: every change not unticked, and the conflicts the person ticked. */
export function tickedFiles(changes: WorktreeChangesView, excluded: readonly string[], conflictsTicked: readonly string[]): string[] {
  return [...changes.files.map((f) => f.file).filter((f) => !excluded.includes(f)), ...changes.conflicts.map((c) => c.file).filter((f) => conflictsTicked.includes(f))];
}

const fresh = () => ({
  worktreeSessions: [] as WorktreeSessionView[],
  selectedWorktree: null,
  worktreeChanges: null,
  worktreeChangesError: null,
  worktreeExcluded: [] as string[],
  worktreeConflictsTicked: [] as string[],
  worktreeBusy: null,
  worktreeError: null,
  worktreeConflicts: [] as ApplyConflictView[],
  worktreeApplied: null,
  discardReport: null,
});

export const createWorktreeSessionsSlice: SliceCreator<WorktreeSessionsSlice> = (set, get, { client }) => {
  /** Only the newest review fetch lands. */
  let changesSeq = 0;
  const run = async (busy: 'creating' | 'applying' | 'discarding', work: () => Promise<void>): Promise<boolean> => {
    if (get().worktreeBusy) return false;
    set({ worktreeBusy: busy, worktreeError: null, worktreeConflicts: [] });
    try {
      await work();
      return true;
    } catch (err) {
      if (err instanceof HostRequestError && err.code === 'APPLY_CONFLICT') set({ worktreeConflicts: conflictsOf(err.details) });
      set({ worktreeError: errorMessage(err) });
      return false;
    } finally {
      set({ worktreeBusy: null });
    }
  };

  return {
    ...fresh(),

    resetWorktreeSessions() {
      changesSeq++;
      set(fresh());
    },

    async loadWorktreeSessions() {
      try {
        set({ worktreeSessions: await client.request('worktree.sessions', undefined) });
      } catch {
        // No folder (or no repository): no worktree sessions.
        set({ worktreeSessions: [] });
      }
    },

    worktreeSessionsChanged(sessions) {
      const selected = get().selectedWorktree;
      const before = get().worktreeSessions.find((s) => s.worktree === selected);
      const after = sessions.find((s) => s.worktree === selected);
      set({ worktreeSessions: sessions, ...(selected && !after ? { selectedWorktree: null, worktreeChanges: null, discardReport: null } : {}) });
      // The selected worktree's lines moved: its review follows.
      if (after && before && (after.files !== before.files || after.added !== before.added || after.removed !== before.removed)) void get().loadWorktreeChanges();
    },

    async newWorktreeSession(name) {
      let made: WorktreeSessionView | null = null;
      const ok = await run('creating', async () => {
        made = await client.request('worktree.newSession', { name: name.trim() });
      });
      if (!ok || !made) return false;
      const view: WorktreeSessionView = made;
      set((s) => ({ worktreeSessions: [...s.worktreeSessions.filter((x) => x.worktree !== view.worktree), view].sort((a, b) => a.worktree.localeCompare(b.worktree)) }));
      await get().selectWorktreeSession(view.worktree);
      return true;
    },

    async selectWorktreeSession(worktree) {
      const row = get().worktreeSessions.find((s) => s.worktree === worktree);
      if (!row) return;
      const other = get().selectedWorktree !== worktree;
      set({ selectedWorktree: worktree, ...(other ? { worktreeChanges: null, worktreeChangesError: null, worktreeExcluded: [], worktreeConflictsTicked: [], worktreeError: null, worktreeConflicts: [], worktreeApplied: null, discardReport: null } : {}) });
      // Another worktree's file in the diff view would read as this one's.
      const shown = get().diff?.target;
      if (other && shown?.kind === 'worktree' && shown.name !== worktree) get().closeDiff();
      if (row.session_id) {
        await get().openChatSession(row.session_id);
        get().setAgentPanelTab('agent');
      }
      // The review follows; the chat is what the next keystroke needs.
      void get().loadWorktreeChanges();
    },

    async loadWorktreeChanges() {
      const name = get().selectedWorktree;
      const row = get().worktreeSessions.find((s) => s.worktree === name);
      if (!name || !row || row.missing) return;
      const mine = ++changesSeq;
      try {
        const view = await client.request('worktree.changes', { name });
        if (mine === changesSeq) set({ worktreeChanges: view, worktreeChangesError: null });
      } catch (err) {
        if (mine === changesSeq) set({ worktreeChangesError: errorMessage(err) });
      }
    },

    toggleWorktreeFile(file) {
      if (get().worktreeChanges?.conflicts.some((c) => c.file === file)) {
        set((s) => ({ worktreeConflictsTicked: s.worktreeConflictsTicked.includes(file) ? s.worktreeConflictsTicked.filter((f) => f !== file) : [...s.worktreeConflictsTicked, file] }));
        return;
      }
      set((s) => ({ worktreeExcluded: s.worktreeExcluded.includes(file) ? s.worktreeExcluded.filter((f) => f !== file) : [...s.worktreeExcluded, file] }));
    },

    async openWorktreeFileDiff(file) {
      const name = get().selectedWorktree;
      if (name) await get().openWorktreeDiff(name, file);
    },

    async applyWorktree() {
      const name = get().selectedWorktree;
      const changes = get().worktreeChanges;
      if (!name || !changes) return;
      const all = [...changes.files.map((f) => f.file), ...changes.conflicts.map((c) => c.file)];
      const chosen = tickedFiles(changes, get().worktreeExcluded, get().worktreeConflictsTicked);
      // Everything ticked: the whole plan, so a ticked conflict refuses it and is shown; else the chosen files only.
      const files = chosen.length === all.length ? undefined : chosen;
      await run('applying', async () => {
        const done = await client.request('worktree.apply', { name, ...(files ? { files } : {}) });
        set({ worktreeApplied: { worktree: name, ...done } });
        // Its group shows in the main folder's timeline.
        get().setAgentPanelTab('changes');
        get().setReviewFilters({ group: done.group_id });
        void get().loadModifications();
      });
      void get().loadWorktreeChanges();
    },

    async askDiscardWorktree() {
      const name = get().selectedWorktree;
      if (!name) return;
      await run('discarding', async () => {
        set({ discardReport: await client.request('worktree.discardReport', { name }) });
      });
    },

    async confirmDiscardWorktree() {
      const report = get().discardReport;
      if (!report) return;
      const ok = await run('discarding', async () => {
        await client.request('worktree.discard', { name: report.worktree, digest: report.digest });
      });
      if (!ok) {
        // WORKTREE_CHANGED: the new report is shown to be confirmed again.
        const name = report.worktree;
        set({ discardReport: await client.request('worktree.discardReport', { name }).catch(() => null) });
        return;
      }
      const wasOpen = get().worktreeSessions.find((s) => s.worktree === report.worktree)?.session_id === get().chatSessionId;
      set((s) => ({ discardReport: null, selectedWorktree: null, worktreeChanges: null, worktreeSessions: s.worktreeSessions.filter((x) => x.worktree !== report.worktree) }));
      if (wasOpen) set({ chatSessionId: null, chatItems: [], chatRunning: null });
    },

    cancelDiscardWorktree() {
      set({ discardReport: null });
    },

    dismissWorktreeMessage() {
      set({ worktreeError: null, worktreeConflicts: [], worktreeApplied: null });
    },
  };
};
