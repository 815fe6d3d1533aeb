// The one way Loupe runs git. Every call gets the neutral config of gitEnv.ts; every call that
// could reach a driver also gets overrides for each filter/diff/merge driver the repository
// defines, read just before the call (an included config file can change between calls), so
// looking at, staging into or committing to a hostile repository runs none of its programs.
import { spawn, type ChildProcess } from 'node:child_process';
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

  /**
   * One `git cat-file --batch` kept running for many lookups: a process start per command's
   * capture is a third of its cost at 10,000 files. `--batch` prints the stored bytes and runs
   * no filter or textconv, so no driver listing is needed.
   */
  catFileBatch(prefix: readonly string[] = [], env?: Record<string, string>): CatFileBatch {
    return new CatFileBatch(() => spawn('git', hardenArgs([...prefix, 'cat-file', '--batch']), { cwd: this.cwd, env: gitEnv([...PERFORMANCE_CONFIG, ...NEUTRAL_CONFIG], env), stdio: ['pipe', 'pipe', 'ignore'], windowsHide: true }));
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
    let timedOut = false;
    // git runs some of its work as child processes (`worktree add` checks out through a `git
    // reset --hard` of its own): stopped, its whole process group goes, or a child left behind
    // writes on into a folder its caller is already removing.
    const child = spawn('git', args, { cwd, env: gitEnv(config, call.env, call.optionalLocks), detached: process.platform !== 'win32', windowsHide: true });
    const stop = () => killGroup(child, killSignal);
    const timer = setTimeout(() => ((timedOut = true), stop()), timeoutMs);
    call.signal?.addEventListener('abort', stop, { once: true });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    // One bound for both streams, as execFile's maxBuffer was: a git that will not stop talking is stopped.
    let size = 0;
    let overflow = false;
    const keep = (into: Buffer[]) => (d: Buffer) => {
      size += d.length;
      if (size > MAX_BUFFER) return overflow || ((overflow = true), stop());
      into.push(d);
    };
    child.stdout.on('data', keep(out));
    child.stderr.on('data', keep(err));
    let failed: Error | null = null;
    child.on('error', (e) => (failed ??= e));
    child.on('close', (code) => {
      clearTimeout(timer);
      call.signal?.removeEventListener('abort', stop);
      const stdout = Buffer.concat(out);
      const text = Buffer.concat(err).toString('utf8');
      if (call.signal?.aborted) return reject(new AbortedError('git'));
      if (timedOut) return reject(new GitTimeoutError(args, timeoutMs));
      if (failed) return reject(new GitCommandError(args, null, text || failed.message));
      if (overflow) return reject(new GitCommandError(args, null, `git's output passed ${MAX_BUFFER} bytes`));
      if (typeof code === 'number') return resolve({ exitCode: code, stdout, stderr: text });
      reject(new GitCommandError(args, null, text || 'git was stopped by a signal'));
    });
    // A git that exits before reading all of it closes the pipe: that is its answer, not ours to throw.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(call.input);
  });
}

/** Signals git's process group (its own: it runs detached), or git alone where there are none. */
function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (process.platform === 'win32' || child.pid === undefined) throw new Error('no process group');
    process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}

/**
 * Lookups through one long-running `cat-file --batch`, one at a time. A git that dies or a
 * lookup aborted ends the process; the next lookup starts another.
 */
export class CatFileBatch {
  private child: ChildProcess | null = null;
  private chunks: Buffer[] = [];
  private buffered = 0;
  private wake: (() => void) | null = null;
  private ended = false;
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(private readonly start: () => ChildProcess) {}

  /** Each object's bytes, or null when git does not have it. */
  read(oids: readonly string[], signal?: AbortSignal): Promise<Map<string, Buffer | null>> {
    const job = this.queue.then(() => this.lookup(oids, signal));
    this.queue = job.catch(() => undefined);
    return job;
  }

  private async lookup(oids: readonly string[], signal?: AbortSignal): Promise<Map<string, Buffer | null>> {
    if (this.closed) throw new GitCommandError(['cat-file', '--batch'], null, 'closed');
    if (signal?.aborted) throw new AbortedError('git');
    const child = this.child ?? this.spawn();
    const abort = () => this.stop();
    signal?.addEventListener('abort', abort, { once: true });
    // Idle, the process holds the app open no more than a closed file would (on exit its stdin ends, and so does it).
    hold(child, true);
    try {
      child.stdin!.write(oids.map((o) => `${o}\n`).join(''));
      const out = new Map<string, Buffer | null>();
      for (const oid of oids) {
        const head = (await this.line()).toString('utf8').split(' ');
        if (head[1] === 'missing') {
          out.set(oid, null);
          continue;
        }
        const size = Number(head[2]);
        if (!Number.isSafeInteger(size) || size < 0) throw new GitCommandError(['cat-file', '--batch'], null, `unexpected answer: ${head.join(' ')}`);
        const body = await this.take(size + 1);
        out.set(oid, body.subarray(0, size));
      }
      return out;
    } catch (err) {
      this.stop();
      if (signal?.aborted) throw new AbortedError('git');
      throw err;
    } finally {
      signal?.removeEventListener('abort', abort);
      hold(child, false);
    }
  }

  private spawn(): ChildProcess {
    const child = this.start();
    this.child = child;
    this.chunks = [];
    this.buffered = 0;
    this.ended = false;
    child.stdout!.on('data', (d: Buffer) => {
      this.chunks.push(d);
      this.buffered += d.length;
      this.wake?.();
    });
    const end = () => {
      if (this.child !== child) return;
      this.ended = true;
      this.child = null;
      this.wake?.();
    };
    child.on('exit', end);
    child.on('error', end);
    child.stdin!.on('error', () => undefined);
    return child;
  }

  /** Waits for more output; throws when git is gone. */
  private async more(): Promise<void> {
    if (this.ended) throw new GitCommandError(['cat-file', '--batch'], null, 'git exited during a lookup');
    await new Promise<void>((r) => (this.wake = r));
    this.wake = null;
  }

  private async line(): Promise<Buffer> {
    for (;;) {
      if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks)];
      const nl = this.chunks.length ? this.chunks[0].indexOf(0x0a) : -1;
      if (nl >= 0) return (await this.take(nl + 1)).subarray(0, nl);
      await this.more();
    }
  }

  private async take(n: number): Promise<Buffer> {
    while (this.buffered < n) await this.more();
    const all = Buffer.concat(this.chunks);
    this.chunks = all.length > n ? [all.subarray(n)] : [];
    this.buffered = all.length - n;
    return all.subarray(0, n);
  }

  private stop(): void {
    const child = this.child;
    this.child = null;
    this.ended = true;
    this.wake?.();
    child?.kill('SIGKILL');
  }

  /** Ends the process; later lookups fail. */
  close(): void {
    this.closed = true;
    this.stop();
  }
}

function hold(child: ChildProcess, on: boolean): void {
  for (const h of [child, child.stdin, child.stdout] as ({ ref(): void; unref(): void } | null)[]) {
    if (on) h?.ref();
    else h?.unref();
  }
}
