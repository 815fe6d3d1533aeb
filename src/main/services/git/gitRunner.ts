// The one way Loupe runs git. Every call gets the neutral config of gitEnv.ts; every call that
// could reach a driver also gets overrides for each filter/diff/merge driver the repository
// defines, read just before the call (an included config file can change between calls), so
// looking at, staging into or committing to a hostile repository runs none of its programs.
import { execFile } from 'node:child_process';
import { AbortedError } from '../../errors';
import { GitCommandError, GitTimeoutError } from './errors';
import { DRIVER_LISTING, NEUTRAL_CONFIG, PERFORMANCE_CONFIG, driverOverrides, gitEnv, hardenArgs, mayRunDrivers } from './gitEnv';

export const GIT_TIMEOUT_MS = 30_000;
const MAX_BUFFER = 256 * 1024 * 1024;

export interface GitCall {
  /** Loupe's own additions to the environment: GIT_INDEX_FILE for a private index. */
  env?: Record<string, string>;
  signal?: AbortSignal;
  timeoutMs?: number;
  /**
   * Lets git take the index lock for work it may skip (status refreshing the index's stat data
   * and storing the untracked cache). Off by default.
   */
  optionalLocks?: boolean;
  /** Written to git's stdin (`cat-file --batch`, `update-index --index-info`); stdin is closed either way. */
  input?: Buffer | string;
  /**
   * A file Loupe wrote in the format of git's fsmonitor hook (a token, then the paths that
   * changed, each NUL-terminated): git reads it with `cat` as the hook's answer and looks only
   * at those paths (the command snapshots, workTreeSnapshots.ts). The one program this lets git
   * run is `cat` of Loupe's own file; the repository chooses nothing.
   */
  fsmonitor?: string;
}

/** The hook command that answers with the file's content; `#` drops the arguments git appends. */
export function fsmonitorCommand(file: string): string {
  return `cat '${file.replace(/'/g, `'\\''`)}' #`;
}

export interface GitOutput {
  exitCode: number;
  stdout: Buffer;
  stderr: string;
}

export interface GitRunnerOptions {
  /**
   * false: git runs on plain files (`merge-file`), no repository config matters, and the
   * driver listing is skipped.
   */
  repository?: boolean;
}

export class GitRunner {
  constructor(
    readonly cwd: string,
    private readonly opts: GitRunnerOptions = {},
  ) {}

  /** Runs git and returns its exit code and output; throws only when it could not run. */
  async exec(args: readonly string[], call: GitCall = {}): Promise<GitOutput> {
    const overrides = this.opts.repository === false || !mayRunDrivers(args) ? [] : await this.overrides(call);
    // Later entries win: the fsmonitor answer replaces NEUTRAL_CONFIG's `false` for this call only.
    const hook: [string, string][] = call.fsmonitor ? [['core.fsmonitor', fsmonitorCommand(call.fsmonitor)], ['core.fsmonitorHookVersion', '2']] : [];
    return spawnGit(this.cwd, hardenArgs(args), [...PERFORMANCE_CONFIG, ...NEUTRAL_CONFIG, ...overrides, ...hook], call);
  }

  /** stdout as text; a non-zero exit throws GitCommandError. */
  async run(args: readonly string[], call: GitCall = {}): Promise<string> {
    return (await this.runBuffer(args, call)).toString('utf8');
  }

  async runBuffer(args: readonly string[], call: GitCall = {}): Promise<Buffer> {
    const out = await this.exec(args, call);
    if (out.exitCode !== 0) throw new GitCommandError(args, out.exitCode, out.stderr);
    return out.stdout;
  }

  /** A file's content at a revision, as stored: `cat-file blob`, never through textconv. */
  async blob(rev: string, rel: string, call: GitCall = {}): Promise<Buffer | null> {
    // `./` makes the path relative to cwd (the workspace), which may be a subfolder of the repo.
    const out = await this.exec(['cat-file', 'blob', `${rev}:./${rel}`], call);
    return out.exitCode === 0 ? out.stdout : null;
  }

  /** Reading config runs nothing (includes are read, never executed). */
  private async overrides(call: GitCall): Promise<[string, string][]> {
    const out = await spawnGit(this.cwd, [...DRIVER_LISTING], NEUTRAL_CONFIG, { signal: call.signal, timeoutMs: call.timeoutMs });
    // Exit 1: no such keys. Anything else (not a repository): nothing to neutralise.
    return out.exitCode === 0 ? driverOverrides(out.stdout.toString('utf8')) : [];
  }
}

function spawnGit(cwd: string, args: string[], config: readonly (readonly [string, string])[], call: GitCall): Promise<GitOutput> {
  const timeoutMs = call.timeoutMs ?? GIT_TIMEOUT_MS;
  // A git that may hold the index lock is stopped with SIGTERM, on which it removes the lock
  // file; killed outright it would leave index.lock behind and the person's next git fails.
  const killSignal = call.optionalLocks ? 'SIGTERM' : 'SIGKILL';
  return new Promise((resolve, reject) => {
    if (call.signal?.aborted) return reject(new AbortedError('git'));
    const child = execFile(
      'git',
      args,
      { cwd, env: gitEnv(config, call.env, call.optionalLocks), encoding: 'buffer', maxBuffer: MAX_BUFFER, timeout: timeoutMs, killSignal, signal: call.signal, windowsHide: true },
      (err, stdout, stderr) => {
        const text = stderr.toString('utf8');
        if (!err) return resolve({ exitCode: 0, stdout, stderr: text });
        const e = err as NodeJS.ErrnoException & { code?: unknown; killed?: boolean; signal?: string | null };
        if (call.signal?.aborted) return reject(new AbortedError('git'));
        if (e.killed && e.signal === killSignal) return reject(new GitTimeoutError(args, timeoutMs));
        if (typeof e.code === 'number') return resolve({ exitCode: e.code, stdout, stderr: text });
        reject(new GitCommandError(args, null, text || e.message));
      },
    );
    // A git that exits before reading all of it closes the pipe: that is its answer, not ours to throw.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(call.input);
  });
}
