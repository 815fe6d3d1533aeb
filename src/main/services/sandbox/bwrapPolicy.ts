// The bubblewrap command line for one sandboxed command. Later mounts cover earlier ones, so
// the order is: whole system read-only, then the writable places, then the read-only holes in
// them (.git config/hooks/info, .loupe), then the hidden credentials on top of everything.
import { lstatSync, mkdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { credentialPaths } from './credentials';
import type { SandboxGrant } from './types';
import type { NetworkGuard } from './net/types';
import type { LookupAll } from '../web/addressClass';
import type { ExplainHostPort } from './hostPortReport';

export interface SandboxPolicy {
  /** The workspace: the only writable place besides the private temp folder. */
  root: string;
  grant: SandboxGrant;
  /** Whose credentials to hide (default: the HOME of this process). */
  home?: string;
  /** More paths to hide (the read deny rules' paths, expanded). */
  hide?: readonly string[];
  /**
   * Folders outside the workspace a program keeps its own state in (a hosted agent's home), writable
   * inside; created when missing. Never the workspace's protected folders, which stay read-only.
   */
  writable?: readonly string[];
  /**
   * With a network grant: who decides each host the command's proxy is asked for (and how names
   * resolve, for tests). Absent: no proxy, so no network, whatever the grant says.
   */
  network?: { guard: NetworkGuard; lookup?: LookupAll };
  /**
   * Says why a port of this machine the command found closed was out of its reach, and the rule
   * that would forward it (the gate's words); without it the result says only that no rule names it.
   */
  explainHostPort?: ExplainHostPort;
}

function kindOf(p: string): 'dir' | 'file' | null {
  try {
    const s = statSync(p);
    return s.isDirectory() ? 'dir' : 'file';
  } catch {
    return null;
  }
}

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** Where git keeps this checkout's data: `.git` itself, or for a worktree its own and the common folder. */
export function gitDirs(root: string): { dotGit: string | null; gitDir: string | null; commonDir: string | null } {
  const dotGit = path.join(root, '.git');
  let st;
  try {
    st = lstatSync(dotGit);
  } catch {
    return { dotGit: null, gitDir: null, commonDir: null };
  }
  if (st.isDirectory()) return { dotGit, gitDir: dotGit, commonDir: dotGit };
  const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, 'utf8'));
  if (!m) return { dotGit, gitDir: null, commonDir: null };
  const gitDir = path.resolve(root, m[1]!.trim());
  let commonDir = gitDir;
  try {
    commonDir = path.resolve(gitDir, readFileSync(path.join(gitDir, 'commondir'), 'utf8').trim());
  } catch {}
  return { dotGit, gitDir, commonDir };
}

/**
 * Folders that must be read-only inside; ones that do not exist yet are created empty first,
 * or a command could create `.git/hooks/pre-commit` or `.loupe/config.json` itself.
 */
function protectedPaths(root: string): string[] {
  const out: string[] = [];
  const { dotGit, gitDir, commonDir } = gitDirs(root);
  if (dotGit && gitDir !== dotGit) out.push(dotGit); // the worktree's pointer file: no redirecting it
  for (const dir of new Set([gitDir, commonDir])) {
    if (!dir || kindOf(dir) !== 'dir') continue;
    for (const sub of ['hooks', 'info']) {
      const p = path.join(dir, sub);
      if (kindOf(p) === null) mkdirSync(p, { recursive: true });
      out.push(p);
    }
    if (kindOf(path.join(dir, 'config'))) out.push(path.join(dir, 'config'));
    if (kindOf(path.join(dir, 'config.worktree'))) out.push(path.join(dir, 'config.worktree'));
  }
  const loupe = path.join(root, '.loupe');
  if (kindOf(loupe) === null) mkdirSync(loupe, { recursive: true });
  out.push(loupe);
  return out;
}

/**
 * argv for bwrap (without the program itself), ending with `--` just before the command to run.
 * `netDir`: the host folder holding the network bridge's socket, mounted read-only.
 */
export function bwrapArgs(policy: SandboxPolicy, tmpDir: string, cwd: string, netDir?: string): string[] {
  const root = real(policy.root);
  const a = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
  // The command's private temp folder (TMPDIR, set by the runner) at its host path: /tmp around it stays
  // read-only, so a write to /tmp/x is refused (and reported), not kept in a throwaway copy.
  a.push('--bind', real(tmpDir), real(tmpDir));
  // Plan mode's commands and language servers only read: the workspace and its git data stay as they are.
  const bind = policy.grant.readOnly ? '--ro-bind' : '--bind';
  a.push(bind, root, root);
  const { gitDir, commonDir } = gitDirs(root);
  // A worktree's git data lives outside it; git add and commit need it writable.
  for (const dir of new Set([commonDir, gitDir])) {
    if (dir && kindOf(dir) === 'dir' && !real(dir).startsWith(root + path.sep)) a.push(bind, real(dir), real(dir));
  }
  for (const w of policy.writable ?? []) {
    mkdirSync(w, { recursive: true });
    a.push('--bind', real(w), real(w));
  }
  for (const p of protectedPaths(root)) a.push('--ro-bind', real(p), real(p));
  const hide = [...credentialPaths(policy.home ?? process.env.HOME ?? '/nonexistent'), ...(policy.hide ?? [])];
  for (const p of new Set(hide.map(real))) {
    const k = kindOf(p);
    if (k === 'dir') a.push('--tmpfs', p, '--remount-ro', p);
    else if (k === 'file') a.push('--ro-bind', '/dev/null', p);
  }
  if (netDir) a.push('--ro-bind', netDir, netDir);
  // Always a network namespace of its own: its only way out is the bridge's socket in netDir.
  a.push('--unshare-net', '--unshare-pid', '--die-with-parent', '--new-session', '--chdir', real(cwd), '--');
  return a;
}
