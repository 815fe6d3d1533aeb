// Snapshots of the workspace's files that git does not ignore, as trees in a private git folder
// (docs/architecture.md, "What a command wrote"). `git add -A` into a private index is
// incremental — git's stat cache hashes only files whose stat changed — so a snapshot before
// and after a command costs a stat of the tree, and the two trees say what the command created,
// changed, deleted and renamed. The folder is this process's own (`.loupe/snapshots/<pid>-…`):
// made fresh, seeded from the repository's own index (whose objects it borrows through
// `alternates`), removed on dispose; one left by a dead process is swept. Nothing in it is
// trusted from disk: a clone cannot plant an index or objects here that a snapshot would read.
// Every filter, text conversion and driver is switched off by the private `info/attributes`
// (which outranks every .gitattributes), so git stores the exact bytes and runs no program.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { ensureDirInside, readdirInside, removeTreeInside, writeAtomicInside } from '../files/safeWrite';
import { lstatInside, readInside } from '../files/safeOpen';
import { GitRunner, type CatFileBatch } from '../git/gitRunner';
import type { ChangeJournal, JournalTake } from '../workspace/changeJournal';
import { toPosix } from '../workspace/pathGuard';
import { SnapshotError } from './errors';
import { LooseObjects, objectId } from './gitObjects';
import { pathSnapshot } from './pathSnapshot';
import { FOLDER, TreeModel, type EntryChange } from './treeModel';

/** One path's change between two snapshots (`git diff-tree --raw -M`). */
export interface TreeChange {
  /** A added, D deleted, M modified, T type changed (file ↔ link), R renamed. */
  status: 'A' | 'D' | 'M' | 'T' | 'R';
  /** The path after (for D: the path that went). */
  path: string;
  /** R: where it was renamed from. */
  from?: string;
  oldMode: string | null;
  newMode: string | null;
  oldOid: string | null;
  newOid: string | null;
}

export interface Snapshot {
  tree: string;
  /** Ignored entries as git lists them (a wholly ignored folder is one entry) → a stat stamp. */
  ignored: Map<string, string> | null;
}

const EMPTY_OID = /^0+$/;
/** Unsets every attribute that makes git rewrite bytes or run a program; outranks .gitattributes. */
const ATTRIBUTES = '* -filter -text -eol -ident -working-tree-encoding -diff -merge -crlf\n';
/** Settings of the private folder itself: exact bytes, no conversions. */
const CONFIG = '[core]\n\trepositoryformatversion = 0\n\tbare = true\n\tautocrlf = false\n\tsafecrlf = false\n\tsymlinks = true\n\tfilemode = true\n\tlogallrefupdates = false\n[gc]\n\tauto = 0\n';

/** The private folder is this process's scratch space, rebuilt on the next start: no fsync. */
const CACHE = { durable: false } as const;

/** More changed paths than this and the snapshot walks the tree: git's own walk is then as quick. */
const MAX_NARROW_PATHS = 2_000;

/** A change to one of these can change what is ignored anywhere below: the tree is walked. */
const IGNORE_FILE = /(^|\/)\.gitignore$/;

/** Contents hashed here kept for the capture that reads them next (it asks for the new side of each change). */
const RECENT_BYTES = 64 * 1024 * 1024;

/** Steps from one tree to the next kept for `diff`; an older pair is asked of git. */
const MAX_DELTAS = 32;

/** A tree whose listing is larger (about 500,000 files) is not held in memory: git is told the paths. */
const MAX_MODEL_BYTES = 40 * 1024 * 1024;

const literal = (p: string) => `:(literal)${p}`;
const IGNORED_ARGS = ['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory'];

export interface SnapshotOptions {
  /** The repository's own object folder and index, when the workspace is its top folder (seeding). */
  repository?: { objects: string; index: string; exclude: string } | null;
}

export class WorkTreeSnapshots {
  private readonly dir: string;
  private readonly git: GitRunner;
  private ready: Promise<void> | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private disposed = false;
  /** Aborted on dispose: a snapshot nobody will read (the warm-up of a run that ran no command) stops at once. */
  private readonly closing = new AbortController();
  /** The tree the private index held when last written: reused while `add` changes nothing. */
  private lastTree: string | null = null;
  /** The ignored entries as last listed (the whole tree, or patched for the paths that changed). */
  private ignoredStamps: Map<string, string> | null = null;
  /** The private index matches the tree as of the journal's last take (fsmonitor's answers start there). */
  private primed = false;
  private token = 0;
  /** How the last snapshot looked at the tree (the tests and the bench read it): hashed here, git told the paths, git walked, nothing changed. */
  lastMode: 'hashed' | 'paths' | 'walk' | 'none' | null = null;
  /** The last tree, folder by folder, while a journal may let snapshots be made here. */
  private model: TreeModel | null = null;
  /** Paths whose entry in the private index is behind the last tree: snapshots made here do not write the index. */
  private readonly stale = new Set<string>();
  /** What changed from one tree to the next, for the snapshots made here. */
  private deltas: { from: string; to: string; delta: Map<string, EntryChange> }[] = [];
  private readonly recent = new Map<string, Buffer>();
  private recentBytes = 0;
  private readonly loose: LooseObjects;
  private catFile: CatFileBatch | null = null;

  constructor(
    readonly root: string,
    private readonly repository: () => Promise<SnapshotOptions['repository']>,
    /** The watcher's record of what changed; without one (or when it cannot promise) every snapshot walks. */
    private readonly journal?: ChangeJournal,
  ) {
    this.dir = path.join(root, '.loupe', 'snapshots', `${process.pid}-${randomBytes(4).toString('hex')}`);
    // repository:false: the private attributes switch every driver off, so none is listed first.
    this.git = new GitRunner(root, { repository: false });
    this.loose = new LooseObjects(root, path.join(this.dir, 'objects'));
  }

  /** Calls that need no index (trees, objects, the ignore rules alone): an index git cannot find. */
  private noIndex(signal?: AbortSignal) {
    return { env: { GIT_INDEX_FILE: path.join(this.dir, 'no-index') }, signal: this.signal(signal) };
  }

  private get index(): string {
    return path.join(this.dir, 'index');
  }

  private args(rest: string[]): string[] {
    return [`--git-dir=${this.dir}`, `--work-tree=${this.root}`, ...rest];
  }

  /** Makes the private folder (once), seeded from the repository's index when there is one. */
  private init(): Promise<void> {
    this.ready ??= (async () => {
      await sweepDead(this.root);
      ensureDirInside(this.root, path.join(this.dir, 'objects', 'info'));
      ensureDirInside(this.root, path.join(this.dir, 'refs'));
      ensureDirInside(this.root, path.join(this.dir, 'info'));
      await writeAtomicInside(this.root, path.join(this.dir, 'HEAD'), 'ref: refs/heads/snapshots\n', CACHE);
      await writeAtomicInside(this.root, path.join(this.dir, 'config'), CONFIG, CACHE);
      await writeAtomicInside(this.root, path.join(this.dir, 'info', 'attributes'), ATTRIBUTES, CACHE);
      const repo = await this.repository().catch(() => null);
      let exclude = '';
      if (repo) {
        await writeAtomicInside(this.root, path.join(this.dir, 'objects', 'info', 'alternates'), `${repo.objects}\n`, CACHE);
        exclude = (await readOutside(repo.exclude))?.toString('utf8') ?? '';
        const seed = await readOutside(repo.index);
        if (seed) await writeAtomicInside(this.root, this.index, seed, CACHE);
      }
      await writeAtomicInside(this.root, path.join(this.dir, 'info', 'exclude'), `${exclude}\n/.loupe/\n`, CACHE);
    })().catch((err) => {
      this.ready = null;
      throw err;
    });
    return this.ready;
  }

  /** Runs one snapshot step at a time: they share the private index. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const job = this.queue.then(fn);
    this.queue = job.catch(() => undefined);
    return job;
  }

  /**
   * The non-ignored tree as it is now. `ignored`: also stamp the ignored entries, so a later
   * snapshot can say how many of them changed (they are never recorded).
   *
   * With a journal that can promise every change since the last snapshot, git looks at those
   * paths only (its fsmonitor hook answered from a file of this folder): the index's other
   * entries are not even stat'ed and only the folders that changed are read. With no change at
   * all the last tree stands and git does not run. Otherwise `git add -A` walks the whole tree.
   */
  take(opts: { ignored?: boolean; signal?: AbortSignal } = {}): Promise<Snapshot> {
    return this.serial(async () => {
      if (this.disposed) throw new SnapshotError('the workspace was closed');
      await this.init();
      const journaled = await this.journalTake();
      const report = journaled ? this.report(journaled) : null;
      if (report && !report.length && this.lastTree && (this.ignoredStamps || !opts.ignored)) {
        this.lastMode = 'none';
        return { tree: this.lastTree, ignored: this.ignoredStamps };
      }
      try {
        if (report && !this.journal!.blind.some((d) => !this.knownIgnored(d)) && (this.ignoredStamps || !opts.ignored)) {
          const made = await this.hashed(journaled!, opts.signal);
          if (made) return made;
        }
        return await this.snapshot(opts, journaled, report);
      } catch (err) {
        if (journaled) this.journal!.giveBack(journaled);
        this.primed = false;
        throw err;
      }
    });
  }

  /** Everything that changed since the last snapshot, when the journal can say (null: walk). */
  private async journalTake(): Promise<JournalTake | null> {
    const j = this.journal;
    if (!j) return null;
    // Beside the private folder, not in it: the watcher leaves the private folders unwatched.
    const cookie = `${this.dir}.cookie`;
    const flushed = this.primed && j.live && (await j.flush(toPosix(path.relative(this.root, cookie)), () => writeAtomicInside(this.root, cookie, String(++this.token), CACHE)));
    // Taken either way: the interval after this snapshot starts now.
    const take = j.take();
    return flushed && take.complete ? take : { paths: take.paths, complete: false };
  }

  /** The paths git is told changed: each with its folders (a folder that went takes its files), null to walk. */
  private report(take: JournalTake): string[] | null {
    if (!take.complete || !this.primed || take.paths.length > MAX_NARROW_PATHS || take.paths.some((p) => IGNORE_FILE.test(p))) return null;
    const out = new Set<string>();
    for (const p of take.paths) {
      out.add(p);
      out.add(`${p}/`);
      // A parent named exactly: a nested repository's entry is the folder's own path.
      for (let i = p.indexOf('/'); i !== -1; i = p.indexOf('/', i + 1)) out.add(p.slice(0, i));
    }
    for (const dir of this.journal!.blind) if (!this.knownIgnored(dir)) out.add(`${dir}/`);
    return [...out];
  }

  /** A folder the last listing showed ignored, itself or below an ignored folder. */
  private knownIgnored(dir: string): boolean {
    if (!this.ignoredStamps) return false;
    const parts = dir.split('/');
    for (let i = 1; i <= parts.length; i++) if (this.ignoredStamps.has(`${parts.slice(0, i).join('/')}/`)) return true;
    return false;
  }

  /**
   * The snapshot made in this process from the changed paths (pathSnapshot.ts): only the files
   * named are read and hashed and only the trees along them written; git runs only to ask its
   * ignore rules about paths the last tree lacks. Null when git must make it.
   */
  private async hashed(take: JournalTake, signal?: AbortSignal): Promise<Snapshot | null> {
    if (this.model?.tree !== this.lastTree) await this.loadModel(signal);
    const model = this.model;
    if (!model) return null;
    const found = await pathSnapshot({
      root: this.root,
      model,
      paths: take.paths,
      max: MAX_NARROW_PATHS,
      others: async (paths) => (await this.git.run(this.args(['ls-files', '-z', '--others', '--exclude-standard', '--', ...paths.map(literal)]), this.noIndex(signal))).split('\0').filter(Boolean),
    });
    if (!found) return null;
    const from = model.tree;
    await this.loose.write(found.blobs);
    const { tree, objects, delta } = model.update(found.changes);
    for (const p of delta.keys()) this.stale.add(p);
    try {
      await this.loose.write(objects);
    } catch (err) {
      // The held tree names objects that were not stored: git makes the next snapshot from scratch.
      await this.forgetIndex();
      throw err;
    }
    // An ignored entry can only be at a path the tree does not hold as a file: asked of git only then.
    const leaf = (p: string) => model.entry(p)?.mode !== FOLDER && !!model.entry(p);
    const ask = this.ignoredStamps && take.paths.some((p) => !leaf(p));
    const listed = ask ? await this.git.exec(this.args([...IGNORED_ARGS, '--', ...take.paths.map(literal)]), this.noIndex(signal)).catch(() => null) : null;
    if (this.ignoredStamps) {
      if (ask && listed?.exitCode !== 0) this.ignoredStamps = null;
      else {
        // Listed without an index, so a tracked file can show: the tree's own files are not ignored entries.
        const entries = listed ? listed.stdout.toString('utf8').split('\0').filter((e) => e && !leaf(e)) : [];
        if (entries.some((e) => e.endsWith('/') && model.children(e.slice(0, -1)))) this.ignoredStamps = null;
        else this.ignoredStamps = patchStamps(this.ignoredStamps, take.paths, this.stamp(entries), (k) => this.stampOf(k));
      }
    }
    for (const b of found.blobs) this.remember(b.oid, b.body);
    if (from !== tree) {
      this.deltas.push({ from, to: tree, delta });
      if (this.deltas.length > MAX_DELTAS) this.deltas.shift();
    }
    this.lastTree = tree;
    this.lastMode = 'hashed';
    return { tree, ignored: this.ignoredStamps };
  }

  /** The last tree read into memory (once per tree git wrote); none when a name is not text or git fails. */
  private async loadModel(signal?: AbortSignal): Promise<void> {
    this.model = null;
    if (!this.lastTree || !this.journal) return;
    const out = await this.git.runBuffer([`--git-dir=${this.dir}`, 'ls-tree', '-r', '-t', '-z', '--full-tree', this.lastTree], this.noIndex(signal)).catch(() => null);
    this.model = out && out.length <= MAX_MODEL_BYTES ? TreeModel.parse(out, this.lastTree) : null;
  }

  /** The private index can no longer be brought up to the last tree: git starts it again from the files. */
  private async forgetIndex(): Promise<void> {
    this.model = null;
    this.stale.clear();
    this.lastTree = null;
    this.primed = false;
    await removeTreeInside(this.root, this.index).catch(() => undefined);
  }

  private remember(oid: string, body: Buffer): void {
    if (this.recent.has(oid) || body.length > RECENT_BYTES / 4) return;
    this.recent.set(oid, body);
    this.recentBytes += body.length;
    for (const [k, v] of this.recent) {
      if (this.recentBytes <= RECENT_BYTES) break;
      this.recent.delete(k);
      this.recentBytes -= v.length;
    }
  }

  /** `git add -A` told `report` (the changed paths) or, with none, to look at everything; then the tree. */
  private async snapshot(opts: { ignored?: boolean; signal?: AbortSignal }, take: JournalTake | null, given: string[] | null): Promise<Snapshot> {
    // The paths snapshots made here changed are told too: their entries are put in the index
    // first, without a stat, so git looks at each file again.
    const stale = [...this.stale];
    const staleReport = given && stale.length ? this.report({ paths: stale, complete: true }) : null;
    const report = given && stale.length ? (staleReport && [...new Set([...given, ...staleReport])]) : given;
    const hook = path.join(this.dir, 'fsmonitor');
    // The hook's answer: a token, then the paths; `/` alone tells git to look at everything.
    const answer = [`loupe-${++this.token}`, ...(report ?? ['/'])].join('\0') + '\0';
    await writeAtomicInside(this.root, hook, answer, CACHE);
    // Every call that reads the private index is given the same answer: one that ran with
    // fsmonitor off would drop its record from the index, and the next add would walk again.
    const call = { env: { GIT_INDEX_FILE: this.index }, signal: this.signal(opts.signal), timeoutMs: 120_000, fsmonitor: hook };
    if (stale.length) {
      const zero = '0'.repeat(40);
      const rows = stale.map((p) => {
        const e = this.model?.entry(p);
        return e && e.mode !== FOLDER ? `${e.mode} ${e.oid}\t${p}` : `0 ${zero}\t${p}`;
      });
      const synced = await this.git.exec(this.args(['update-index', '-z', '--index-info']), { ...call, input: rows.join('\0') + '\0' });
      if (synced.exitCode !== 0) {
        await this.forgetIndex();
        throw new SnapshotError(synced.stderr.trim() || `git update-index exited ${synced.exitCode}`);
      }
      this.stale.clear();
    }
    // With no listing to patch yet, the whole one (once); after a walk, when asked.
    const listAll = !this.ignoredStamps || (!report && !!opts.ignored);
    // Beside the add, on the other core; its failure only leaves the ignored count unknown.
    const listing = listAll
      ? this.git.exec(this.args(IGNORED_ARGS), call).catch(() => null)
      : report && this.ignoredStamps
        ? this.git.exec(this.args([...IGNORED_ARGS, '--', ...take!.paths.map(literal)]), call).catch(() => null)
        : null;
    // --verbose names every path whose entry changed: none, and the last tree still stands.
    let add = await this.git.exec(this.args(['add', '-A', '--verbose']), call);
    if (add.exitCode !== 0 && (await this.dropSeed())) add = await this.git.exec(this.args(['add', '-A', '--verbose']), call);
    if (add.exitCode !== 0) throw new SnapshotError(add.stderr.trim() || `git add exited ${add.exitCode}`);
    if (add.stdout.length || !this.lastTree) this.lastTree = (await this.git.run(this.args(['write-tree', '--missing-ok']), call)).trim();
    // The index now answers for the tree as of the journal's take: the next snapshot may narrow.
    this.primed = take !== null;
    this.lastMode = report ? 'paths' : 'walk';
    const out = listing ? await listing : null;
    if (out?.exitCode === 0) {
      const listed = this.stamp(out.stdout.toString('utf8').split('\0').filter(Boolean));
      this.ignoredStamps = listAll ? listed : patchStamps(this.ignoredStamps!, take!.paths, listed, (k) => this.stampOf(k));
    } else if (listing) this.ignoredStamps = null;
    // While a journal may let the next snapshot be made here, the tree is read into memory now.
    if (this.journal?.live && this.model?.tree !== this.lastTree) await this.loadModel(opts.signal);
    return { tree: this.lastTree, ignored: this.ignoredStamps };
  }

  /** An index seeded from the repository that git cannot use (a split index, another hash): start empty. */
  private async dropSeed(): Promise<boolean> {
    this.lastTree = null;
    const had = lstatInside(this.root, this.index) !== null;
    if (had) await removeTreeInside(this.root, this.index);
    return had;
  }

  private stamp(entries: string[]): Map<string, string> {
    const out = new Map<string, string>();
    for (const rel of entries) {
      // Loupe's own folder is excluded by the private exclude file, so git lists it as ignored: it is not the project's.
      if (rel === '.loupe/' || rel.startsWith('.loupe/')) continue;
      out.set(rel, this.stampOf(rel));
    }
    return out;
  }

  private stampOf(rel: string): string {
    const st = lstatInside(this.root, path.join(this.root, rel.replace(/\/$/, '')));
    return st ? `${st.size}:${st.mtimeMs}:${st.ino}` : '-';
  }

  /** Paths that differ between two trees; renames are detected (50% similar or more). */
  diff(a: string, b: string, signal?: AbortSignal): Promise<TreeChange[]> {
    if (a === b) return Promise.resolve([]);
    const known = this.knownDiff(a, b);
    if (known) return Promise.resolve(known);
    return this.serial(async () => {
      // Trees only: with no index to read (git reads one even here, 80 ms at 100,000 files) and no work tree.
      const out = await this.git.run([`--git-dir=${this.dir}`, 'diff-tree', '-r', '-z', '--raw', '--find-renames', a, b], { env: { GIT_INDEX_FILE: path.join(this.dir, 'no-index') }, signal: this.signal(signal) });
      return parseRaw(out);
    });
  }

  /**
   * The difference of two trees from the steps snapshots made here recorded, when they lead
   * from one to the other; null to ask git (also when a file went and another came: git decides
   * whether that was a rename).
   */
  private knownDiff(a: string, b: string): TreeChange[] | null {
    const merged = new Map<string, EntryChange>();
    let at = a;
    for (const d of this.deltas) {
      if (at === b) break;
      if (d.from !== at) continue;
      for (const [p, [x, y]] of d.delta) merged.set(p, [merged.has(p) ? merged.get(p)![0] : x, y]);
      at = d.to;
    }
    if (at !== b) return null;
    const rows = [...merged].filter(([, [x, y]]) => (x ? !y || x.mode !== y.mode || x.oid !== y.oid : !!y));
    if (rows.some(([, [x, y]]) => x && !y) && rows.some(([, [x, y]]) => !x && y)) return null;
    const link = (m: string) => m === '120000';
    return rows
      .sort(([p], [q]) => Buffer.compare(Buffer.from(p), Buffer.from(q)))
      .map(([p, [x, y]]) => ({
        status: !x ? 'A' : !y ? 'D' : link(x.mode) !== link(y.mode) ? 'T' : 'M',
        path: p,
        oldMode: x?.mode ?? null,
        newMode: y?.mode ?? null,
        oldOid: x?.oid ?? null,
        newOid: y?.oid ?? null,
      }));
  }

  /** Blob contents by oid, each checked against its oid (a planted object is refused). */
  async blobs(oids: string[], signal?: AbortSignal): Promise<Map<string, Buffer>> {
    const out = new Map<string, Buffer>();
    const want: string[] = [];
    for (const oid of new Set(oids.filter((o) => o && !EMPTY_OID.test(o)))) {
      // Hashed here a moment ago, or stored here loose (and checked again as it is read).
      const mine = this.recent.get(oid) ?? (await this.loose.readBlob(oid));
      if (mine) out.set(oid, Buffer.from(mine));
      else want.push(oid);
    }
    if (!want.length) return out;
    // One cat-file kept running: its start would be a third of a small command's capture.
    this.catFile ??= this.git.catFileBatch([`--git-dir=${this.dir}`], { GIT_INDEX_FILE: path.join(this.dir, 'no-index') });
    const found = await this.catFile.read(want, this.signal(signal));
    for (const oid of want) {
      const data = found.get(oid);
      if (!data) throw new SnapshotError(`object ${oid} is missing`);
      if (gitOid(data) !== oid) throw new SnapshotError(`object ${oid} does not hold the content its name promises`);
      out.set(oid, data);
    }
    return out;
  }

  /** How many ignored entries appeared, went or changed between two snapshots. */
  static ignoredChanged(a: Snapshot, b: Snapshot): number | null {
    if (!a.ignored || !b.ignored) return null;
    let n = 0;
    for (const [k, v] of b.ignored) if (a.ignored.get(k) !== v) n++;
    for (const k of a.ignored.keys()) if (!b.ignored.has(k)) n++;
    return n;
  }

  private signal(caller?: AbortSignal): AbortSignal {
    return caller ? AbortSignal.any([caller, this.closing.signal]) : this.closing.signal;
  }

  /** Stops what is under way and removes this process's folder; later calls fail. */
  async dispose(): Promise<void> {
    this.disposed = true;
    this.closing.abort();
    this.catFile?.close();
    await this.queue;
    await removeTreeInside(this.root, this.dir).catch(() => undefined);
    await removeTreeInside(this.root, `${this.dir}.cookie`).catch(() => undefined);
  }
}

/**
 * The ignored entries after a snapshot that listed only the paths that changed: an entry a
 * changed path is or holds is replaced by what the listing found; an ignored folder a changed
 * path lies in is still ignored (the rules did not change, or the tree would have been walked)
 * and is stamped again, or dropped if it went.
 */
export function patchStamps(prev: Map<string, string>, changed: readonly string[], listed: Map<string, string>, restamp: (entry: string) => string): Map<string, string> {
  const changedSet = new Set(changed);
  const holds = new Set<string>();
  for (const p of changed) for (let i = p.indexOf('/'); i !== -1; i = p.indexOf('/', i + 1)) holds.add(p.slice(0, i));
  const under = (k: string) => {
    for (let i = k.indexOf('/'); i !== -1; i = k.indexOf('/', i + 1)) if (changedSet.has(k.slice(0, i))) return true;
    return false;
  };
  const next = new Map<string, string>();
  for (const [k, v] of prev) {
    const bare = k.replace(/\/$/, '');
    if (changedSet.has(bare) || under(bare)) continue;
    if (!holds.has(bare)) next.set(k, v);
    else {
      const stamp = restamp(k);
      if (stamp !== '-') next.set(k, stamp);
    }
  }
  for (const [k, v] of listed) next.set(k, v);
  return next;
}

/** git's object id of a blob (sha1 of its header and bytes). */
export function gitOid(data: Buffer): string {
  return objectId('blob', data);
}

function parseRaw(out: string): TreeChange[] {
  const f = out.split('\0');
  const changes: TreeChange[] = [];
  for (let i = 0; i < f.length - 1; ) {
    const head = f[i++];
    if (!head.startsWith(':')) continue;
    const [oldMode, newMode, oldOid, newOid, status] = head.slice(1).split(' ');
    const kind = status[0] as TreeChange['status'] | 'C';
    const nul = (mode: string, oid: string) => (/^0+$/.test(mode) ? null : oid);
    if (kind === 'R' || kind === 'C') {
      const from = f[i++];
      const to = f[i++];
      changes.push(
        kind === 'R'
          ? { status: 'R', path: to, from, oldMode, newMode, oldOid, newOid }
          : { status: 'A', path: to, oldMode: null, newMode, oldOid: null, newOid },
      );
      continue;
    }
    const p = f[i++];
    changes.push({ status: kind as TreeChange['status'], path: p, oldMode: /^0+$/.test(oldMode) ? null : oldMode, newMode: /^0+$/.test(newMode) ? null : newMode, oldOid: nul(oldMode, oldOid), newOid: nul(newMode, newOid) });
  }
  return changes;
}

/** A file of the repository's own git folder (outside the workspace's held folders: git's, not the clone's). */
async function readOutside(abs: string): Promise<Buffer | null> {
  return (await readInside(path.dirname(abs), abs).catch(() => null))?.buf ?? null;
}

/** Folders of processes that are gone. */
async function sweepDead(root: string): Promise<void> {
  const base = path.join(root, '.loupe', 'snapshots');
  for (const name of await readdirInside(root, base).catch(() => [] as string[])) {
    const pid = Number(/^(\d+)-[0-9a-f]{8}(\.cookie)?$/.exec(name)?.[1]);
    if (!pid || pid === process.pid || alive(pid)) continue;
    await removeTreeInside(root, path.join(base, name)).catch(() => undefined);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
