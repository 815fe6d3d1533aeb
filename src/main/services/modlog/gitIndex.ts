// Staging for the modification log, through the one git runner (services/git/gitRunner.ts),
// which keeps a hostile repository's hooks, fsmonitor, filters and drivers from running.
import path from 'node:path';
import type { GitBadge } from '../../../shared/contract';
import { GitRunner, type GitCall } from '../git/gitRunner';
import { badgeOf, parsePorcelainV2Z } from '../git/gitStatus';
import { readIndexEntries } from '../git/indexFile';
import { readInside } from '../files/safeOpen';

export interface IndexEntry {
  mode: string;
  oid: string;
}

export type FileGitStatus = GitBadge | 'clean';

const literal = (rel: string) => `:(literal)${rel}`;

/** Paths per git call: well under any command line's limit. */
const CHUNK = 500;
const chunks = <T>(list: readonly T[]): T[][] => Array.from({ length: Math.ceil(list.length / CHUNK) }, (_, i) => list.slice(i * CHUNK, (i + 1) * CHUNK));

export class GitIndex {
  private readonly git: GitRunner;

  private constructor(
    readonly root: string,
    readonly excludeFile: string,
    /** The workspace's folder within the repository ('' at its top, else ending in '/'): index-info paths are the repository's. */
    readonly prefix: string,
    /** The repository's object folder and index (for the work-tree snapshots, which borrow them). */
    readonly objectsDir: string,
    readonly indexFile: string,
  ) {
    this.git = new GitRunner(root);
  }

  /** null when `root` is not inside a git work tree (or git is unusable there). */
  static async detect(root: string): Promise<GitIndex | null> {
    try {
      const out = await new GitRunner(root).run(['rev-parse', '--is-inside-work-tree', '--git-path', 'info/exclude', '--git-path', 'objects', '--git-path', 'index', '--show-prefix']);
      const [inside, exclude, objects, index, prefix = ''] = out.trim().split('\n');
      if (inside !== 'true') return null;
      return new GitIndex(root, path.resolve(root, exclude), prefix.trim(), path.resolve(root, objects), path.resolve(root, index));
    } catch {
      return null;
    }
  }

  /** The branch checked out ("main"), or the commit when HEAD is detached; null when it cannot be said. */
  async head(): Promise<string | null> {
    const out = await this.git.run(['rev-parse', '--abbrev-ref', 'HEAD']).catch(() => null);
    const name = out?.trim();
    if (!name) return null;
    if (name !== 'HEAD') return name;
    const sha = await this.git.run(['rev-parse', '--short', 'HEAD']).catch(() => null);
    return sha?.trim() ? `detached at ${sha.trim()}` : null;
  }

  /** Index entries of many paths at once (null: not in the index). */
  async entriesOf(rels: readonly string[]): Promise<Map<string, IndexEntry | null>> {
    const out = new Map<string, IndexEntry | null>(rels.map((r) => [r, null]));
    // Read here when the reader can answer as git would (indexFile.ts); git otherwise.
    // Git's own file, read as the snapshots read it: through the one way in, never through a link.
    const buf = (await readInside(path.dirname(this.indexFile), this.indexFile).catch(() => null))?.buf ?? null;
    const read = buf ? readIndexEntries(buf, new Set(rels.map((r) => this.prefix + r))) : null;
    if (read) {
      for (const r of rels) out.set(r, read.get(this.prefix + r) ?? null);
      return out;
    }
    for (const chunk of chunks(rels)) {
      const text = await this.git.run(['ls-files', '-s', '-z', '--', ...chunk.map(literal)]);
      for (const rec of text.split('\0')) {
        const m = /^(\d{6}) ([0-9a-f]{40,64}) 0\t(.*)$/s.exec(rec);
        if (m && out.has(m[3])) out.set(m[3], { mode: m[1], oid: m[2] });
      }
    }
    return out;
  }

  /**
   * Stages each path's current state (a deleted path its removal) in a few git calls; a batch git
   * refuses is staged path by path. Returns the paths that were staged.
   */
  async stageMany(rels: readonly string[]): Promise<Set<string>> {
    const staged = new Set<string>();
    for (const chunk of chunks(rels)) {
      const ok = await this.git.run(['add', '-A', '--', ...chunk.map(literal)]).then(() => true, () => false);
      if (ok) chunk.forEach((r) => staged.add(r));
      else for (const r of chunk) if (await this.stage(r)) staged.add(r);
    }
    return staged;
  }

  /**
   * Stages paths the index tracks or the ignore rules do not ignore (a deleted one its removal)
   * in one call that looks at those files alone: `add` with a pathspec reads the folders around
   * them for untracked files, which at 10,000 files is most of its time. It asks no ignore rule,
   * so the caller knows. False when git refused (a file turned folder).
   */
  async restage(rels: readonly string[]): Promise<boolean> {
    if (!rels.length) return true;
    try {
      await this.git.run(['update-index', '--add', '--remove', '-z', '--stdin'], { input: rels.map((r) => `${r}\0`).join('') });
      return true;
    } catch {
      return false;
    }
  }

  /** Puts many index entries back exactly in one call (null drops the path). */
  async setEntries(entries: ReadonlyMap<string, IndexEntry | null>): Promise<boolean> {
    if (!entries.size) return true;
    const lines = [...entries].map(([rel, e]) => (e ? `${e.mode} ${e.oid}\t${this.prefix}${rel}` : `0 ${'0'.repeat(40)}\t${this.prefix}${rel}`));
    try {
      await this.git.run(['update-index', '--index-info'], { input: lines.join('\n') + '\n' });
      return true;
    } catch {
      return false;
    }
  }

  async entryOf(rel: string): Promise<IndexEntry | null> {
    const out = await this.git.run(['ls-files', '-s', '-z', '--', literal(rel)]);
    const m = /^(\d{6}) ([0-9a-f]{40,64}) 0\t/.exec(out);
    return m ? { mode: m[1], oid: m[2] } : null;
  }

  /** Stages the file's current state (a missing file stages its removal). */
  async stage(rel: string): Promise<boolean> {
    try {
      await this.git.run(['add', '--', literal(rel)]);
      return true;
    } catch {
      // Ignored paths, untracked deletions, a locked index: the write stands, unstaged.
      return false;
    }
  }

  /** Puts an index entry back exactly (null: drops the path from the index). */
  async setEntry(rel: string, entry: IndexEntry | null): Promise<boolean> {
    try {
      // --cacheinfo paths are the repository's, not the current folder's.
      if (entry) await this.git.run(['update-index', '--add', '--cacheinfo', `${entry.mode},${entry.oid},${this.prefix}${rel}`]);
      else if (await this.entryOf(rel)) await this.git.run(['update-index', '--force-remove', '--', rel]);
      return true;
    } catch {
      return false;
    }
  }

  /** Runs git in the workspace; `env` may only carry Loupe's own choices (a private index). */
  raw(args: string[], env?: Record<string, string>, call: Omit<GitCall, 'env'> = {}): Promise<string> {
    return this.git.run(args, { ...call, env });
  }

  /** The file's content at `rev`, as stored (never through a textconv driver); null if absent. */
  blob(rev: string, rel: string, signal?: AbortSignal): Promise<Buffer | null> {
    return this.git.blob(rev, rel, { signal });
  }

  async statusOf(rel: string): Promise<FileGitStatus | null> {
    try {
      const out = await this.git.run(['--no-optional-locks', 'status', '--porcelain=v2', '-z', '--ignored=matching', '-uall', '--', literal(rel)]);
      const [entry] = parsePorcelainV2Z(out).values();
      return entry ? badgeOf(entry.xy) : 'clean';
    } catch {
      return null;
    }
  }
}
