// The host side of a sandboxed command's only way out: an HTTP proxy (CONNECT and plain HTTP)
// that asks the command's NetworkGuard about each host, resolves the name itself and connects
// to the address it checked (no second lookup to rebind), and refuses addresses of this machine
// and its private networks unless the host was named exactly (services/web/addressClass.ts, the
// same classes as webfetch). Connections arrive already authenticated by SandboxNet.
import http from 'node:http';
import net, { type Socket } from 'node:net';
import { knownPrivateAddress, resolveHost, systemLookup, type LookupAll, type ResolvedHost } from '../../web/addressClass';
import type { HostDecision, NetworkActivity, NetworkGuard } from './types';

const RESOLVE_TTL_MS = 30_000;

type Checked = { ok: true; address: string } | { ok: false; reason: string };

/** `host:port` of a CONNECT target, IPv6 in brackets. */
export function splitAuthority(authority: string): { host: string; port: number } | null {
  const m = /^\[([^\]]+)\]:(\d+)$/.exec(authority) ?? /^([^:]+):(\d+)$/.exec(authority);
  if (!m) return null;
  const port = Number(m[2]);
  return port > 0 && port < 65536 ? { host: m[1]!, port } : null;
}

export class FilteringProxy {
  private readonly server = http.createServer();
  /** Upstream connections kept for the next request to the same address (plain HTTP). */
  private readonly agent = new http.Agent({ keepAlive: true, maxFreeSockets: 16 });
  private readonly decisions = new Map<string, Promise<HostDecision>>();
  /** Addresses per host, kept briefly: one lookup per host per RESOLVE_TTL_MS, not per request. */
  private readonly resolved = new Map<string, { at: number; result: Promise<ResolvedHost> }>();
  private readonly reached = new Set<string>();
  private readonly refused = new Map<string, string>();

  constructor(
    private readonly guard: NetworkGuard,
    private readonly signal: AbortSignal,
    private readonly lookup: LookupAll = systemLookup,
  ) {
    this.server.on('request', (req, res) => void this.plain(req, res));
    this.server.on('connect', (req, sock: Socket, head: Buffer) => void this.tunnel(req, sock, head));
    this.server.on('clientError', (_err, sock: Socket) => sock.destroy());
  }

  /** Serves one connection from the sandbox (its first bytes already read are pushed back). */
  handle(socket: Socket): void {
    this.server.emit('connection', socket);
  }

  close(): void {
    this.agent.destroy();
  }

  activity(): NetworkActivity {
    return { reached: [...this.reached], refused: [...this.refused].map(([host, reason]) => ({ host, reason })) };
  }

  /** One question per host (and one more for its private address), shared by its connections. */
  private decide(key: string, port: number, privateAddress: string | null): Promise<HostDecision> {
    const k = privateAddress ? `${key} @ ${privateAddress}` : key;
    let pending = this.decisions.get(k);
    if (!pending) {
      pending = this.guard.decide({ host: key, port, privateAddress }, this.signal).catch((err: Error) => ({ allowed: false, named: false, reason: err.message }));
      this.decisions.set(k, pending);
    }
    return pending;
  }

  private async check(host: string, port: number): Promise<Checked> {
    const key = host.toLowerCase().replace(/^\[|\]$/g, '');
    // Asked before any lookup: the name itself must not leave the machine unapproved.
    const known = knownPrivateAddress(key);
    const d = await this.decide(key, port, known);
    if (!d.allowed) return this.refuse(key, d.reason);
    let resolved;
    try {
      resolved = await this.resolve(key);
    } catch (err) {
      return this.refuse(key, (err as Error).message);
    }
    if (resolved.privateAddress && !known && !d.named) {
      const again = await this.decide(key, port, resolved.privateAddress);
      if (!again.allowed) return this.refuse(key, again.reason);
    }
    const first = resolved.addresses[0];
    if (!first) return this.refuse(key, `${key} has no address`);
    this.reached.add(`${key}:${port}`);
    return { ok: true, address: first.address };
  }

  private resolve(host: string): Promise<ResolvedHost> {
    const now = Date.now();
    const hit = this.resolved.get(host);
    if (hit && now - hit.at < RESOLVE_TTL_MS) return hit.result;
    const result = resolveHost(host, this.signal, this.lookup);
    this.resolved.set(host, { at: now, result });
    result.catch(() => this.resolved.delete(host));
    return result;
  }

  private refuse(host: string, reason: string): Checked {
    this.refused.set(host, reason);
    return { ok: false, reason };
  }

  private async plain(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let url: URL | null = null;
    try {
      url = new URL(req.url ?? '');
    } catch {}
    if (!url || url.protocol !== 'http:') {
      res.writeHead(400, { 'content-type': 'text/plain' }).end("Loupe's sandbox proxy takes absolute http:// URLs, and CONNECT for anything else.\n");
      return;
    }
    const port = Number(url.port || 80);
    const target = await this.check(url.hostname, port);
    if (!target.ok) {
      res.writeHead(403, { 'content-type': 'text/plain', 'x-loupe-refused': oneLine(target.reason) }).end(`Refused by Loupe's sandbox proxy: ${target.reason}\n`);
      return;
    }
    const headers = { ...req.headers };
    delete headers['proxy-connection'];
    delete headers['proxy-authorization'];
    const up = http.request({ host: target.address, port, method: req.method, path: url.pathname + url.search, headers, setHost: false, agent: this.agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
      answer.pipe(res);
    });
    up.on('error', (err) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`Loupe's sandbox proxy could not reach ${url.host}: ${err.message}\n`);
    });
    req.pipe(up);
  }

  private async tunnel(req: http.IncomingMessage, sock: Socket, head: Buffer): Promise<void> {
    sock.on('error', () => sock.destroy());
    const where = splitAuthority(req.url ?? '');
    if (!where) {
      sock.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
      return;
    }
    const target = await this.check(where.host, where.port);
    if (!target.ok) {
      const body = `Refused by Loupe's sandbox proxy: ${target.reason}\n`;
      sock.end(`HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nX-Loupe-Refused: ${oneLine(target.reason)}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
      return;
    }
    const up = net.connect({ host: target.address, port: where.port });
    up.setNoDelay(true);
    let connected = false;
    up.once('connect', () => {
      connected = true;
      sock.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) up.write(head);
      up.pipe(sock);
      sock.pipe(up);
    });
    up.on('error', (err) => {
      if (!connected) sock.end(`HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\n\r\n${err.message}\n`);
      else sock.destroy();
    });
    sock.on('close', () => up.destroy());
  }
}

const oneLine = (s: string) => s.replace(/[\r\n]+/g, ' ').replace(/[^\x20-\x7e]/g, '?').slice(0, 300);
