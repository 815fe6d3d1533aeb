// Finds out once per workspace whether an OS sandbox works here. Asked lazily: nothing at
// start-up waits for it. A bwrap on PATH is not enough: without user namespaces it fails at
// run time, so the probe runs a real trial command.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { SandboxAvailability } from './types';

const TRIAL_MS = 5000;

function onPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const p = path.join(dir, name);
    if (existsSync(p)) return p;
  }
  return null;
}

function trial(bin: string, args: string[]): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(bin, args, { timeout: TRIAL_MS }, (err, _out, stderr) => resolve(err ? (String(stderr).trim() || err.message) : null));
  });
}

export async function probeSandbox(platform: NodeJS.Platform = process.platform): Promise<SandboxAvailability> {
  if (platform === 'linux') {
    const bwrap = onPath('bwrap');
    if (!bwrap) return { available: false, kind: null, reason: 'bubblewrap (bwrap) is not installed', install: 'sudo apt install bubblewrap (Fedora: sudo dnf install bubblewrap)' };
    const failed = await trial(bwrap, ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-pid', '--unshare-net', '--die-with-parent', '--new-session', 'true']);
    if (failed) return { available: false, kind: null, reason: `bwrap cannot create namespaces here: ${failed.split('\n')[0]}`, install: 'enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or on Ubuntu 24.04+ kernel.apparmor_restrict_unprivileged_userns=0)' };
    return { available: true, kind: 'bwrap', reason: null, install: null };
  }
  if (platform === 'darwin') {
    if (!existsSync('/usr/bin/sandbox-exec')) return { available: false, kind: null, reason: '/usr/bin/sandbox-exec is missing', install: null };
    return { available: true, kind: 'sandbox-exec', reason: null, install: null };
  }
  return { available: false, kind: null, reason: `no OS sandbox is supported on ${platform}`, install: null };
}

export class SandboxProbe {
  private result: Promise<SandboxAvailability> | null = null;

  status(): Promise<SandboxAvailability> {
    this.result ??= probeSandbox();
    return this.result;
  }
}
