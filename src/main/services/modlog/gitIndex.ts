// Staging for the modification log. Every git call carries config overrides so that a
// hostile repository (its own .git/config) can never run code through us: no hooks, no
// fsmonitor, and no clean/smudge filter drivers defined outside the user's global config.
// simple-git waits an extra 50 ms for a command that prints nothing, so every command here
// is made to print something (--verbose, --branch, --error-unmatch).
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { SimpleGit } from 'simple-git';
import type { GitBadge } from '../../../shared/contract';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { SAFE_GIT_CONFIG, safeGit } from '../git/safeGit';
import { parsePorcelainZ } from '../git/gitStatus';

export interface IndexEntry {
  mode: string;
  oid: string;
}

export type FileGitStatus = GitBadge | 'clean';

const literal = (rel: string) => `:(literal)${rel}`;
/** simple-git's env() replaces the whole environment: keep what git needs to find itself. */
const cleanGitEnv = (): Record<string, string> =>
  Object.fromEntries(Object.entries(process.env).filter(([k, v]) => v !== undefined && !/^(GIT_|EDITOR$|VISUAL$|PAGER$|SSH_ASKPASS$)/.test(k)) as [string, string][]);
const execFileP = promisify(execFile);
const TRUSTED_SCOPES = new Set(['system', 'global']);

const makeGit = (cwd: string, extra: string[]): SimpleGit => safeGit(cwd, undefined, extra);

/** Filter drivers defined by repository-level config get neutralised (empty commands). */
export function filterOverrides(configListing: string): string[] {
  const names = new Set<string>();
  for (const line of configListing.split('\n')) {
    const m = /^(\S+)\s+filter\.(.+)\.(clean|smudge|process|required)(?:\s|$)/.exec(line);
    if (m && !TRUSTED_SCOPES.has(m[1])) names.add(m[2]);
  }
  return [...names].flatMap((n) => [`filter.${n}.clean=`, `filter.${n}.smudge=`, `filter.${n}.process=`, `filter.${n}.required=false`]);
}

export class GitIndex {
  private git: SimpleGit;
  private configMtime = -1;
  private overrides: string[] = [];

  private constructor(
    readonly root: string,
    readonly excludeFile: string,
    private readonly configFile: string,
  ) {
    this.git = makeGit(root, []);
  }

  /** null when `root` is not inside a git work tree (or git is unusable there). */
  static async detect(root: string): Promise<GitIndex | null> {
    try {
      const out = await makeGit(root, []).raw(['rev-parse', '--is-inside-work-tree', '--git-path', 'info/exclude', '--git-path', 'config']);
      const [inside, exclude, config] = out.trim().split('\n');
      if (inside !== 'true') return null;
      return new GitIndex(root, path.resolve(root, exclude), path.resolve(root, config));
    } catch {
      return null;
    }
  }

  /** Re-reads filter definitions whenever the repository config file changes. */
  private async client(): Promise<SimpleGit> {
    const mtime = await stat(this.configFile).then((s) => s.mtimeMs, () => 0);
    if (mtime !== this.configMtime) {
      const listing = await makeGit(this.root, [])
        .raw(['config', '--show-scope', '--get-regexp', '^(filter\\..*|core\\.repositoryformatversion)$'])
        .catch(() => '');
      this.overrides = filterOverrides(listing);
      this.git = makeGit(this.root, this.overrides);
      this.configMtime = mtime;
    }
    return this.git;
  }

  async entryOf(rel: string): Promise<IndexEntry | null> {
    let out: string;
    try {
      out = await (await this.client()).raw(['ls-files', '-s', '-z', '--error-unmatch', '--', literal(rel)]);
    } catch (err) {
      if (/did not match/.test((err as Error).message)) return null;
      throw err;
    }
    const m = /^(\d{6}) ([0-9a-f]{40,64}) 0\t/.exec(out);
    return m ? { mode: m[1], oid: m[2] } : null;
  }

  /** Stages the file's current state (a missing file stages its removal). */
  async stage(rel: string): Promise<boolean> {
    try {
      await (await this.client()).raw(['add', '--verbose', '--', literal(rel)]);
      return true;
    } catch {
      // Ignored paths, untracked deletions, a locked index: the write stands, unstaged.
      return false;
    }
  }

  /** Puts an index entry back exactly (null: drops the path from the index). */
  async setEntry(rel: string, entry: IndexEntry | null): Promise<boolean> {
    try {
      const git = await this.client();
      if (entry) await git.raw(['update-index', '--verbose', '--add', '--cacheinfo', `${entry.mode},${entry.oid},${rel}`]);
      else if (await this.entryOf(rel)) await git.raw(['update-index', '--verbose', '--force-remove', '--', rel]);
      return true;
    } catch {
      return false;
    }
  }

  /** Runs git with the same neutralised config (hooks, fsmonitor, filters) as staging. */
  async raw(args: string[], env?: Record<string, string>): Promise<string> {
    const git = await this.client();
    if (!env) return git.raw(args);
    // simple-git refuses GIT_INDEX_FILE, so a private index is driven with plain git.
    const config = [...SAFE_GIT_CONFIG, ...this.overrides].flatMap((c) => ['-c', c]);
    const { stdout } = await execFileP('git', [...config, ...args], { cwd: this.root, env: { ...cleanGitEnv(), ...env }, maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  }

  async statusOf(rel: string): Promise<FileGitStatus | null> {
    try {
      const out = await (await this.client()).raw(['--no-optional-locks', 'status', '--porcelain=v1', '-z', '--branch', '--ignored=matching', '-uall', '--', literal(rel)]);
      const entries = out.split('\0').filter((e) => !e.startsWith('## '));
      return Object.values(parsePorcelainZ(entries.join('\0')))[0] ?? 'clean';
    } catch {
      return null;
    }
  }
}
