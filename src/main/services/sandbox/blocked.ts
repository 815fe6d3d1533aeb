// What the sandbox stopped, read from a failed command's output: the kernel's refusal shows
// up as the command's own error message, so the best evidence is the message text.

// `sh: /etc/x: Read-only file system`, `touch: cannot touch '/etc/x': Read-only file system`
const EROFS = /(?:^|[\s(])['"`]?(?!EROFS\b)([^\s'"`:]+)['"`]?:\s*Read-only file system/im;
// Python `[Errno 30] Read-only file system: '/etc/x'`, Node `EROFS: read-only file system, open '/etc/x'`
const EROFS_AFTER = /Read-only file system[:,]\s*(?:\w+\s+)?['"`]?([^\s'"`]+)/im;
const REFUSED_LOCAL = /(?:127\.0\.0\.1|localhost|::1|\[::1\])(?::|\sport\s)(\d+)/i;
const NETWORK = /Network is unreachable|Could not resolve host|getaddrinfo E(?:AI_AGAIN|NOTFOUND)|Temporary failure in name resolution|Name or service not known|ENETUNREACH|connect: network is unreachable/i;
const REFUSED = /Connection refused|ECONNREFUSED|Failed to connect/i;

export function detectBlocked(output: string, opts: { network: boolean; hidden?: readonly string[] }): string | null {
  // bwrap itself refused to build the sandbox (a mount it could not make): nothing ran.
  const setup = /^bwrap: (.+)$/m.exec(output);
  if (setup && output.trimStart().startsWith('bwrap: ')) return `the sandbox could not start (${setup[1]!.trim()})`;
  if (/Read-only file system/i.test(output)) {
    const m = EROFS.exec(output) ?? EROFS_AFTER.exec(output);
    return m ? `write to ${m[1]}` : 'write outside the workspace';
  }
  for (const p of opts.hidden ?? []) {
    const i = output.indexOf(p);
    if (i >= 0 && /Permission denied|EACCES|No such file or directory|ENOENT|Is a directory/.test(output.slice(i, i + p.length + 300))) return `read of ${p}`;
  }
  if (!opts.network) {
    if (REFUSED.test(output)) {
      const local = REFUSED_LOCAL.exec(output);
      return local ? `network access to 127.0.0.1:${local[1]}` : 'network access';
    }
    if (NETWORK.test(output)) {
      const host = /(?:resolve host:?|getaddrinfo E\w+)\s+'?([\w.-]+)/i.exec(output);
      return host ? `network access to ${host[1]}` : 'network access';
    }
  }
  return null;
}
