// The ports of this machine a rule names, forwarded into a sandboxed command's own loopback
// (docs/architecture.md, "The sandbox's network"), host side. The bridge listens inside on each
// named address and port and hands every connection to `host.sock` as `local <address> <port>`;
// here that line is only a key into the list the rules gave: an address or port not on it is
// refused, and a forward connects to its own port on this machine's loopback, never to anything
// the line says. Each connection is decided by the command's guard (once per name and port, as
// the proxy does per host), so the settings' network log and the result list it.
import net, { type Socket } from 'node:net';
import { hostPort } from '../../permissions/hostEntry';
import type { HostDecision, HostPort, NetworkActivity, NetworkGuard } from './types';

const CONNECT_TIMEOUT_MS = 10_000;

export class HostPortForwards {
  private readonly byKey = new Map<string, HostPort>();
  private readonly decisions = new Map<string, Promise<HostDecision>>();
  private readonly reached = new Set<string>();
  /** Refused by the rules or the person: what the sandbox stopped. */
  private readonly refused = new Map<string, string>();
  /** Let through, but nothing answered on this machine: not the sandbox's doing. */
  private readonly unanswered = new Map<string, string>();

  constructor(
    readonly ports: readonly HostPort[],
    private readonly guard: NetworkGuard | undefined,
    private readonly signal: AbortSignal,
  ) {
    for (const p of ports) this.byKey.set(key(p.listen, p.port), p);
  }

  /** The bridge's argument: `address:port` to listen on inside, comma-separated; `-` for none. */
  spec(): string {
    return this.ports.length ? this.ports.map((p) => hostPort(p.listen, p.port)).join(',') : '-';
  }

  /** Ports held inside by the bridge (not the command's own servers). */
  insidePorts(): number[] {
    return [...new Set(this.ports.map((p) => p.port))];
  }

  forwards(port: number, address: string): boolean {
    return this.byKey.has(key(address, port));
  }

  /** One connection from inside, to `listen:port` there. */
  handle(s: Socket, listen: string, port: number): void {
    s.pause();
    const f = this.byKey.get(key(listen, port));
    if (!f || !this.guard) {
      this.refused.set(hostPort(listen, port), 'no network rule names this port of this machine');
      s.destroy();
      return;
    }
    const name = hostPort(f.host, f.port);
    void this.decide(f).then(async (d) => {
      if (s.destroyed) return;
      if (!d.allowed) {
        this.refused.set(name, d.reason);
        s.destroy();
        return;
      }
      const up = await connectFirst(f.connect, f.port).catch((err: Error) => err);
      if (up instanceof Error) {
        this.unanswered.set(name, `nothing answers at this machine's ${name} (${up.message}); a rule forwards it, so is the service running?`);
        s.destroy();
        return;
      }
      if (s.destroyed) return void up.destroy();
      this.reached.add(name);
      up.setNoDelay(true);
      up.pipe(s);
      s.pipe(up);
      s.resume();
      const end = () => {
        up.destroy();
        s.destroy();
      };
      up.on('error', end).on('close', end);
      s.on('error', end).on('close', end);
    });
  }

  activity(): NetworkActivity {
    return { reached: [...this.reached], refused: [...this.refused, ...this.unanswered].map(([host, reason]) => ({ host, reason })) };
  }

  /** What the sandbox refused (the rules or the person), not what simply did not answer. */
  blocked(): { host: string; reason: string }[] {
    return [...this.refused].map(([host, reason]) => ({ host, reason }));
  }

  private decide(f: HostPort): Promise<HostDecision> {
    const k = hostPort(f.host, f.port);
    let pending = this.decisions.get(k);
    if (!pending) {
      pending = this.guard!.decide({ host: f.host, port: f.port, privateAddress: `${f.listen} (loopback)` }, this.signal).catch((err: Error) => ({ allowed: false, named: false, reason: err.message }));
      this.decisions.set(k, pending);
    }
    return pending;
  }
}

const key = (address: string, port: number) => `${address.toLowerCase()} ${port}`;

/** The first of `addresses` (loopback literals) that accepts on `port`. */
async function connectFirst(addresses: readonly string[], port: number): Promise<Socket> {
  let last: Error = new Error('no address');
  for (const host of addresses) {
    try {
      return await new Promise<Socket>((resolve, reject) => {
        const s = net.connect({ host, port });
        const timer = setTimeout(() => s.destroy(new Error(`no answer in ${CONNECT_TIMEOUT_MS} ms`)), CONNECT_TIMEOUT_MS);
        const failed = (err: Error) => {
          clearTimeout(timer);
          reject(err);
        };
        s.once('error', failed);
        s.once('connect', () => {
          clearTimeout(timer);
          s.off('error', failed);
          resolve(s);
        });
      });
    } catch (err) {
      last = err as Error;
    }
  }
  throw last;
}
