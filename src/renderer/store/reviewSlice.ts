import type { DiffSides, ModificationStatus, ModificationView } from '../../shared/contract';
import { errorMessage, HostRequestError } from '../host-client';
import { commitMessageFor } from '../review/commitMessage';
import { awaitsCommit } from '../review/format';
import type { SliceCreator } from './types';

/**
 * `approval`: an edit still waiting for the person's yes (ask before edits), shown before anything is written.
 * `worktree`: a file a worktree session changed, against the commit it shares with the main folder.
 */
export type DiffTarget = { kind: 'modification'; id: string } | { kind: 'file'; path: string } | { kind: 'approval'; id: string } | { kind: 'worktree'; name: string; path: string };

export interface OpenDiff {
  target: DiffTarget;
  status: 'loading' | 'ready' | 'error';
  /** The last sides fetched; kept while a refetch is in flight so the editor does not blank. */
  sides: DiffSides | null;
  error: string | null;
}

export interface ReviewFilters {
  /** Substring of the correlation id, case-insensitive. */
  correlation: string;
  /** Substring of the workspace-relative path, case-insensitive. */
  file: string;
  status: ModificationStatus | '';
  /** A group's id (a command's writes, an undo), exactly; '' for any. */
  group: string;
  /** A subagent's id (its changes only), `self` for the sessions' own changes, '' for any. */
  agent?: string;
}

/** The ids in ROLLBACK_CONFLICT's `details.blocking`, distinct, without the one being reversed. */
export function blockingOf(details: Record<string, unknown> | undefined, self: string): string[] {
  const list = Array.isArray(details?.blocking) ? details.blocking : [];
  return [...new Set(list.filter((b): b is string => typeof b === 'string' && b !== self))];
}

/** A rollback or hunk revert the host refused because later modifications touched the file. */
export interface ReviewConflict {
  modificationId: string;
  message: string;
  /** The later modifications in the way, from the error's `details.blocking`. */
  blockers: string[];
}

export type ReviewAction = 'approve' | 'rollback' | 'group' | `hunk:${number}`;

/** What "commit approved" made: the new HEAD and the files in it. */
export interface CommitResult {
  commit: string;
  files: string[];
}

export interface ReviewSlice {
  /** The folded log, newest first, as the host last sent it. */
  modifications: ModificationView[];
  modificationsTotal: number;
  timelineStatus: 'idle' | 'loading' | 'ready' | 'error';
  timelineError: string | null;
  reviewFilters: ReviewFilters;
  /** The timeline's keyboard cursor. */
  selectedModificationId: string | null;
  diff: OpenDiff | null;
  diffLayout: 'side-by-side' | 'inline';
  /** The action in flight on the open modification, one at a time. */
  reviewBusy: ReviewAction | null;
  reviewError: string | null;
  conflict: ReviewConflict | null;
  /** The "commit approved" form's message; null while the form is closed. */
  commitDraft: string | null;
  commitBusy: boolean;
  /** The host's refusal, in its words (which files still have unapproved modifications, …). */
  commitError: string | null;
  commitResult: CommitResult | null;

  resetReview(): void;
  loadModifications(): Promise<void>;
  /** `modlog.changed`: re-fetch, debounced so a burst of appends costs one request. */
  modlogChanged(): void;
  setReviewFilters(filters: Partial<ReviewFilters>): void;
  selectModification(id: string | null): void;
  openModification(id: string): Promise<void>;
  openFileDiff(path: string): Promise<void>;
  /** A worktree session's change to one file, base → worktree. */
  openWorktreeDiff(name: string, path: string): Promise<void>;
  /** Shows an edit waiting for approval in the centre pane, where Accept and Reject answer it. */
  openPendingEdit(approvalId: string): void;
  refreshDiff(): Promise<void>;
  closeDiff(): void;
  setDiffLayout(layout: 'side-by-side' | 'inline'): void;
  approveModification(id: string): Promise<void>;
  rollbackModification(id: string): Promise<void>;
  /** Rolls a whole group back as one step (a command's writes; for an undo, that is its redo). `from`: the modification whose diff is open. */
  rollbackGroup(groupId: string, from: string): Promise<void>;
  revertHunk(id: string, hunk: number): Promise<void>;
  /** Puts a reverted hunk back: rolls back the hunk rollback that reverted it. */
  restoreHunk(id: string, hunk: number): Promise<void>;
  dismissReviewMessage(): void;
  /** Opens the commit form with a message summarising the approved modifications. */
  openCommitForm(): void;
  setCommitDraft(message: string): void;
  cancelCommit(): void;
  commitApproved(): Promise<void>;
  dismissCommitResult(): void;
}

export const REFETCH_DEBOUNCE_MS = 120;
/** Rows asked for before the rest of the timeline: more than any screen shows. */
export const TIMELINE_FIRST_SCREEN = 200;
const LAYOUT_KEY = 'loupe.review.diffLayout';

function storedLayout(): 'side-by-side' | 'inline' {
  try {
    return localStorage.getItem(LAYOUT_KEY) === 'inline' ? 'inline' : 'side-by-side';
  } catch {
    return 'side-by-side';
  }
}

/** The modifications the filters let through, order kept. */
export function filterModifications(list: ModificationView[], f: ReviewFilters): ModificationView[] {
  const corr = f.correlation.trim().toLowerCase();
  const file = f.file.trim().toLowerCase();
  const group = f.group ?? '';
  const agent = f.agent ?? '';
  if (!corr && !file && !f.status && !group && !agent) return list;
  return list.filter(
    (m) =>
      (!corr || (m.correlation_id ?? '').toLowerCase().includes(corr)) &&
      (!file || m.file.toLowerCase().includes(file)) &&
      (!f.status || m.status === f.status) &&
      (!group || m.group_id === group) &&
      (!agent || (agent === 'self' ? !m.agent_id : m.agent_id === agent)),
  );
}

/** What a newly opened folder starts with: its own log, nothing open (filters and layout stay). */
function freshReview() {
  return {
    modifications: [] as ModificationView[],
    modificationsTotal: 0,
    timelineStatus: 'idle' as const,
    timelineError: null,
    selectedModificationId: null,
    diff: null,
    reviewBusy: null,
    reviewError: null,
    conflict: null,
    commitDraft: null,
    commitBusy: false,
    commitError: null,
    commitResult: null,
  };
}

export const createReviewSlice: SliceCreator<ReviewSlice> = (set, get, { client }) => {
  let listSeq = 0;
  let diffSeq = 0;
  let debounce: ReturnType<typeof setTimeout> | null = null;

  const setStatus = (id: string, status: ModificationStatus) =>
    set((s) => ({ modifications: s.modifications.map((m) => (m.modification_id === id ? { ...m, status } : m)) }));

  const fetchDiff = async (target: DiffTarget): Promise<void> => {
    const mine = ++diffSeq;
    if (target.kind === 'approval') {
      // Both sides came with the question: nothing to fetch.
      const edit = get().approvals.find((a) => a.id === target.id)?.edit;
      if (!edit) set({ diff: null });
      else set({ diff: { target, status: 'ready', sides: { file: edit.path, language: edit.language, before: edit.before, after: edit.after, label: 'proposed edit · waiting for your approval' }, error: null } });
      return;
    }
    try {
      const sides =
        target.kind === 'modification'
          ? await client.request('modlog.diff', { modification_id: target.id })
          : target.kind === 'worktree'
            ? await client.request('worktree.fileDiff', { name: target.name, path: target.path })
            : await client.request('modlog.fileDiff', { path: target.path });
      if (mine === diffSeq) set({ diff: { target, status: 'ready', sides, error: null } });
    } catch (err) {
      if (mine === diffSeq) set({ diff: { target, status: 'error', sides: null, error: errorMessage(err) } });
    }
  };

  /** Rollback and hunk revert share their outcome handling: a conflict is explained, not thrown. */
  const reverse = async (id: string, action: ReviewAction, run: () => Promise<unknown>): Promise<boolean> => {
    if (get().reviewBusy) return false;
    set({ reviewBusy: action, reviewError: null, conflict: null });
    try {
      await run();
      return true;
    } catch (err) {
      if (err instanceof HostRequestError && err.code === 'ROLLBACK_CONFLICT') {
        set({ conflict: { modificationId: id, message: err.message, blockers: blockingOf(err.details, id) } });
      } else {
        set({ reviewError: errorMessage(err) });
      }
      return false;
    } finally {
      set({ reviewBusy: null });
    }
  };

  return {
    ...freshReview(),
    reviewFilters: { correlation: '', file: '', status: '', group: '', agent: '' },
    diffLayout: storedLayout(),

    resetReview() {
      listSeq++;
      diffSeq++;
      if (debounce) clearTimeout(debounce);
      debounce = null;
      set(freshReview());
    },

    async loadModifications() {
      const mine = ++listSeq;
      const first = get().timelineStatus !== 'ready';
      if (first) set({ timelineStatus: 'loading' });
      try {
        if (first) {
          // The first screen first: a long log's 10,000 newest rows cost the host, the socket
          // and the page a few hundred ms before anything shows; the rest follows at once.
          const head = await client.request('modlog.list', { limit: TIMELINE_FIRST_SCREEN });
          if (mine !== listSeq) return;
          set({ modifications: head.modifications, modificationsTotal: head.total, timelineStatus: 'ready', timelineError: null });
          if (head.modifications.length >= head.total) return;
        }
        const { modifications, total } = await client.request('modlog.list', {});
        if (mine !== listSeq) return;
        set({ modifications, modificationsTotal: total, timelineStatus: 'ready', timelineError: null });
      } catch (err) {
        if (mine !== listSeq) return;
        // A failed refresh keeps the entries already shown; only a first load shows the error.
        set((s) => ({ timelineStatus: s.timelineStatus === 'ready' ? 'ready' : 'error', timelineError: errorMessage(err) }));
      }
    },

    modlogChanged() {
      if (debounce) clearTimeout(debounce);
      debounce = setTimeout(() => {
        debounce = null;
        void get().loadModifications();
        // HEAD → now follows the file; a modification's own sides never change.
        if (get().diff?.target.kind === 'file') void get().refreshDiff();
      }, REFETCH_DEBOUNCE_MS);
    },

    setReviewFilters(filters) {
      set((s) => ({ reviewFilters: { ...s.reviewFilters, ...filters } }));
    },

    selectModification(id) {
      set({ selectedModificationId: id });
    },

    async openModification(id) {
      const target: DiffTarget = { kind: 'modification', id };
      // The previous sides stay up while the next load: the editor is not torn down in between.
      const keep = get().diff?.sides ?? null;
      set({ selectedModificationId: id, diff: { target, status: 'loading', sides: keep, error: null }, reviewError: null, conflict: null });
      await fetchDiff(target);
    },

    async openFileDiff(path) {
      const target: DiffTarget = { kind: 'file', path };
      const keep = get().diff?.sides ?? null;
      set({ diff: { target, status: 'loading', sides: keep, error: null }, reviewError: null, conflict: null });
      await fetchDiff(target);
    },

    async openWorktreeDiff(name, path) {
      const target: DiffTarget = { kind: 'worktree', name, path };
      const keep = get().diff?.sides ?? null;
      set({ diff: { target, status: 'loading', sides: keep, error: null }, reviewError: null, conflict: null });
      await fetchDiff(target);
    },

    openPendingEdit(approvalId) {
      set({ reviewError: null, conflict: null });
      void fetchDiff({ kind: 'approval', id: approvalId });
    },

    async refreshDiff() {
      const current = get().diff;
      if (current) await fetchDiff(current.target);
    },

    closeDiff() {
      diffSeq++;
      set({ diff: null, reviewError: null, conflict: null });
    },

    setDiffLayout(layout) {
      set({ diffLayout: layout });
      try {
        localStorage.setItem(LAYOUT_KEY, layout);
      } catch {
        // A preference that cannot be stored lasts the session.
      }
    },

    async approveModification(id) {
      if (get().reviewBusy) return;
      set({ reviewBusy: 'approve', reviewError: null, conflict: null });
      try {
        await client.request('modlog.approve', { modification_id: id });
        setStatus(id, 'approved');
        void get().loadModifications();
      } catch (err) {
        set({ reviewError: errorMessage(err) });
      } finally {
        set({ reviewBusy: null });
      }
    },

    async rollbackModification(id) {
      const ok = await reverse(id, 'rollback', () => client.request('modlog.rollback', { modification_id: id }));
      if (!ok) return;
      setStatus(id, 'rolled_back');
      void get().loadModifications();
    },

    async rollbackGroup(groupId, from) {
      const ok = await reverse(from, 'group', () => client.request('modlog.rollback', { modification_id: groupId }));
      if (ok) void get().loadModifications();
    },

    async revertHunk(id, hunk) {
      const ok = await reverse(id, `hunk:${hunk}`, () => client.request('modlog.revertHunk', { modification_id: id, hunk }));
      if (!ok) return;
      // Shown at once; the re-fetch brings the log's own reverted_hunks (and the hunk count).
      set((s) => ({
        modifications: s.modifications.map((m) =>
          m.modification_id === id ? { ...m, reverted_hunks: [...new Set([...(m.reverted_hunks ?? []), hunk])].sort((a, b) => a - b) } : m,
        ),
      }));
      void get().loadModifications();
    },

    async restoreHunk(id, hunk) {
      const mod = get().modifications.find((m) => m.modification_id === id);
      const by = mod?.reverted_hunks_by?.[mod.reverted_hunks?.indexOf(hunk) ?? -1];
      if (!by) return;
      const ok = await reverse(id, `hunk:${hunk}`, () => client.request('modlog.rollback', { modification_id: by }));
      if (!ok) return;
      set((s) => ({
        modifications: s.modifications.map((m) => {
          if (m.modification_id !== id || !m.reverted_hunks) return m;
          const keep = m.reverted_hunks.map((h, i) => [h, m.reverted_hunks_by?.[i]] as const).filter(([h]) => h !== hunk);
          return { ...m, reverted_hunks: keep.map(([h]) => h), reverted_hunks_by: keep.map(([, b]) => b ?? '') };
        }),
      }));
      void get().loadModifications();
    },

    dismissReviewMessage() {
      set({ reviewError: null, conflict: null });
    },

    openCommitForm() {
      const approved = get().modifications.filter(awaitsCommit);
      set({ commitDraft: commitMessageFor(approved), commitError: null, commitResult: null });
    },

    setCommitDraft(message) {
      set({ commitDraft: message });
    },

    cancelCommit() {
      if (get().commitBusy) return;
      set({ commitDraft: null, commitError: null });
    },

    async commitApproved() {
      const message = get().commitDraft;
      if (message === null || get().commitBusy) return;
      if (!message.trim()) {
        set({ commitError: 'Write a commit message first.' });
        return;
      }
      set({ commitBusy: true, commitError: null });
      try {
        const result = await client.request('modlog.commitApproved', { message });
        set({ commitDraft: null, commitResult: result });
        void get().loadModifications();
        // HEAD moved: a whole-file diff against it is stale.
        if (get().diff?.target.kind === 'file') void get().refreshDiff();
      } catch (err) {
        set({ commitError: errorMessage(err) });
      } finally {
        set({ commitBusy: false });
      }
    },

    dismissCommitResult() {
      set({ commitResult: null });
    },
  };
};
