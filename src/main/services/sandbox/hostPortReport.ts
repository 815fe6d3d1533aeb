// What a sandboxed command's output says about the ports of this machine (docs/architecture.md,
// "The sandbox's network"). Its loopback is its own, so a client inside that dials a service of
// this machine no rule forwards gets a plain "connection refused": read from its output (the
// kernel tells nothing else), that is reported as the proxy reports a refused host, with the
// port and the rule that would allow it, when something of this machine does listen there
// (otherwise it would have been refused outside the sandbox too). A server of the command's own
// that finds a forwarded port taken is told whose port it is.
import { hostPort } from '../permissions/hostEntry';
import { namespaceListeners, type Listener } from '../processes/listeningPorts';
import { portsInUse, refusedLoopback } from './blocked';
import type { HostPortForwards } from './net/hostPorts';

export interface HostPortFinding {
  /** `127.0.0.1:5432`, `[::1]:6379`. */
  host: string;
  /** Why, in a clause (what `blocked` says). */
  why: string;
  /** Why, and what would allow it (what the result's refused hosts say). */
  reason: string;
  /** How `blocked` words it: a connection out, or a server's listen. */
  what: 'network access to' | 'listening on';
}

/** Why `host:port` of this machine was out of reach, and the rule that would allow it (the gate knows). */
export type ExplainHostPort = (host: string, port: number) => Promise<{ why: string; fix: string | null }>;

const ANY = ['0.0.0.0', '::'];

/** Whether this machine (Loupe's own network namespace) listens on `host:port`. */
function listensOn(listeners: readonly Listener[], host: string, port: number): boolean {
  const at = host === 'localhost' ? ['127.0.0.1', '::1'] : [host];
  return listeners.some((l) => l.port === port && (ANY.includes(l.address) || at.includes(l.address) || at.some((a) => l.address === `::ffff:${a}`)));
}

/** Whether this machine listens on `host:port` now (Linux; elsewhere it cannot tell, so yes). */
export function thisMachineListens(host: string, port: number): boolean {
  if (process.platform !== 'linux') return true;
  return listensOn(namespaceListeners(process.pid), host, port);
}

/** `known`: hosts already reported (a process that keeps retrying is explained once). */
export async function hostPortFindings(output: string, forwards: HostPortForwards | null, explain?: ExplainHostPort, known?: ReadonlySet<string>): Promise<HostPortFinding[]> {
  if (process.platform !== 'linux') return [];
  const out: HostPortFinding[] = [];
  let listeners: Listener[] | null = null;
  for (const r of refusedLoopback(output)) {
    const at = r.host === 'localhost' ? ['127.0.0.1', '::1'] : [r.host];
    if (known?.has(hostPort(r.host, r.port)) || at.some((a) => forwards?.forwards(r.port, a))) continue;
    listeners ??= namespaceListeners(process.pid);
    if (!listensOn(listeners, r.host, r.port)) continue;
    const said = (await explain?.(r.host, r.port).catch(() => null)) ?? { why: `this machine's ${hostPort(r.host, r.port)} is outside the sandbox, and no network rule names it`, fix: null };
    out.push({ host: hostPort(r.host, r.port), what: 'network access to', why: said.why, reason: said.fix ? `${said.why}. ${said.fix}` : said.why });
  }
  for (const port of portsInUse(output)) {
    const f = forwards?.ports.find((p) => p.port === port);
    if (!f) continue;
    const why = `port ${port} inside the sandbox is this machine's ${hostPort(f.host, port)}, which a network rule forwards in, so a server of the command's own cannot listen on it`;
    out.push({ host: hostPort(f.listen, port), what: 'listening on', why, reason: `${why}. Use another port: every port no rule names is the sandbox's own.` });
  }
  return out;
}
