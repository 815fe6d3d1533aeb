// Staging for the modification log, through the one git runner (services/git/gitRunner.ts),
// which keeps a hostile repository's hooks, fsmonitor, filters and drivers from running.
import path from 'node:path';
import type { GitBadge } from '../../../shared/contract';
import { GitRunner, type GitCall } from '../git/gitRunner';
import { badgeOf, parsePorcelainV2Z } from '../git/gitStatus';

export interface IndexEntry {
  mode: string;
  oid: string;
}

export type FileGitStatus = GitBadge | 'clean';

const literal = (rel: string) => `:(literal)${rel}`;

export class GitIndex {
  private readonly git: GitRunner;

  private constructor(
    readonly root: string,
    readonly excludeFile: string,
  ) {
    this.git = new GitRunner(root);
  }

  /** null when `root` is not inside a git work tree (or git is unusable there). */
  static async detect(root: string): Promise<GitIndex | null> {
    try {
      const out = await new GitRunner(root).run(['rev-parse', '--is-inside-work-tree', '--git-path', 'info/exclude']);
      const [inside, exclude] = out.trim().split('\n');
      if (inside !== 'true') return null;
      return new GitIndex(root, path.resolve(root, exclude));
    } catch {
      return null;
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
      if (entry) await this.git.run(['update-index', '--add', '--cacheinfo', `${entry.mode},${entry.oid},${rel}`]);
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
