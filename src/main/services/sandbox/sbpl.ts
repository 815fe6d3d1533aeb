// The macOS sandbox-exec profile (SBPL) for one command: the same promises as the bubblewrap
// policy. Allow-by-default for reads and processes, because toolchains read all over the
// system; writes only in the workspace and the private temp folder. Network: a command may bind
// and accept on local ports (a dev server), and connect out only to its filtering proxy's port
// and to the ports of this machine its rules name, when it has a grant (docs/architecture.md,
// "The sandbox's network"); never elsewhere, since macOS gives it no network namespace of its own
// and 127.0.0.1 is the host's.
import path from 'node:path';
import { credentialPaths } from './credentials';
import { gitDirs, type SandboxPolicy } from './bwrapPolicy';

/** SBPL string literal: backslash and double quote escaped. */
export function sbplString(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

export function sandboxExecProfile(policy: SandboxPolicy, tmpDir: string, proxyPort = 0, hostPorts: readonly number[] = []): string {
  const { dotGit, gitDir, commonDir } = gitDirs(policy.root);
  const writable = [tmpDir, '/dev/null', '/dev/tty', '/dev/dtracehelper'];
  // Plan mode's commands and language servers only read: the workspace and its git data stay as they are.
  if (!policy.grant.readOnly) writable.push(policy.root, ...new Set([gitDir, commonDir].filter((d): d is string => !!d)));
  writable.push(...(policy.writable ?? []));
  const readOnly = [path.join(policy.root, '.loupe')];
  if (dotGit && dotGit !== gitDir) readOnly.push(dotGit);
  for (const d of new Set([gitDir, commonDir])) if (d) readOnly.push(path.join(d, 'config'), path.join(d, 'hooks'), path.join(d, 'info'));
  const hidden = [...credentialPaths(policy.home ?? process.env.HOME ?? '/nonexistent'), ...(policy.hide ?? [])];
  const sub = (p: string) => `(subpath ${sbplString(p)})`;
  const lines = [
    '(version 1)',
    '(allow default)',
    '(deny file-write*)',
    `(allow file-write* ${writable.map(sub).join(' ')})`,
    `(deny file-write* ${readOnly.map(sub).join(' ')})`,
    `(deny file-read* ${hidden.map(sub).join(' ')})`,
  ];
  lines.push('(deny network*)', '(allow network-bind (local ip "localhost:*"))', '(allow network-inbound (local ip "localhost:*"))');
  if (proxyPort > 0) lines.push(`(allow network-outbound (remote ip "localhost:${proxyPort}"))`);
  for (const port of hostPorts) lines.push(`(allow network-outbound (remote ip "localhost:${port}"))`);
  lines.push('(allow network-outbound (remote unix-socket))');
  return lines.join('\n') + '\n';
}
