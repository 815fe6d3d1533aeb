// The one way Loupe runs ripgrep: an argument vector (never a shell string), no config file
// (RIPGREP_CONFIG_PATH could otherwise inject `--pre=<program>`), a hard time bound, and
// records delivered as they arrive so callers can stop reading early.
import { spawn } from 'node:child_process';
import { rgPath } from '@vscode/ripgrep';
import { AbortedError } from '../../errors';
import { SearchFailedError, SearchQueryError, SearchTimeoutError } from './errors';

export const RG_TIMEOUT_MS = 30_000;
const STDERR_CAP = 8 * 1024;
const EMPTY = Buffer.alloc(0);

export interface RipgrepRun {
  cwd: string;
  /** Everything after `rg --no-config`; the caller puts the pattern after `--regexp`. */
  args: string[];
  /** Records are split on this byte: '\n' for --json, '\0' for --null listings. */
  separator?: '\n' | '\0';
  /** Called per record; return false to stop rg (the run then ends as `stopped`). */
  onRecord: (record: Buffer) => boolean | void;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Paths rg's own messages may name; a message about any other path is dropped. */
  visible?: (rel: string) => boolean;
}

export interface RipgrepOutcome {
  /** 0 found, 1 nothing found, 2 errors (possibly alongside results). */
  exitCode: number;
  stderr: string;
  /** The caller asked to stop early. */
  stopped: boolean;
  /** The time bound hit after some records arrived; what arrived is still valid. */
  timedOut: boolean;
}

/** rg's environment without anything that changes its behaviour behind our back. */
function rgEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.RIPGREP_CONFIG_PATH;
  return env;
}

export function runRipgrep(run: RipgrepRun): Promise<RipgrepOutcome> {
  const timeoutMs = run.timeoutMs ?? RG_TIMEOUT_MS;
  const sep = (run.separator ?? '\n') === '\n' ? 0x0a : 0x00;
  return new Promise((resolve, reject) => {
    if (run.signal?.aborted) return reject(new AbortedError('The search'));
    const child = spawn(rgPath, ['--no-config', ...run.args], { cwd: run.cwd, env: rgEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let stopped = false;
    let timedOut = false;
    let sawRecord = false;
    let pending: Buffer = EMPTY;
    const stop = () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, timeoutMs);
    const onAbort = () => stop();
    run.signal?.addEventListener('abort', onAbort, { once: true });

    const deliver = (record: Buffer): void => {
      if (stopped || record.length === 0) return;
      sawRecord = true;
      if (run.onRecord(record) === false) {
        stopped = true;
        stop();
      }
    };
    // Records are cut out of each chunk in place; only one that spans two chunks is copied.
    child.stdout.on('data', (chunk: Buffer) => {
      if (stopped) return;
      let start = 0;
      let at = chunk.indexOf(sep);
      if (at !== -1 && pending.length) {
        deliver(Buffer.concat([pending, chunk.subarray(0, at)]));
        pending = EMPTY;
        start = at + 1;
        at = chunk.indexOf(sep, start);
      }
      while (at !== -1 && !stopped) {
        deliver(chunk.subarray(start, at));
        start = at + 1;
        at = chunk.indexOf(sep, start);
      }
      if (!stopped) pending = pending.length ? Buffer.concat([pending, chunk.subarray(start)]) : chunk.subarray(start);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < STDERR_CAP) stderr += chunk.toString('utf8').slice(0, STDERR_CAP - stderr.length);
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new SearchFailedError(err.message));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (run.visible) stderr = scrubStderr(stderr, run.visible);
      run.signal?.removeEventListener('abort', onAbort);
      if (!stopped) deliver(pending);
      if (run.signal?.aborted) return reject(new AbortedError('The search'));
      if (timedOut && !sawRecord) return reject(new SearchTimeoutError(timeoutMs));
      if (stopped || timedOut) return resolve({ exitCode: 0, stderr, stopped, timedOut });
      if (code === 2 && !sawRecord && stderr.trim()) {
        return reject(isQueryError(stderr) ? new SearchQueryError(stderr) : new SearchFailedError(stderr));
      }
      if (code !== 0 && code !== 1 && code !== 2) return reject(new SearchFailedError(`exit code ${code}: ${stderr}`));
      resolve({ exitCode: code, stderr, stopped, timedOut });
    });
  });
}

/** rg's messages start with the path they are about (`rg: ./x: …`, `./.gitignore: line 3: …`). */
export function scrubStderr(stderr: string, visible: (rel: string) => boolean): string {
  return stderr
    .split('\n')
    .filter((line) => {
      const m = /^(?:rg: )?(.+?): /.exec(line);
      if (!m) return true;
      const named = m[1].replace(/^\.\//, '');
      return visible(named);
    })
    .join('\n');
}

function isQueryError(stderr: string): boolean {
  return /regex parse error|error parsing|unrecognized file type|invalid (glob|definition)|glob|literal|unclosed|look-around/i.test(stderr);
}

/** A note for the model when rg exited 2 but still produced results. */
export function partialNote(outcome: RipgrepOutcome): string | null {
  if (outcome.timedOut) return 'The search hit its time bound, so results are partial. Narrow it with a path, glob or type.';
  if (outcome.exitCode !== 2) return null;
  const first = outcome.stderr.trim().split('\n').slice(0, 3).join('; ');
  return `Some paths could not be searched, results may be partial${first ? ` (${first})` : ''}.`;
}
