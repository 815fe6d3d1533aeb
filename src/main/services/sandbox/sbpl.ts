// The macOS sandbox-exec profile (SBPL) for one command: the same promises as the bubblewrap
// policy. Allow-by-default for reads and processes, because toolchains read all over the
// system; writes only in the workspace and the private temp folder; the network only with a grant.
import path from 'node:path';
import { credentialPaths } from './credentials';
import { gitDirs, type SandboxPolicy } from './bwrapPolicy';

/** SBPL string literal: backslash and double quote escaped. */
export function sbplString(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

export function sandboxExecProfile(policy: SandboxPolicy, tmpDir: string): string {
  const { dotGit, gitDir, commonDir } = gitDirs(policy.root);
  const writable = [tmpDir, '/dev/null', '/dev/tty', '/dev/dtracehelper'];
  if (!policy.readOnlyWorkspace) writable.push(policy.root);
  if (!policy.readOnlyWorkspace) for (const d of new Set([gitDir, commonDir])) if (d) writable.push(d);
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
  if (!policy.grant.network) lines.push('(deny network-outbound)', '(deny network-inbound)', '(allow network-outbound (remote unix-socket))');
  return lines.join('\n') + '\n';
}
