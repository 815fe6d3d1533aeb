// Which paths of the workspace changed since the last snapshot, as the watcher saw them, and
// whether it saw all of it (docs/architecture.md, "What a command wrote"). A snapshot may look
// at only these paths when the journal can promise three things for the whole interval: the
// watcher covered the tree (its walk was done and nothing failed), every event up to now has
// arrived (a cookie file written now has come back through the same inotify queue, and the
// folders made meanwhile are watched), and the kernel dropped none (fewer events than its queue
// holds: Linux drops events past `max_queued_events` and Node never says so). When it cannot
// promise them, the snapshot walks the whole tree, as it does without a watcher.
import { readFileSync } from 'node:fs';

/** What a watcher tells the journal about the tree it watches. */
export interface JournalSource {
  /** Paths the OS named, as they arrive (each path one event or more). */
  paths(paths: readonly string[]): void;
  /** The watcher covers the whole tree from now on; `idle` waits until folders made since are watched too. */
  ready(idle: () => Promise<void>): void;
  /** Events may have been missed (a folder could not be watched, a watch failed). */
  lost(): void;
  /** A folder the watcher leaves unwatched (`node_modules`): its changes are never events. */
  blind(rel: string): void;
  /** The watcher stopped. */
  detach(): void;
}

export interface JournalTake {
  /** Workspace-relative paths that changed (the top `.git/` and Loupe's own `.loupe/` left out). */
  paths: string[];
  /** True when these are all the paths that changed in the interval. */
  complete: boolean;
}

interface Feed {
  ready: boolean;
  lost: boolean;
  idle: () => Promise<void>;
}

/** git's folder and Loupe's at the top: never in a snapshot (a nested repository's `.git` is, as its entry). */
const OWN = /^\.(git|loupe)(\/|$)/;

/**
 * Paths kept at most between two snapshots: past it the next snapshot walks anyway (it narrows
 * for far fewer), so the set is dropped rather than grow while the app sits open for hours.
 */
const MAX_KEPT = 10_000;

/** How long a cookie may take to come back before the journal is not trusted. */
const COOKIE_MS = 500;

/**
 * Half of the kernel's queue: an interval with fewer events than that cannot have overflowed it
 * (an overflow means the queue filled, and every event in it is read before the cookie).
 */
export function eventLimit(file = '/proc/sys/fs/inotify/max_queued_events'): number {
  try {
    const n = Number(readFileSync(file, 'utf8').trim());
    return Number.isFinite(n) && n > 0 ? Math.floor(n / 2) : 8192;
  } catch {
    return 8192;
  }
}

export class ChangeJournal {
  private feed: Feed | null = null;
  private dirty = new Set<string>();
  private events = 0;
  /** Nothing was missed since the last take (the watcher was ready and stayed whole). */
  private clean = false;
  private readonly blindDirs = new Set<string>();
  private readonly cookies = new Map<string, () => void>();

  constructor(private readonly limit = eventLimit()) {}

  /** A watcher starts feeding the journal; a second one replaces the first. */
  attach(): JournalSource {
    const feed: Feed = { ready: false, lost: false, idle: () => Promise.resolve() };
    this.feed = feed;
    this.clean = false;
    const mine = () => this.feed === feed;
    return {
      paths: (paths) => {
        if (!mine()) return;
        this.events += paths.length;
        for (const p of paths) {
          const cookie = this.cookies.get(p);
          if (cookie) cookie();
          else if (!OWN.test(p)) this.dirty.add(p);
        }
        if (this.dirty.size > MAX_KEPT) {
          this.dirty.clear();
          this.clean = false;
        }
      },
      ready: (idle) => {
        if (!mine()) return;
        feed.ready = true;
        feed.idle = idle;
      },
      lost: () => {
        if (!mine()) return;
        feed.lost = true;
        this.clean = false;
      },
      blind: (rel) => {
        // git's own folder and Loupe's are never in a snapshot: only a `node_modules` matters.
        if (mine() && !OWN.test(rel)) this.blindDirs.add(rel);
      },
      detach: () => {
        if (!mine()) return;
        this.feed = null;
        this.clean = false;
      },
    };
  }

  /** A watcher covers the tree and has missed nothing since it started. */
  get live(): boolean {
    return !!this.feed && this.feed.ready && !this.feed.lost;
  }

  /** Folders no event speaks for (any `node_modules` seen so far). */
  get blind(): string[] {
    return [...this.blindDirs];
  }

  /**
   * Waits until every change made before this call is in the journal: `write` writes the cookie
   * file whose workspace-relative path is `rel` (in a watched folder). False when it cannot say.
   */
  async flush(rel: string, write: () => Promise<void>, timeoutMs = COOKIE_MS): Promise<boolean> {
    const feed = this.feed;
    if (!feed || !this.live) return false;
    let timer: NodeJS.Timeout | undefined;
    const back = new Promise<boolean>((resolve) => {
      this.cookies.set(rel, () => resolve(true));
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    try {
      await write();
      if (!(await back)) {
        // Not back in time: this interval cannot be promised whole.
        this.clean = false;
        return false;
      }
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
      this.cookies.delete(rel);
    }
    await feed.idle();
    return this.live && this.feed === feed;
  }

  /** The paths since the last take, and whether they are all; starts the next interval. */
  take(): JournalTake {
    const complete = this.clean && this.live && this.events < this.limit;
    const paths = [...this.dirty];
    this.dirty = new Set();
    this.events = 0;
    this.clean = this.live;
    return { paths, complete };
  }

  /** A snapshot that used a take failed: its paths count again and the next one walks the tree. */
  giveBack(take: JournalTake): void {
    for (const p of take.paths) this.dirty.add(p);
    this.clean = false;
  }
}
