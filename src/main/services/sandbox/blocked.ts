// What the sandbox stopped, read from a failed command's output: the kernel's refusal shows
// up as the command's own error message, so the best evidence is the message text.

// `sh: /etc/x: Read-only file system`, `touch: cannot touch '/etc/x': Read-only file system`
const EROFS = /(?:^|[\s(])['"`]?(?!EROFS\b)([^\s'"`:]+)['"`]?:\s*Read-only file system/im;
// Python `[Errno 30] Read-only file system: '/etc/x'`, Node `EROFS: read-only file system, open '/etc/x'`
const EROFS_AFTER = /Read-only file system[:,]\s*(?:\w+\s+)?['"`]?([^\s'"`]+)/im;
const REFUSED_LOCAL = /(?:127\.0\.0\.1|localhost|::1|\[::1\])(?::|\sport\s)(\d+)/i;
const NETWORK = /Network is unreachable|Could not resolve host|getaddrinfo E(?:AI_AGAIN|NOTFOUND)|Temporary failure in name resolution|Name or service not known|ENETUNREACH|connect: network is unreachable/i;
const REFUSED = /Connection refused|ECONNREFUSED|Failed to connect/i;

export interface BlockedOptions {
  network: boolean;
  hidden?: readonly string[];
  /**
   * Whether this machine listens on a loopback port: a refused connection to one it does not
   * listen on would be refused outside the sandbox too, so it is not the sandbox's doing.
   */
  listens?: (host: string, port: number) => boolean;
}

export function detectBlocked(output: string, opts: BlockedOptions): string | null {
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
      const loopback = refusedLoopback(output);
      if (opts.listens && loopback.length && loopback.every((l) => !opts.listens!(l.host, l.port))) return null;
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

// A refused connection that names a loopback address and its port, in the spellings clients
// print: Node `connect ECONNREFUSED 127.0.0.1:5432` / `::1:5432`, curl and nc `127.0.0.1 port
// 8123`, psql `server at "localhost" (::1), port 5432`, requests `host='127.0.0.1', port=5432`,
// Go `dial tcp [::1]:5432`, bash `/dev/tcp/127.0.0.1/5432`, redis-cli `at 127.0.0.1:6379`.
const REFUSAL = /Connection refused|ECONNREFUSED|Failed to connect|Couldn'?t connect|Could not connect|Can'?t connect|actively refused/i;
const LOOPBACK_AT = /(?<![\w:.])(127(?:\.\d{1,3}){3}|localhost|0\.0\.0\.0|::ffff:127(?:\.\d{1,3}){3}|\[::1\]|::1)["'\]]?(?:\s*\(([^)\s]*)\))?(?::|\/|,?\s*port[=:\s]+)(\d{1,5})(?![.\d])/gi;
const IN_USE = /EADDRINUSE|address already in use/i;
const PORT_AT = /(?::|\sport\s+)(\d{1,5})\b/g;

/** The loopback addresses and ports the output says a connection to was refused (0.0.0.0 counts as 127.0.0.1). */
export function refusedLoopback(output: string): { host: string; port: number }[] {
  const out = new Map<string, { host: string; port: number }>();
  for (const line of output.split('\n')) {
    if (!REFUSAL.test(line)) continue;
    for (const m of line.matchAll(LOOPBACK_AT)) {
      const inParens = m[2] && /^(127(?:\.\d{1,3}){3}|::1)$/.test(m[2]) ? m[2] : null;
      const host = (inParens ?? m[1]!).toLowerCase().replace(/^\[|\]$/g, '').replace(/^::ffff:/, '').replace(/^0\.0\.0\.0$/, '127.0.0.1');
      const port = Number(m[3]);
      if (port > 0 && port < 65536) out.set(`${host} ${port}`, { host, port });
    }
  }
  return [...out.values()];
}

/** Ports the output says a listen failed on because they were taken (EADDRINUSE). */
export function portsInUse(output: string): number[] {
  const out = new Set<number>();
  for (const line of output.split('\n')) {
    if (!IN_USE.test(line)) continue;
    for (const m of line.matchAll(PORT_AT)) if (Number(m[1]) > 0 && Number(m[1]) < 65536) out.add(Number(m[1]));
  }
  return [...out];
}
