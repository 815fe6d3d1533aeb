// The only write path for agent changes (docs/architecture.md, the modification log): serialised per file, atomic, with
// before/after blobs, an fsync'd JSON line per change, and staging when the folder is a repo.
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { UnsafePathError } from '../files/errors';
import { sha256 } from '../files/hash';
import { lstatInside, readInside } from '../files/safeOpen';
import { ensureDirInside, sweepTempsInside, unlinkInside, writeAtomicInside } from '../files/safeWrite';
import { BlobStore } from './blobStore';
import { ConcurrentChangeError, ProtectedPathError } from './errors';
import { KeyedLock } from './fileLocks';
import { GitIndex } from './gitIndex';
import { ModificationIds } from './ids';
import { appendJsonLine, appendJsonLines, readJsonLines, readTailJsonLines, type JsonLines } from './jsonl';
import { LogIndex } from './fold';
import { withLogLock, type LockOptions } from './logLock';
import type { ApplyRequest, ApplyResult, DiagnosticsLine, EntryDraft, ModificationEntry, VerdictLine, TestResultsLine } from './types';
import type { IndexEntry } from './gitIndex';

/** One file of a batch (applyBatch): its log lines, and the write, if the batch makes it. */
export interface BatchFile {
  file: string;
  abs: string;
  /** The bytes to leave there (null: delete it); absent when the change is already on disk (a command made it). */
  write?: { content: Buffer | null; mode?: number };
  /** sha256 of what must be there now (null: nothing), checked under the file's lock before anything is written. */
  expectBeforeSha?: string | null;
  /** Its lines, in order. The first one's git_index_before is the entry found now. */
  entries: EntryDraft[];
  /** Put this index entry back instead of staging what is left there. */
  restoreIndex?: IndexEntry | null;
  /** The index entry each line after the first replaced (a chain of rollbacks knows them); default: staged content. */
  indexBefore?: (IndexEntry | null | undefined)[];
  /** git's ignore rules were asked already and do not ignore it (a command's snapshot found it): staged without asking again. */
  notIgnored?: boolean;
}

export interface ModificationLogOptions {
  /** Stage written files when the workspace is a git repo (default true). */
  stage?: boolean;
}

interface Current {
  buf: Buffer;
  mode: number;
}

/** The file as it is now, opened through real folders (a FIFO or a link there is refused). */
async function readCurrent(root: string, abs: string): Promise<Current | null> {
  const read = await readInside(root, abs);
  return read && { buf: read.buf, mode: read.st.mode & 0o7777 };
}

const PROTECTED = /^(\.git|\.loupe)(\/|$)/i;

/** Git's and Loupe's own state: no modification may write there. */
export const isProtectedPath = (rel: string): boolean => PROTECTED.test(rel);

export class ModificationLog {
  readonly dir: string;
  readonly logFile: string;
  /** Held across processes while a line is appended (logLock). */
  private readonly lockFile: string;
  /** The folded log's checkpoint: a cache beside the log, rebuilt from it when it does not match. */
  readonly indexFile: string;
  readonly blobs: BlobStore;
  private readonly locks = new KeyedLock();
  private readonly ids = new ModificationIds();
  private readonly swept = new Set<string>();
  private appendChain: Promise<unknown> = Promise.resolve();
  private ready: Promise<void> | null = null;
  private excluded: Promise<void> | null = null;
  private gitIndex: Promise<GitIndex | null> | null = null;
  private folded: LogIndex | null = null;
  private lockSwept = false;
  private readonly appliedListeners = new Set<(entry: ModificationEntry) => void>();

  constructor(
    readonly root: string,
    private readonly opts: ModificationLogOptions = {},
  ) {
    this.dir = path.join(root, '.loupe');
    this.logFile = path.join(this.dir, 'modifications.jsonl');
    this.lockFile = path.join(this.dir, 'modifications.lock');
    this.indexFile = path.join(this.dir, 'modifications.index');
    this.blobs = new BlobStore(path.join(this.dir, 'objects'), root);
  }

  /** The workspace's git index (null outside a repo). Detected once; reading it writes nothing. */
  git(): Promise<GitIndex | null> {
    this.gitIndex ??= GitIndex.detect(this.root);
    return this.gitIndex;
  }

  /** Runs `fn` holding the file's write lock; apply() inside it does not wait for itself. */
  withFileLock<T>(abs: string, fn: () => Promise<T>): Promise<T> {
    return this.locks.run(abs, fn);
  }

  apply(req: ApplyRequest): Promise<ApplyResult> {
    if (isProtectedPath(req.file)) return Promise.reject(new ProtectedPathError(req.file));
    return this.locks.run(req.abs, () => this.applyLocked(req));
  }

  async read(): Promise<JsonLines<Record<string, unknown>>> {
    return readJsonLines(this.root, this.logFile);
  }

  private async applyLocked(req: ApplyRequest): Promise<ApplyResult> {
    await this.init();
    const before = await readCurrent(this.root, req.abs);
    const beforeSha = before ? sha256(before.buf) : null;
    if (req.expectBeforeSha !== undefined && req.expectBeforeSha !== beforeSha) throw new ConcurrentChangeError(req.file);
    const afterSha = req.content ? sha256(req.content) : null;
    const git = this.opts.stage === false ? null : await this.git();
    // The index entry is read while the bytes are written: only `git add` below changes it.
    const indexBefore = git ? git.entryOf(req.file).catch(() => undefined) : Promise.resolve(undefined);
    // The before blob must be durable before the file changes; the after blob may race the write.
    if (before) await this.blobs.put(before.buf, beforeSha!);
    if (req.content) {
      await Promise.all([this.blobs.put(req.content, afterSha!), writeAtomicInside(this.root, req.abs, req.content, { mode: before?.mode, mkdirs: !before })]);
      if (!this.swept.has(req.abs)) {
        this.swept.add(req.abs);
        await sweepTempsInside(this.root, req.abs);
      }
    } else if (before) {
      await unlinkInside(this.root, req.abs);
    }
    const indexEntry = await indexBefore;
    const gitStaged = !git ? false : req.restoreIndex !== undefined ? await git.setEntry(req.file, req.restoreIndex) : await git.stage(req.file);

    const entry: ModificationEntry = {
      type: 'modification',
      modification_id: '',
      timestamp: '',
      session_id: req.sessionId,
      ...(req.agentId ? { agent_id: req.agentId } : {}),
      ...(req.correlationId ? { correlation_id: req.correlationId } : {}),
      tool: req.tool,
      operation: req.operation,
      file: req.file,
      ...(req.linesAffected ? { lines_affected: req.linesAffected } : {}),
      ...(req.linesChanged !== undefined ? { lines_changed: req.linesChanged } : {}),
      ...(req.reason ? { reason: req.reason } : {}),
      before_sha256: beforeSha,
      after_sha256: afterSha,
      git_staged: gitStaged,
      ...(indexEntry !== undefined ? { git_index_before: indexEntry } : {}),
      ...(req.rollsBack ? { rolls_back: req.rollsBack } : {}),
      ...(req.hunk !== undefined ? { hunk: req.hunk } : {}),
      ...(req.hunk !== undefined && req.hunkCount !== undefined ? { hunk_count: req.hunkCount } : {}),
      ...(req.diagnostics ? { diagnostics: req.diagnostics } : {}),
    };
    await this.append(entry);
    return { entry, modificationId: entry.modification_id, beforeSha, afterSha, gitStaged };
  }

  /** Hears every line this process appends (a command's capture leaves out what others recorded meanwhile). */
  onApplied(listener: (entry: ModificationEntry) => void): () => void {
    this.appliedListeners.add(listener);
    return () => this.appliedListeners.delete(listener);
  }

  /**
   * Many files' changes as one step: every file's lock held (sorted, so batches cannot wait on each
   * other), every expected content checked before any byte is written, blobs made durable first,
   * each file written once, staging in a few git calls, and all lines appended under one log lock
   * with one fsync. A command's capture records changes already on disk; a group rollback writes
   * each file's final content and logs one line per modification it reverses.
   */
  async applyBatch(files: BatchFile[], blobs: Buffer[]): Promise<ModificationEntry[][]> {
    for (const f of files) if (isProtectedPath(f.file)) throw new ProtectedPathError(f.file);
    if (!files.length) return [];
    await this.init();
    return this.locks.runAll(
      files.map((f) => f.abs),
      async () => {
        for (const f of files) {
          if (f.expectBeforeSha === undefined) continue;
          const now = await readCurrent(this.root, f.abs);
          if ((now ? sha256(now.buf) : null) !== f.expectBeforeSha) throw new ConcurrentChangeError(f.file);
        }
        for (const b of blobs) await this.blobs.put(b);
        const git = this.opts.stage === false ? null : await this.git();
        const before = git ? await git.entriesOf(files.map((f) => f.file)).catch(() => null) : null;
        for (const f of files) {
          if (!f.write) continue;
          if (f.write.content) await writeAtomicInside(this.root, f.abs, f.write.content, { mode: f.write.mode, mkdirs: true });
          else await unlinkInside(this.root, f.abs);
        }
        const staged = new Set<string>();
        if (git) {
          const restore = new Map(files.filter((f) => f.restoreIndex !== undefined).map((f) => [f.file, f.restoreIndex!]));
          if (await git.setEntries(restore)) restore.forEach((_, k) => staged.add(k));
          // A path neither on disk nor in the index has nothing to stage (git would refuse the whole call).
          const toStage = files.filter((f) => f.restoreIndex === undefined && (before?.get(f.file) || lstatInside(this.root, f.abs))).map((f) => f.file);
          // Tracked files, and files a snapshot found not ignored, in one call that reads no
          // folder; other new ones through `add`, which keeps the ignore rules.
          // Below the repository's top, ignore files above the workspace are the repository's and not the snapshot's.
          const known = new Set(git.prefix === '' ? files.filter((f) => f.notIgnored).map((f) => f.file) : []);
          const direct = toStage.filter((f) => before?.get(f) || known.has(f));
          const restaged = await git.restage(direct);
          if (restaged) direct.forEach((f) => staged.add(f));
          for (const r of await git.stageMany(restaged ? toStage.filter((f) => !direct.includes(f)) : toStage)) staged.add(r);
        }
        const out = files.map((f) =>
          f.entries.map((d, i): ModificationEntry => {
            const indexBefore = i === 0 ? before?.get(f.file) : f.indexBefore?.[i];
            return { type: 'modification', modification_id: '', timestamp: '', ...d, git_staged: staged.has(f.file), ...(git && indexBefore !== undefined ? { git_index_before: indexBefore } : {}) };
          }),
        );
        await this.appendMany(out.flat());
        return out;
      },
    );
  }

  /** Appends a later fact (a review, test results, late diagnostics): a new line, never a rewrite. */
  async appendFact(line: VerdictLine | TestResultsLine | DiagnosticsLine): Promise<void> {
    await this.init();
    const job = this.appendChain.then(() => withLogLock(this.lockFile, () => appendJsonLine(this.root, this.logFile, line), this.lockOptions()));
    this.appendChain = job.catch(() => undefined);
    return job;
  }

  /** The folded view, kept in step with the file by reading only what was appended. */
  index(): LogIndex {
    // modifications.index.json: the whole-JSON checkpoint of earlier versions, read whole on open.
    this.folded ??= new LogIndex(this.logFile, this.root, { checkpoint: this.indexFile, replaces: `${this.indexFile}.json` });
    return this.folded;
  }

  /** Saves the folded view's checkpoint if it is 1,000 lines behind, and lets go of the log. */
  async dispose(): Promise<void> {
    await this.folded?.dispose();
  }

  /** Lock options for one append: dead writers' lock temps are swept on the first only (appends are serialised). */
  private lockOptions(): LockOptions {
    const sweep = !this.lockSwept;
    this.lockSwept = true;
    return { root: this.root, sweep };
  }

  /** Appends one line; ids are assigned here so they follow the log's order. */
  private append(entry: ModificationEntry): Promise<void> {
    const job = this.appendChain.then(() =>
      withLogLock(this.lockFile, async () => {
        // Another Loupe process on this workspace may have appended since: continue after its ids.
        for (const e of await readTailJsonLines<{ modification_id?: unknown }>(this.root, this.logFile)) if (typeof e.modification_id === 'string') this.ids.seed(e.modification_id);
        const now = new Date();
        entry.modification_id = this.ids.next(now);
        entry.timestamp = now.toISOString();
        await appendJsonLine(this.root, this.logFile, entry);
      }, this.lockOptions()),
    );
    this.appendChain = job.catch(() => undefined);
    return job.then(() => this.tell([entry]));
  }

  /** Appends lines in order under one lock and one fsync. */
  private appendMany(entries: ModificationEntry[]): Promise<void> {
    const job = this.appendChain.then(() =>
      withLogLock(this.lockFile, async () => {
        for (const e of await readTailJsonLines<{ modification_id?: unknown }>(this.root, this.logFile)) if (typeof e.modification_id === 'string') this.ids.seed(e.modification_id);
        const now = new Date();
        for (const e of entries) {
          e.modification_id = this.ids.next(now);
          e.timestamp = now.toISOString();
        }
        await appendJsonLines(this.root, this.logFile, entries);
      }, this.lockOptions()),
    );
    this.appendChain = job.catch(() => undefined);
    return job.then(() => this.tell(entries));
  }

  private tell(entries: ModificationEntry[]): void {
    for (const e of entries)
      for (const l of this.appliedListeners) {
        try {
          l(e);
        } catch {
          // A listener's failure is its own; the line is written.
        }
      }
  }

  /**
   * Adds `.loupe/` to the repository's info/exclude, once per process: whatever writes there
   * first (this log, a saved chat, a command's output file), git status never lists it.
   */
  excludeFromGit(): Promise<void> {
    this.excluded ??= (async () => {
      const git = await this.git();
      if (git) await ensureExcluded(git.excludeFile);
    })().catch((err) => {
      this.excluded = null;
      throw err;
    });
    return this.excluded;
  }

  private init(): Promise<void> {
    this.ready ??= (async () => {
      // .loupe/ must be a real folder of this workspace: a clone may ship it as a link elsewhere.
      ensureDirInside(this.root, this.dir);
      const tail = await readTailJsonLines<{ modification_id?: unknown }>(this.root, this.logFile);
      for (const e of tail) if (typeof e.modification_id === 'string') this.ids.seed(e.modification_id);
      await this.excludeFromGit();
    })().catch((err) => {
      this.ready = null;
      throw err;
    });
    return this.ready;
  }
}

/**
 * Adds `.loupe/` to the repository's info/exclude once. A repository may ship `info/` or the
 * exclude file as a link out of it: both are reached only as real entries of the git folder,
 * and the file is replaced atomically, never appended to through a link.
 */
export async function ensureExcluded(excludeFile: string): Promise<void> {
  const gitDir = await realpath(path.dirname(path.dirname(excludeFile)));
  const file = path.join(gitDir, path.basename(path.dirname(excludeFile)), path.basename(excludeFile));
  const read = await readInside(gitDir, file).catch((err: unknown) => {
    if (err instanceof UnsafePathError || (err as { code?: string }).code === 'INVALID_PATH') throw new UnsafePathError(`.git/${path.relative(gitDir, file)}`, 'is not a real file in the git folder');
    throw err;
  });
  const text = read?.buf.toString('utf8') ?? '';
  if (text.split(/\r?\n/).some((l) => /^\/?\.loupe\/?$/.test(l.trim()))) return;
  const sep = text && !text.endsWith('\n') ? '\n' : '';
  await writeAtomicInside(gitDir, file, `${text}${sep}# Loupe's modification log and blobs\n.loupe/\n`, { mode: read ? read.st.mode & 0o7777 : undefined, mkdirs: true });
}
