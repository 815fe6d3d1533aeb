// Which TCP ports a process listens on, from /proc (Linux). A sandboxed process has a network
// namespace of its own: /proc/<pid>/net/tcp of any process inside lists exactly its sockets.
// Outside the sandbox the table is the whole machine's, so a listener counts only when its
// socket is held open by a process of the family (its inode among their descriptors).
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export interface Listener {
  port: number;
  /** The address it is bound to, as the kernel shows it (127.0.0.1, ::1, 0.0.0.0, ::). */
  address: string;
  inode: number;
}

function hexV4(h: string): string {
  const n = parseInt(h, 16);
  return [n & 255, (n >>> 8) & 255, (n >>> 16) & 255, n >>> 24].join('.');
}

function hexV6(h: string): string {
  // Four 32-bit words, each in host (little-endian) byte order.
  const bytes: number[] = [];
  for (let w = 0; w < 4; w++) {
    const word = h.slice(w * 8, w * 8 + 8);
    for (let b = 3; b >= 0; b--) bytes.push(parseInt(word.slice(b * 2, b * 2 + 2), 16));
  }
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  const full = groups.join(':');
  if (full === '0:0:0:0:0:0:0:0') return '::';
  if (full === '0:0:0:0:0:0:0:1') return '::1';
  if (full.startsWith('0:0:0:0:0:ffff:')) return `::ffff:${hexV4(h.slice(24, 32))}`;
  return full;
}

/** LISTEN sockets in one /proc/<pid>/net/tcp{,6} text. */
export function parseTcpTable(text: string, v6: boolean): Listener[] {
  const out: Listener[] = [];
  for (const line of text.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 10 || f[3] !== '0A') continue;
    const [addr, port] = f[1]!.split(':');
    out.push({ port: parseInt(port!, 16), address: v6 ? hexV6(addr!) : hexV4(addr!), inode: Number(f[9]) });
  }
  return out;
}

/** Every listening socket in the network namespace `pid` lives in; [] when it is gone. */
export function namespaceListeners(pid: number): Listener[] {
  const out: Listener[] = [];
  for (const [file, v6] of [['tcp', false], ['tcp6', true]] as const) {
    try {
      out.push(...parseTcpTable(readFileSync(`/proc/${pid}/net/${file}`, 'utf8'), v6));
    } catch {
      // Gone, or no IPv6.
    }
  }
  return out;
}

/** `pid` and everything below it, by the kernel's children lists (cheap: no whole-table scan). */
export function descendants(pid: number): number[] {
  const out: number[] = [];
  const stack = [pid];
  while (stack.length && out.length < 10_000) {
    const p = stack.pop()!;
    out.push(p);
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${p}/task`);
    } catch {
      continue;
    }
    for (const t of tasks) {
      try {
        for (const c of readFileSync(`/proc/${p}/task/${t}/children`, 'utf8').trim().split(' ')) if (c) stack.push(Number(c));
      } catch {
        // Exited while we looked.
      }
    }
  }
  return out;
}

/** Socket inodes the given processes hold open. */
export function socketInodes(pids: readonly number[]): Set<number> {
  const out = new Set<number>();
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m) out.add(Number(m[1]));
      } catch {
        // Closed meanwhile.
      }
    }
  }
  return out;
}

/** The ports a process family outside any sandbox listens on (Linux; [] elsewhere). */
export function familyPorts(rootPid: number): Listener[] {
  if (process.platform !== 'linux') return [];
  const pids = descendants(rootPid);
  const mine = socketInodes(pids);
  if (!mine.size) return [];
  return namespaceListeners(rootPid).filter((l) => mine.has(l.inode));
}

/** The ports listened on inside a sandbox's own namespace, but those the sandbox's bridge holds. */
export function sandboxPorts(rootPid: number, exclude: ReadonlySet<number>): Listener[] {
  if (process.platform !== 'linux') return [];
  // The wrapper (bwrap) stays in the host's namespace; its child is the first process inside.
  const inside = descendants(rootPid).find((p) => p !== rootPid);
  if (inside === undefined) return [];
  return namespaceListeners(inside).filter((l) => !exclude.has(l.port));
}

/** One entry per port, IPv4 first (what a forward should dial). */
export function uniquePorts(listeners: readonly Listener[]): Listener[] {
  const byPort = new Map<number, Listener>();
  for (const l of listeners) if (!byPort.has(l.port) || (byPort.get(l.port)!.address.includes(':') && !l.address.includes(':'))) byPort.set(l.port, l);
  return [...byPort.values()].sort((a, b) => a.port - b.port);
}
