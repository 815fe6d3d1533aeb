// The facts about this machine and workspace the system prompt states (docs/architecture.md,
// "What the agent is told"): gathered once per request, since git status costs a process.
import os from 'node:os';
import type { SandboxStatusView } from '../../../shared/contract';
import { GitRunner } from '../../services/git/gitRunner';
import { selectShell } from '../../services/shell/shellSelector';
import type { SkillBrief } from './skillsText';

export interface SandboxFacts {
  status: SandboxStatusView;
  /** Command patterns of the network allow rules in force. */
  networkAllowed: string[];
}

export interface EnvironmentFacts {
  os: string;
  /** The shell commands run in. */
  shell: string;
  root: string;
  /** "branch main: 2 changed, 1 untracked", "not a git repository", … */
  git: string;
  /** Local date and weekday. */
  today: string;
  /** null: unknown (no workspace services behind the prompt). */
  sandbox: SandboxFacts | null;
  /** The skills in reach, looked for once per request (absent: none behind the prompt). */
  skills?: SkillBrief[];
}

/** git status may not hold the request up longer than this. */
export const GIT_FACTS_TIMEOUT_MS = 3_000;

const OS_NAMES: Partial<Record<NodeJS.Platform, string>> = { linux: 'Linux', darwin: 'macOS', win32: 'Windows' };
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

export function describeOs(): string {
  return `${OS_NAMES[process.platform] ?? process.platform} (${process.platform === 'darwin' ? 'Darwin' : 'kernel'} ${os.release()}, ${os.arch()})`;
}

export function localDate(d: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} (${WEEKDAYS[d.getDay()]})`;
}

/** `git status -b` porcelain (NUL-separated) as one line: the branch, its upstream distance, the changes. */
export function summariseStatus(out: string, detachedAt?: string): string {
  const entries = out.split('\0').filter(Boolean);
  const head = entries[0]?.startsWith('## ') ? entries.shift()!.slice(3) : '';
  let branch: string;
  const noCommits = /^(?:No commits yet|Initial commit) on (.+)$/.exec(head);
  if (noCommits) branch = `branch ${noCommits[1]} (no commits yet)`;
  else if (head.startsWith('HEAD (no branch)')) branch = detachedAt ? `detached HEAD at ${detachedAt}` : 'detached HEAD';
  else {
    const m = /^(.+?)(?:\.\.\.(\S+))?(?: \[(.+)\])?$/.exec(head);
    branch = m ? `branch ${m[1]}${m[3] ? ` (${m[3]}${m[2] ? ` ${m[2]}` : ''})` : ''}` : 'unknown branch';
  }
  let changed = 0;
  let untracked = 0;
  let conflicts = 0;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    if (e.length < 3) continue;
    const xy = e.slice(0, 2);
    // Loupe's own folder is not the person's change, whether or not git has been told to ignore it yet.
    if (/^\.loupe(\/|$)/.test(e.slice(3))) continue;
    if (xy === '??') untracked++;
    else if (xy.includes('U') || xy === 'AA' || xy === 'DD') conflicts++;
    else changed++;
    // A rename or copy carries its old path as the next entry.
    if (xy[0] === 'R' || xy[0] === 'C') i++;
  }
  const parts = [changed && `${changed} changed`, untracked && `${untracked} untracked`, conflicts && `${conflicts} in conflict`].filter(Boolean);
  return `${branch}: ${parts.length ? parts.join(', ') : 'clean'}`;
}

/** The branch and a one-line status, through the one git runner; never throws. */
export async function gitFacts(root: string, signal?: AbortSignal): Promise<string> {
  const git = new GitRunner(root);
  const call = { signal, timeoutMs: GIT_FACTS_TIMEOUT_MS };
  try {
    const out = await git.exec(['--no-optional-locks', 'status', '--porcelain=v1', '-b', '-z', '--untracked-files=normal'], call);
    if (out.exitCode !== 0) return /not a git repository/i.test(out.stderr) ? 'not a git repository' : `git status failed (${out.stderr.trim().split('\n')[0] || `exit ${out.exitCode}`})`;
    const text = out.stdout.toString('utf8');
    const detached = text.startsWith('## HEAD (no branch)') ? (await git.exec(['rev-parse', '--short', 'HEAD'], call)).stdout.toString('utf8').trim() : undefined;
    return summariseStatus(text, detached);
  } catch (err) {
    if (signal?.aborted) throw err;
    return `git status did not answer (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`;
  }
}

export async function gatherEnvironment(opts: { root: string; now?: Date; sandbox?: () => Promise<SandboxFacts>; signal?: AbortSignal }): Promise<EnvironmentFacts> {
  const [git, sandbox] = await Promise.all([gitFacts(opts.root, opts.signal), opts.sandbox ? opts.sandbox().catch(() => null) : Promise.resolve(null)]);
  return { os: describeOs(), shell: selectShell({ posixOnly: true }).path, root: opts.root, git, today: localDate(opts.now ?? new Date()), sandbox };
}
