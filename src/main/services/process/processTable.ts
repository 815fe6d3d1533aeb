// A snapshot of the process table, so a terminal's or a command's whole family can be
// signalled: jobs that an interactive shell put in their own process groups included.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcInfo {
  pid: number;
  ppid: number;
  pgid: number;
  sid: number;
}

function fromProc(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // The command name may contain spaces and parentheses: fields start after the last ')'.
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.push({ pid: Number(name), ppid: Number(f[1]), pgid: Number(f[2]), sid: Number(f[3]) });
    } catch {
      // Exited while we looked.
    }
  }
  return out;
}

function fromPs(): ProcInfo[] {
  const text = execFileSync('ps', ['-A', '-o', 'pid=,ppid=,pgid=,sess='], { encoding: 'utf8' });
  return text
    .split('\n')
    .map((l) => l.trim().split(/\s+/).map(Number))
    .filter((n) => n.length >= 3 && n.every(Number.isFinite))
    .map(([pid, ppid, pgid, sid]) => ({ pid, ppid, pgid, sid: sid ?? -1 }));
}

export function processTable(): ProcInfo[] {
  if (process.platform === 'linux') return fromProc();
  try {
    return fromPs();
  } catch {
    return [];
  }
}

/** Every process in `root`'s session or below it in the tree (excluding nothing). */
export function familyOf(root: number, table = processTable()): ProcInfo[] {
  const children = new Map<number, ProcInfo[]>();
  for (const p of table) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const found = new Map<number, ProcInfo>();
  const stack = table.filter((p) => p.pid === root || (process.platform === 'linux' && p.sid === root));
  while (stack.length) {
    const p = stack.pop()!;
    if (found.has(p.pid)) continue;
    found.set(p.pid, p);
    stack.push(...(children.get(p.pid) ?? []));
  }
  return [...found.values()];
}

export function signalAll(pids: Iterable<number>, sig: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, sig);
    } catch {
      // Already gone.
    }
  }
}
