import type { GitBadge, TreeEntry, TreeListing } from '../../shared/contract';
import { errorMessage, HostRequestError } from '../host-client';
import { parentOf } from '../tree/flatten';
import { changedAncestors, normaliseStatus } from '../tree/gitDecorations';
import { sortEntries } from '../tree/sortEntries';
import type { SliceCreator } from './types';

export interface TreeSlice {
  /** Sorted children of every directory listed so far ('' is the root). */
  listings: Record<string, TreeEntry[]>;
  expanded: Record<string, boolean>;
  loadingDirs: Record<string, boolean>;
  treeError: string | null;
  gitStatus: Record<string, GitBadge>;
  /** Folders with changes somewhere beneath them, with the badge that matters most. */
  gitDirs: Record<string, GitBadge>;
  /** Changed files (ignored ones not counted), counted once per status, not per render. */
  gitChanges: number;
  /** git status hit its time bound in this folder: the badges may be stale. */
  gitSlow: boolean;
  /** The keyboard cursor / highlighted row. */
  selectedPath: string | null;
  /** The background file index of the open folder; null before any word of it. */
  indexProgress: { files: number; done: boolean } | null;

  resetTree(): void;
  /** `asked`: the listing already asked for (the first screen's root, see initWorkspace). */
  loadDir(dir: string, asked?: Promise<TreeListing>): Promise<void>;
  toggleDir(dir: string): void;
  expandDir(dir: string): void;
  collapseDir(dir: string): void;
  refreshDirs(dirs: string[]): Promise<void>;
  /** The explorer's refresh button: every listed dir and the badges, asked again. */
  refreshTree(): Promise<void>;
  collapseAll(): void;
  loadGitStatus(): Promise<void>;
  setGitStatus(status: Record<string, GitBadge>): void;
  setGitSlow(slow: boolean): void;
  indexProgressed(root: string, files: number, done: boolean): void;
  selectPath(path: string | null): void;
  /** Click or Enter on a row: files open in the viewer, folders toggle. */
  activatePath(path: string, kind: 'file' | 'dir'): void;
}

const sameEntries = (a: TreeEntry[] | undefined, b: TreeEntry[]): boolean =>
  a !== undefined && a.length === b.length && a.every((e, i) => e.path === b[i].path && e.kind === b[i].kind);

const isUnder = (path: string, dir: string): boolean => path === dir || path.startsWith(dir + '/');

function without<T>(record: Record<string, T>, dir: string): Record<string, T> {
  const out: Record<string, T> = {};
  for (const [k, v] of Object.entries(record)) if (!isUnder(k, dir)) out[k] = v;
  return out;
}

export const createTreeSlice: SliceCreator<TreeSlice> = (set, get, { client }) => {
  // Latest request per dir wins: a refresh that overtakes an older listing must not be undone by it.
  const generation = new Map<string, number>();

  return {
    listings: {},
    expanded: {},
    loadingDirs: {},
    treeError: null,
    gitStatus: {},
    gitDirs: {},
    gitChanges: 0,
    gitSlow: false,
    selectedPath: null,
    indexProgress: null,

    resetTree() {
      generation.clear();
      set({ listings: {}, expanded: {}, loadingDirs: {}, treeError: null, gitStatus: {}, gitDirs: {}, gitChanges: 0, gitSlow: false, selectedPath: null, indexProgress: null });
    },

    async loadDir(dir, asked) {
      const gen = (generation.get(dir) ?? 0) + 1;
      generation.set(dir, gen);
      const root = get().workspace?.root;
      set((s) => ({ loadingDirs: { ...s.loadingDirs, [dir]: true } }));
      const current = () => generation.get(dir) === gen && get().workspace?.root === root;
      try {
        const listing = await (asked ?? client.request('tree.list', { dir }));
        if (!current()) return;
        const entries = sortEntries(listing.entries);
        // The same entries again (the boot data's listing confirmed): nothing to redraw.
        if (sameEntries(get().listings[dir], entries) && (dir !== '' || get().treeError === null)) return;
        set((s) => ({ listings: { ...s.listings, [dir]: entries }, treeError: dir === '' ? null : s.treeError }));
      } catch (err) {
        if (!current()) return;
        if (dir !== '' && err instanceof HostRequestError && (err.code === 'FILE_NOT_FOUND' || err.code === 'INVALID_PATH')) {
          // The folder went away on disk: forget it and everything we knew beneath it.
          set((s) => ({ listings: without(s.listings, dir), expanded: without(s.expanded, dir) }));
        } else if (dir === '') {
          set({ treeError: errorMessage(err) });
        }
      } finally {
        if (generation.get(dir) === gen) {
          set((s) => {
            const { [dir]: _done, ...rest } = s.loadingDirs;
            return { loadingDirs: rest };
          });
        }
      }
    },

    toggleDir(dir) {
      if (get().expanded[dir]) get().collapseDir(dir);
      else get().expandDir(dir);
    },

    expandDir(dir) {
      set((s) => ({ expanded: { ...s.expanded, [dir]: true } }));
      if (!get().listings[dir]) void get().loadDir(dir);
    },

    collapseDir(dir) {
      set((s) => {
        const { [dir]: _closed, ...rest } = s.expanded;
        return { expanded: rest };
      });
    },

    async refreshDirs(dirs) {
      const { listings, openFile } = get();
      const loaded = dirs.filter((d) => listings[d] !== undefined);
      const jobs = loaded.map((d) => get().loadDir(d));
      if (openFile && dirs.includes(parentOf(openFile.path))) jobs.push(get().reloadOpenFile());
      await Promise.all(jobs);
    },

    async refreshTree() {
      await Promise.all([get().refreshDirs(Object.keys(get().listings)), get().loadGitStatus()]);
    },

    collapseAll() {
      set({ expanded: {} });
    },

    async loadGitStatus() {
      if (!get().workspace?.isGitRepo) return;
      // A client that connects while git is slow hears it from the info, not from an event.
      if (get().workspace?.git_slow) set({ gitSlow: true });
      try {
        get().setGitStatus(await client.request('tree.gitStatus', undefined));
      } catch {
        // Badges are decoration; a failing git must not break browsing.
      }
    },

    indexProgressed(root, files, done) {
      // A folder closed meanwhile may still report; only the open one's index counts.
      if (get().workspace?.root !== root) return;
      set({ indexProgress: { files, done } });
    },

    setGitStatus(status) {
      const normalised = normaliseStatus(status);
      let changes = 0;
      for (const b of Object.values(normalised)) if (b !== '!') changes++;
      set({ gitStatus: normalised, gitDirs: changedAncestors(normalised), gitChanges: changes });
    },

    setGitSlow(slow) {
      set({ gitSlow: slow });
    },

    selectPath(path) {
      set({ selectedPath: path });
    },

    activatePath(path, kind) {
      set({ selectedPath: path });
      if (kind === 'dir') get().toggleDir(path);
      else void get().openFilePath(path);
    },
  };
};
