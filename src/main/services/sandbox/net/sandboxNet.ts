// One sandboxed command's network, host side (docs/architecture.md, "The sandbox's network").
// A private folder (0700) holds `host.sock`, the only thing the sandbox can connect out to, and
// the bridge script that runs inside in front of the command (netBridge.cjs). Each connection
// opens with `<token> <kind>`: `proxy` goes to the filtering proxy, `ctl` is the bridge's control
// line, `conn <id>` is the inside end of a forwarded port, `local <address> <port>` a connection
// the command made to a port of this machine a rule names (hostPorts.ts). The token travels only
// in the bridge's environment, which other sandboxes (other PID namespaces) cannot read.
import { randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net, { type Server, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import bridgeSource from './netBridge.cjs?raw';
import { FilteringProxy } from './proxy';
import { HostPortForwards } from './hostPorts';
import type { LookupAll } from '../../web/addressClass';
import type { HostPort, NetworkActivity, NetworkGuard } from './types';

export interface SandboxNetOptions {
  /** Present when the command may use the network: every host goes through it. */
  guard?: NetworkGuard;
  lookup?: LookupAll;
  /**
   * macOS: no network namespace and no bridge; the proxy listens on a TCP port of 127.0.0.1, the
   * one place the command's profile lets it connect to.
   */
  tcpProxy?: boolean;
  /** Ports of this machine the rules name (from the guard): forwarded into the sandbox's loopback. */
  hostPorts?: readonly HostPort[];
}

export interface Forward {
  /** The port inside the sandbox. */
  port: number;
  /** Where it is reachable on this machine (127.0.0.1): the same number unless that was taken. */
  host_port: number;
}

const OPEN_TIMEOUT_MS = 5000;
const FIRST_LINE_MAX = 256;

export class SandboxNet {
  readonly dir: string;
  private readonly token = randomBytes(16).toString('hex');
  private readonly server: Server;
  private readonly proxy: FilteringProxy | null;
  readonly hostPorts: HostPortForwards;
  private readonly stop = new AbortController();
  /** 0 when the command has no network. */
  proxyPort: number;
  private tcpProxy: Server | null = null;
  private ctl: Socket | null = null;
  private ctlWaiters: ((s: Socket | null) => void)[] = [];
  private nextId = 1;
  private readonly opening = new Map<number, { resolve: (s: Socket) => void; reject: (e: Error) => void }>();
  private readonly forwards = new Map<number, { server: Server; hostPort: number }>();
  private readonly sockets = new Set<Socket>();
  /** Idle connections from the bridge, each ready to be pointed at an inside port. */
  private readonly spares: Socket[] = [];
  private closed = false;

  private constructor(dir: string, server: Server, opts: SandboxNetOptions) {
    this.dir = dir;
    this.server = server;
    this.proxy = opts.guard ? new FilteringProxy(opts.guard, this.stop.signal, opts.lookup) : null;
    this.hostPorts = new HostPortForwards(opts.guard ? (opts.hostPorts ?? []) : [], opts.guard, this.stop.signal);
    // Inside, the namespace is empty but for the forwarded ports of this machine: any other port
    // is free; a high one stays out of a dev server's way.
    const taken = new Set(this.hostPorts.insidePorts());
    let port = 0;
    while (this.proxy && (!port || taken.has(port))) port = randomInt(20000, 30000);
    this.proxyPort = port;
    server.on('connection', (s) => this.accept(s));
  }

  static async open(opts: SandboxNetOptions = {}): Promise<SandboxNet> {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'loupe-net-'));
    writeFileSync(path.join(dir, 'bridge.cjs'), bridgeSource, { mode: 0o600 });
    const server = net.createServer();
    const sn = new SandboxNet(dir, server, opts);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path.join(dir, 'host.sock'), () => resolve());
    });
    if (opts.tcpProxy && sn.proxy) {
      const proxy = sn.proxy;
      sn.tcpProxy = net.createServer((s) => {
        sn.track(s);
        proxy.handle(s);
      });
      sn.proxyPort = await listenLocal(sn.tcpProxy, 0);
    }
    return sn;
  }

  /** The program and arguments that run `program args` behind the bridge, inside the sandbox. */
  wrap(program: string, args: readonly string[]): [string, string[]] {
    return [process.execPath, [path.join(this.dir, 'bridge.cjs'), this.dir, String(this.proxyPort), this.hostPorts.spec(), '--', program, ...args]];
  }

  /** Environment for the bridge and the command: the proxy variables only with a network. */
  env(): Record<string, string> {
    const base: Record<string, string> = this.tcpProxy ? {} : { LOUPE_NET_TOKEN: this.token, ELECTRON_RUN_AS_NODE: '1' };
    if (!this.proxyPort) return base;
    const url = `http://127.0.0.1:${this.proxyPort}`;
    const noProxy = 'localhost,127.0.0.1,::1';
    return {
      ...base,
      HTTP_PROXY: url,
      HTTPS_PROXY: url,
      ALL_PROXY: url,
      http_proxy: url,
      https_proxy: url,
      all_proxy: url,
      NO_PROXY: noProxy,
      no_proxy: noProxy,
      // Node's own fetch honours the variables from Node 24 with this set.
      NODE_USE_ENV_PROXY: '1',
    };
  }

  /** What the command's network did: hosts through the proxy, then ports of this machine. */
  activity(): NetworkActivity {
    const proxy = this.proxy?.activity() ?? { reached: [], refused: [] };
    const local = this.hostPorts.activity();
    return { reached: [...proxy.reached, ...local.reached], refused: [...proxy.refused, ...local.refused] };
  }

  /** The first thing the sandbox itself refused (a host or a port of this machine), if any. */
  blocked(): { host: string; reason: string } | null {
    return this.proxy?.activity().refused[0] ?? this.hostPorts.blocked()[0] ?? null;
  }

  /** Ports the bridge holds inside (its proxy, the forwarded ports of this machine): never the command's own. */
  bridgePorts(): Set<number> {
    return new Set([...(this.proxyPort && !this.tcpProxy ? [this.proxyPort] : []), ...this.hostPorts.insidePorts()]);
  }

  /** A connection to `address:port` inside the sandbox, through the bridge. */
  async openInside(port: number, address = '127.0.0.1'): Promise<Socket> {
    let spare: Socket | undefined;
    while ((spare = this.spares.shift()) && spare.destroyed);
    if (spare) {
      spare.setNoDelay(true);
      spare.write(`open ${address} ${port}\n`);
      spare.resume();
      return spare;
    }
    const ctl = await this.control();
    if (!ctl) throw new Error('the sandbox bridge is not running');
    const id = this.nextId++;
    return new Promise<Socket>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.opening.delete(id);
        reject(new Error(`no answer from inside the sandbox for port ${port}`));
      }, OPEN_TIMEOUT_MS);
      this.opening.set(id, {
        resolve: (s) => {
          clearTimeout(timer);
          resolve(s);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      ctl.write(`open ${id} ${address} ${port}\n`);
    });
  }

  /** Makes 127.0.0.1:<port> on this machine reach the sandbox's port (another port if that one is taken). */
  async forward(port: number, address = '127.0.0.1'): Promise<Forward> {
    const had = this.forwards.get(port);
    if (had) return { port, host_port: had.hostPort };
    const server = net.createServer((client) => {
      client.setNoDelay(true);
      this.track(client);
      client.pause();
      this.openInside(port, address).then(
        (inner) => {
          inner.pipe(client);
          client.pipe(inner);
          client.resume();
          inner.on('close', () => client.destroy());
          client.on('close', () => inner.destroy());
        },
        () => client.destroy(),
      );
      client.on('error', () => client.destroy());
    });
    const hostPort = await listenLocal(server, port).catch(() => listenLocal(server, 0));
    this.forwards.set(port, { server, hostPort });
    return { port, host_port: hostPort };
  }

  unforward(port: number): void {
    const f = this.forwards.get(port);
    if (!f) return;
    this.forwards.delete(port);
    f.server.close();
  }

  forwarded(): Forward[] {
    return [...this.forwards].map(([port, f]) => ({ port, host_port: f.hostPort }));
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.stop.abort();
    this.proxy?.close();
    for (const port of [...this.forwards.keys()]) this.unforward(port);
    for (const s of this.sockets) s.destroy();
    for (const w of this.ctlWaiters) w(null);
    for (const o of this.opening.values()) o.reject(new Error('the sandbox is gone'));
    this.server.close();
    this.tcpProxy?.close();
    rmSync(this.dir, { recursive: true, force: true });
  }

  private track(s: Socket): void {
    this.sockets.add(s);
    s.on('close', () => this.sockets.delete(s));
  }

  private control(): Promise<Socket | null> {
    if (this.ctl && !this.ctl.destroyed) return Promise.resolve(this.ctl);
    if (this.closed) return Promise.resolve(null);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(null), OPEN_TIMEOUT_MS);
      this.ctlWaiters.push((s) => {
        clearTimeout(timer);
        resolve(s);
      });
    });
  }

  /** Reads the first line, checks the token, and routes the connection. */
  private accept(s: Socket): void {
    this.track(s);
    s.on('error', () => s.destroy());
    let head = Buffer.alloc(0);
    const onData = (d: Buffer) => {
      head = Buffer.concat([head, d]);
      const nl = head.indexOf(0x0a);
      if (nl < 0) {
        if (head.length > FIRST_LINE_MAX) s.destroy();
        return;
      }
      s.off('data', onData);
      s.pause();
      const line = head.subarray(0, nl).toString('utf8');
      const rest = head.subarray(nl + 1);
      if (rest.length) s.unshift(rest);
      this.route(s, line);
    };
    s.on('data', onData);
  }

  private route(s: Socket, line: string): void {
    const sp = line.indexOf(' ');
    const given = Buffer.from(sp < 0 ? line : line.slice(0, sp));
    const want = Buffer.from(this.token);
    if (given.length !== want.length || !timingSafeEqual(given, want)) {
      s.destroy();
      return;
    }
    const kind = line.slice(sp + 1);
    if (kind === 'proxy' && this.proxy) {
      this.proxy.handle(s);
      s.resume();
    } else if (kind === 'ctl') {
      this.ctl?.destroy();
      this.ctl = s;
      this.readControl(s);
      s.resume();
      for (const w of this.ctlWaiters.splice(0)) w(s);
    } else if (kind.startsWith('local ')) {
      const m = /^local (\S+) ([1-9]\d{0,4})$/.exec(kind);
      if (!m) return void s.destroy();
      this.hostPorts.handle(s, m[1]!, Number(m[2]));
    } else if (kind === 'spare') {
      this.spares.push(s);
      s.once('close', () => {
        const i = this.spares.indexOf(s);
        if (i >= 0) this.spares.splice(i, 1);
      });
    } else if (kind.startsWith('conn ')) {
      const o = this.opening.get(Number(kind.slice(5)));
      if (!o) return void s.destroy();
      this.opening.delete(Number(kind.slice(5)));
      s.setNoDelay(true);
      o.resolve(s);
    } else {
      s.destroy();
    }
  }

  private readControl(s: Socket): void {
    let buf = '';
    s.on('data', (d: Buffer) => {
      buf += d.toString('utf8');
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const m = /^fail (\d+) (\S+)$/.exec(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        if (!m) continue;
        const o = this.opening.get(Number(m[1]));
        this.opening.delete(Number(m[1]));
        o?.reject(new Error(`inside the sandbox: ${m[2]}`));
      }
      if (buf.length > 4096) buf = '';
    });
  }
}

function listenLocal(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once('error', onError);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', onError);
      resolve((server.address() as net.AddressInfo).port);
    });
  });
}
