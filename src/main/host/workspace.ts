// One open folder as the Host shows it: its services (built by the composition root), its
// watcher, the git badges and the notices. Knows nothing of transports.
import { lstat, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { GitBadge, HostEvents, TreeEntry, TreeListing, WorkspaceInfo } from '../../shared/contract';
import { InvalidArgumentError } from '../errors';
import { GitBadges } from '../services/git/gitBadges';
import { grep } from '../services/search/grep';

/** Matches find in files shows; the count says how many more there are. */
const SEARCH_LIMIT = 500;
import { isGitRepo } from '../services/git/gitStatus';
import { hasDevcontainer } from '../services/workspace/devcontainerConfig';
import { MAX_PATCH_PATHS, type FileIndex } from '../services/workspace/fileIndex';
import { CONFIG_REL, MCP_JSON_REL } from '../services/permissions/projectConfig';
import { parentOf, resolveInWorkspace } from '../services/workspace/pathGuard';
import type { ChangeBatch, WorkspaceWatcher } from '../services/workspace/watcher';
import { watchNotice } from '../services/workspace/watcher';
import type { WorkspaceServices } from '../workspace/compose';
import { ProblemsHost } from './problems';
import { LOG_REL, ReviewService } from './review';

/** Enough of a file's identity to tell that it was written, replaced or removed. */
const statKey = (root: string, rel: string): Promise<string> =>
  lstat(path.join(root, rel)).then(
    (s) => `${s.ino}:${s.size}:${s.mtimeMs}`,
    () => 'none',
  );

type Emit = <E extends keyof HostEvents>(event: E, payload: HostEvents[E]) => void;

/** Enough to say what is wrong; a watcher failing in a loop must not grow the list. */
const MAX_NOTICES = 20;
/** Without a watcher, how often the open folders are checked, and how many are kept as open. */
const RESCAN_MS = 2000;
const MAX_OPEN_DIRS = 500;
/** How long the watcher and the index wait for the first listing before they start anyway. */
export const INDEX_DELAY_MS = 1500;
/**
 * How long the page gets to draw the first listing before the watcher's subscription and the
 * index's walk (rg on every core) take the machine: at 100,000 files on two cores the page
 * drew its first rows 0.1-0.3 s after the answer, and starting at once cost it ~0.1 s.
 */
export const DRAW_FIRST_LISTING_MS = 400;
/** What a change before the watcher was subscribed could have touched unseen (see catchUp). */
const WATCHED_BEFORE = [CONFIG_REL, MCP_JSON_REL, LOG_REL] as const;
/**
 * Above this many paths in one batch (a checkout, an install) the events say "many" instead of
 * naming them: the page re-reads what it shows rather than parsing megabytes of names.
 */
const MAX_NAMED = 1000;

export class Workspace {
  readonly index: FileIndex;
  readonly review: ReviewService;
  readonly problems: ProblemsHost;
  private watcher: WorkspaceWatcher | null = null;
  private readonly badges: GitBadges;
  /** Subscribing walks every folder of the tree: the folder opens without it (see open). */
  private watching: Promise<void> = Promise.resolve();
  private disposed = false;
  /** Folders the UI listed (its open folders, most recent last) → the mtime the rescan last saw (0: not yet). */
  private readonly openDirs = new Map<string, number>();
  private rescanTimer: NodeJS.Timeout | null = null;
  /** Starts the background index once (see open); null once started. */
  private startIndex: (() => void) | null = null;
  /** The first listing was answered: the index starts DRAW_FIRST_LISTING_MS later. */
  private listedOnce = false;
  /** The root's listing, read while the page boots (see readAhead); taken by the first listing. */
  private rootAhead: Promise<TreeEntry[] | null> | null = null;
  /**
   * Settles once the first listing has been answered (or INDEX_DELAY_MS after the opening): the
   * first screen is up. Work the first screen does not need (a whole-tree git status for the
   * system prompt, the worktrees' git) waits for it.
   */
  readonly firstScreen: Promise<void>;
  private shown: () => void = () => undefined;
  private indexTimer: NodeJS.Timeout | null = null;
  private waitedForClient = false;
  private rescanning = false;
  /** Changed paths waiting for the next index update; one update runs at a time. */
  private readonly pendingPaths = new Set<string>();
  /** The next update walks the whole tree (a burst, an ignore rule of the whole tree, lost events). */
  private pendingWalk = false;
  private indexRunning = false;
  private indexAgain = false;

  private constructor(
    readonly info: WorkspaceInfo,
    readonly services: WorkspaceServices,
    private readonly emit: Emit,
    private readonly onConfigChanged: (root: string) => void,
  ) {
    this.index = services.index;
    this.firstScreen = new Promise((resolve) => (this.shown = resolve));
    this.review = new ReviewService(services.modlog, emit, services.lsp);
    this.problems = new ProblemsHost(info.root, services.lsp, emit);
    this.badges = new GitBadges(info.root, {
      // Once per change of the badges, however many batches of a burst asked for the run.
      onStatus: (status) => this.emit('tree.gitStatus', { status }),
      onSlow: (slow) => {
        // Kept in the info for clients that connect later, like the notices.
        info.git_slow = slow;
        this.emit('tree.gitSlow', { slow });
      },
    });
  }

  /**
   * `services`: the folder's services for its realpath (the composition root's, or those of
   * the same folder already open). `onConfigChanged`: `.loupe/config.json` was written,
   * replaced or removed (by anyone).
   */
  static async open(
    requested: string,
    emit: Emit,
    services: (root: string) => WorkspaceServices,
    onConfigChanged: (root: string) => void = () => undefined,
  ): Promise<Workspace> {
    let root: string;
    try {
      root = await realpath(path.resolve(requested));
    } catch {
      throw new InvalidArgumentError(`Folder not found: ${requested}`);
    }
    if (!(await stat(root)).isDirectory()) throw new InvalidArgumentError(`Not a folder: ${requested}`);
    const info: WorkspaceInfo = { root, name: path.basename(root) || root, isGitRepo: await isGitRepo(root), ...((await hasDevcontainer(root)) ? { devcontainer: true } : {}) };
    const ws = new Workspace(info, services(root), emit, onConfigChanged);
    const watcher = (ws.watcher = ws.services.watch(
      (batch) => void ws.onChanges(batch),
      (detail) => {
        ws.notice(watchNotice(detail));
        ws.startRescan();
        ws.lostEvents();
      },
    ));
    // The first screen lists folders directly; the full index builds behind it, and the
    // folders shown meanwhile are re-read from it once it is complete. Its count then follows
    // every change the watcher brings (the status bar's "N files" is the tree's).
    ws.index.onProgress(({ files, done }) => {
      ws.info.index_progress = { files, done };
      if (!ws.disposed) ws.emit('tree.indexProgress', { root, files, done });
    });
    const before = await Promise.all(WATCHED_BEFORE.map((rel) => statKey(root, rel)));
    ws.startIndex = () => {
      ws.startIndex = null;
      ws.shown();
      if (ws.indexTimer) clearTimeout(ws.indexTimer);
      // Watch, then walk: a change after the subscription reaches the index as a batch, one
      // before it is in the walk, so nothing falls between them.
      ws.watching = watcher.start();
      void ws.watching
        .then(async () => {
          if (ws.disposed) return;
          await ws.catchUp(before);
          await ws.index.start();
          const dirs = ws.index.takeServedDirect();
          if (dirs.length && !ws.disposed) ws.emit('tree.changed', { dirs });
        })
        .catch(() => undefined);
    };
    // The watcher's subscription and the index's walk each take the disk and the cores for a
    // while at 100k files (0.25 s, 1 s): they start once the first listing has been answered
    // and drawn (the first screen), or after a moment if nobody asks.
    ws.startIndexIn(INDEX_DELAY_MS);
    return ws;
  }

  /**
   * A client asked which folder is open: it lists it next. On a loaded machine a page took more
   * than the fallback delay to boot, and the index's walk and the watcher's subscription then
   * started just before its first listing and slowed it. Once, the fallback starts over.
   */
  expectListing(): void {
    if (!this.startIndex || !this.indexTimer || this.waitedForClient || this.listedOnce) return;
    this.waitedForClient = true;
    this.startIndexIn(INDEX_DELAY_MS);
  }

  /** (Re)sets when the index and the watcher start, unless they already have. */
  private startIndexIn(ms: number): void {
    if (this.indexTimer) clearTimeout(this.indexTimer);
    this.indexTimer = setTimeout(() => this.startIndex?.(), ms);
    this.indexTimer.unref();
  }

  /**
   * What the watcher would have said had it been there from the start: the config or the log
   * written (by another process) between the folder's opening and the subscription.
   */
  private async catchUp(before: string[]): Promise<void> {
    const now = await Promise.all(WATCHED_BEFORE.map((rel) => statKey(this.info.root, rel)));
    const changed = WATCHED_BEFORE.filter((_, i) => now[i] !== before[i]);
    if (changed.length) await this.onChanges({ paths: [...changed] });
  }

  /**
   * A page is about to load and list the root: reads it now, while the page fetches and
   * evaluates its code. At 100,000 files the listing (rg and git check-ignore) then answered
   * beside a dozen other first questions and took ~0.13 s; read ahead it is waiting when asked.
   */
  readAhead(): void {
    if (this.listedOnce || this.rootAhead || this.disposed) return;
    this.rootAhead = this.index.list('').catch(() => null);
  }

  /**
   * The root's listing for a page being served: the one read ahead, left for the page's own
   * tree.list (the same listing, so the page has nothing to redraw), or a listing now.
   */
  async firstListing(): Promise<TreeListing> {
    const ahead = this.rootAhead && !this.index.isReady ? await this.rootAhead : null;
    return ahead ? { dir: '', entries: ahead } : this.list('');
  }

  resolve(requested: string) {
    return resolveInWorkspace(this.info.root, requested);
  }

  async list(dir: string): Promise<TreeListing> {
    const { rel } = await this.resolve(dir);
    const entries = (await this.takeAhead(rel)) ?? (await this.index.list(rel));
    if (this.startIndex && !this.listedOnce) {
      this.listedOnce = true;
      this.startIndexIn(DRAW_FIRST_LISTING_MS);
    }
    // The rescan owns the mtime: a folder opened now is read once on the next rescan (the index
    // may be older than the disk), then whenever its mtime moves.
    const seen = this.openDirs.get(rel) ?? 0;
    this.openDirs.delete(rel);
    this.openDirs.set(rel, seen);
    if (this.openDirs.size > MAX_OPEN_DIRS) this.openDirs.delete(this.openDirs.keys().next().value!);
    return { dir: rel, entries };
  }

  /**
   * The listing read ahead, while it is as current as a listing asked now would be: before the
   * index is complete, a listing is read from the disk either way, and the index's completion
   * has the page re-read it (takeServedDirect). Once complete, the index answers.
   */
  private async takeAhead(rel: string): Promise<TreeEntry[] | null> {
    const ahead = rel === '' ? this.rootAhead : null;
    if (!ahead) return null;
    this.rootAhead = null;
    const entries = await ahead;
    return this.index.isReady ? null : entries;
  }

  /**
   * Without a working watcher (the inotify limit, a folder the OS will not watch), the folders
   * the UI has open are still kept current: every few seconds a stat of each tells which ones
   * gained or lost an entry, and those are re-read and sent as `tree.changed`.
   */
  private startRescan(): void {
    if (this.rescanTimer || this.disposed) return;
    this.rescanTimer = setInterval(() => void this.rescan(), RESCAN_MS);
    this.rescanTimer.unref();
  }

  private async rescan(): Promise<void> {
    if (this.rescanning || this.disposed) return;
    this.rescanning = true;
    try {
      const moved: string[] = [];
      for (const [rel, seen] of this.openDirs) {
        const now = await stat(path.join(this.info.root, rel)).then((s) => s.mtimeMs, () => -1);
        if (now !== seen) {
          this.openDirs.set(rel, now);
          moved.push(rel);
        }
      }
      if (!moved.length) return;
      const dirs = await this.index.refreshDirs(moved).catch(() => [] as string[]);
      if (dirs.length && !this.disposed) this.emit('tree.changed', { dirs });
      if (this.info.isGitRepo) await this.refreshStatus();
    } finally {
      this.rescanning = false;
    }
  }

  /** Find in files, for the person: ripgrep through the grep tool's service, literal unless asked otherwise. */
  async searchText(query: string, opts: { regex: boolean; caseSensitive: boolean }): Promise<{ matches: { path: string; line: number; text: string }[]; total: number }> {
    if (!query) return { matches: [], total: 0 };
    const project = await this.services.project.load();
    const pattern = opts.regex ? query : query.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const r = await grep(this.info.root, { pattern, outputMode: 'content', headLimit: SEARCH_LIMIT, caseInsensitive: !opts.caseSensitive, exclude: project.config.search?.exclude ?? [], timeoutMs: 10_000 });
    if (r.mode !== 'content') return { matches: [], total: 0 };
    return { matches: r.lines.filter((l) => l.kind === 'match').map((l) => ({ path: l.path, line: l.line, text: l.text.slice(0, 400) })), total: r.total };
  }

  async gitStatus(): Promise<Record<string, GitBadge>> {
    if (!this.info.isGitRepo) return {};
    await this.refreshStatus();
    return this.badges.status;
  }

  /** Kept in the workspace info for clients that connect later, and sent to those connected now. */
  notice(message: string): void {
    const notices = (this.info.notices ??= []);
    if (this.disposed || notices.includes(message) || notices.length >= MAX_NOTICES) return;
    notices.push(message);
    this.emit('workspace.notice', { root: this.info.root, message });
  }

  private async onChanges(batch: ChangeBatch): Promise<void> {
    if (this.disposed) return;
    void this.review.onPaths(batch.paths).catch(() => undefined);
    if (batch.paths.some((p) => p === '.loupe' || p === CONFIG_REL || p === MCP_JSON_REL)) this.onConfigChanged(this.info.root);
    const inTree = batch.paths.filter((p) => !p.startsWith('.git/') && p !== '.git' && !p.startsWith('.loupe/'));
    // The repository's own files: its info/exclude holds ignore rules of the whole tree, and
    // any other change (the index, HEAD, refs: a checkout, a commit, a stage) asks for the
    // whole status. Lock files come and go around the change itself.
    const inGit = batch.paths.filter((p) => (p === '.git' || p.startsWith('.git/')) && !p.endsWith('.lock'));
    if (inTree.length) this.emit('file.changed', inTree.length > MAX_NAMED ? { paths: [], truncated: true } : { paths: inTree });
    const rulesChanged = inGit.some((p) => p === '.git' || p === '.git/info' || p === '.git/info/exclude');
    if (inTree.length || rulesChanged) {
      if (rulesChanged) this.pendingWalk = true;
      for (const p of inTree) this.pendingPaths.add(p);
      if (this.pendingPaths.size > MAX_PATCH_PATHS) this.pendingWalk = true;
      if (this.pendingWalk) this.pendingPaths.clear();
      this.updateIndex();
    }
    if (!this.info.isGitRepo) return;
    // A chat saved or a command's output kept makes .loupe/ before any modification does; the
    // exclude file it writes comes back as a change in .git, which asks for the whole status.
    if (batch.paths.some((p) => p === '.loupe' || p.startsWith('.loupe/'))) await this.services.modlog.excludeFromGit().catch(() => undefined);
    if (inGit.length) await this.badges.refresh();
    else if (inTree.length) await this.badges.refreshPaths(inTree);
  }

  /**
   * The watcher missed changes (it failed, or watches only part of the tree): walk once, ask
   * git once. An index not built yet reads the disk as it is when it walks.
   */
  private lostEvents(): void {
    if (this.disposed) return;
    if (this.index.isReady) {
      this.pendingWalk = true;
      this.pendingPaths.clear();
      this.updateIndex();
    }
    if (this.info.isGitRepo) void this.badges.refresh();
  }

  /**
   * The one place watcher batches ask the file index to catch up: patched from the paths
   * (FileIndex.patch) when they are few, walked whole otherwise. One update at a time: the
   * batches of a burst that arrive while it runs share the one after it, so a checkout costs
   * two walks, not one per batch. A failed update changes nothing.
   */
  private updateIndex(): void {
    if (this.indexRunning) return void (this.indexAgain = true);
    this.indexRunning = true;
    void (async () => {
      do {
        this.indexAgain = false;
        const paths = [...this.pendingPaths];
        const walk = this.pendingWalk;
        this.pendingPaths.clear();
        this.pendingWalk = false;
        let dirs = walk ? null : await this.index.patch(paths).catch(() => null);
        const walked = dirs === null;
        // rg lists files only: a folder made or removed empty changes no rg listing, so after
        // a walk the parents of whatever changed are re-listed too (the page re-reads loaded ones only).
        dirs ??= [...new Set([...(await this.index.refresh().catch(() => [] as string[])), ...paths.map(parentOf)])];
        if (this.disposed) break;
        if (walked || dirs.length) this.emit('tree.changed', dirs.length > MAX_NAMED ? { dirs: [], all: true } : { dirs });
      } while (this.indexAgain);
      this.indexRunning = false;
    })();
  }

  /** Coalesced and spaced by GitBadges: one git at a time plus one queued, bounded by a timeout. */
  private refreshStatus(): Promise<void> {
    return this.badges.refresh();
  }

  /** Stops this view's watcher; the services go with `services.dispose()` when nobody shares them. */
  async dispose(): Promise<void> {
    this.disposed = true;
    this.startIndex = null;
    this.shown();
    if (this.indexTimer) clearTimeout(this.indexTimer);
    if (this.rescanTimer) clearInterval(this.rescanTimer);
    await this.watching;
    this.badges.dispose();
    this.problems.dispose();
    await this.watcher?.stop();
  }
}
