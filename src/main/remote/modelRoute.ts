// How a remote host reaches the model (docs/architecture.md, "Remote workspaces"). The window's
// machine hands over its model settings in memory — base URL, key, model — never written here.
// A server the remote can reach itself (a hosted API) is called directly. One it cannot — the
// laptop's Ollama on 127.0.0.1, a host only the laptop's network knows — is reached through a
// Unix socket the link forwards back to the laptop (`ssh -R`, or the container's tunnel): a
// small HTTP relay on this machine's loopback, under a random path only this host knows, passes
// each request through it. While the link is down a request waits for it (up to five minutes),
// so a turn that reaches the model during a drop goes on when the link comes back.
import { randomBytes } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolveLlmConfig, type LlmConfig, type ModelRow } from '../agent/llm/config';
import { connects } from './connects';

/** The model settings as the window's machine sends them. */
export interface ModelSpec {
  base_url?: string;
  api_key?: string;
  model?: string;
  context_tokens?: number;
  models?: Record<string, ModelRow>;
  /** A Unix socket here that reaches the base URL's host and port from the window's machine. */
  link_socket?: string;
}

export type RouteKind = 'direct' | 'link' | 'none';

const LINK_WAIT_MS = 5 * 60_000;
const DIRECT_PROBE_MS = 3000;

const isLoopbackHost = (host: string): boolean => /^(localhost|127(\.\d{1,3}){3}|\[?::1\]?)$/i.test(host);

/** Whether a TCP connection to host:port opens from here within the bound. */
export const reachable = (host: string, port: number, timeoutMs = DIRECT_PROBE_MS): Promise<boolean> => connects({ host: host.replace(/^\[|\]$/g, ''), port }, timeoutMs);

const portOf = (u: URL): number => Number(u.port) || (u.protocol === 'https:' ? 443 : 80);

/** One host's route to its model; `update` takes the window machine's settings again (a new link socket after a reconnect). */
export class ModelRoute {
  private spec: ModelSpec = {};
  private kind: RouteKind = 'none';
  private waiters: (() => void)[] = [];

  constructor(private readonly relay: ModelRelay) {}

  get route(): RouteKind {
    return this.kind;
  }

  async update(spec: ModelSpec): Promise<void> {
    this.spec = spec;
    this.kind = await this.decide(spec);
    if (this.kind === 'link') this.relay.register(this);
    for (const w of this.waiters.splice(0)) w();
  }

  /** The socket requests go through; waits for the link when it is down. */
  async linkSocket(signal: AbortSignal): Promise<string> {
    const deadline = Date.now() + LINK_WAIT_MS;
    for (;;) {
      const sock = this.spec.link_socket;
      if (sock && (await connects({ path: sock }))) return sock;
      if (signal.aborted || Date.now() > deadline) throw new Error('the link to the model server is down');
      await new Promise<void>((r) => {
        const t = setTimeout(r, 1000);
        this.waiters.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
  }

  /** The base URL's host and port as the window's machine sees them. */
  target(): URL | null {
    try {
      return this.spec.base_url ? new URL(this.spec.base_url) : null;
    } catch {
      return null;
    }
  }

  /** The model config requests use: through the relay when the route is the link. */
  config(): LlmConfig | null {
    const s = this.spec;
    const base = this.kind === 'link' ? this.relay.baseFor(this) : s.base_url;
    return resolveLlmConfig({ baseURL: base, apiKey: s.api_key, model: s.model, contextTokens: s.context_tokens, models: s.models }, {});
  }

  private async decide(spec: ModelSpec): Promise<RouteKind> {
    const url = this.targetOf(spec);
    if (!url) return spec.model ? 'direct' : 'none';
    if (isLoopbackHost(url.hostname)) return spec.link_socket ? 'link' : 'none';
    if (await reachable(url.hostname, portOf(url))) return 'direct';
    return spec.link_socket ? 'link' : 'direct';
  }

  private targetOf(spec: ModelSpec): URL | null {
    try {
      return spec.base_url ? new URL(spec.base_url) : null;
    } catch {
      return null;
    }
  }
}

/** The relay of every route of this host process that goes through the link: one loopback listener, a secret path per route. */
export class ModelRelay {
  private server: Server | null = null;
  private port = 0;
  private readonly routes = new Map<string, ModelRoute>();
  private readonly secrets = new WeakMap<ModelRoute, string>();

  async start(): Promise<void> {
    if (this.server) return;
    const server = createServer((req, res) => void this.pass(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
  }

  register(route: ModelRoute): void {
    if (this.secrets.has(route)) return;
    const secret = randomBytes(18).toString('base64url');
    this.secrets.set(route, secret);
    this.routes.set(secret, route);
  }

  baseFor(route: ModelRoute): string {
    const target = route.target();
    const prefix = target ? target.pathname.replace(/\/+$/, '') : '';
    return `http://127.0.0.1:${this.port}/${this.secrets.get(route)}${prefix}`;
  }

  private async pass(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const m = /^\/([A-Za-z0-9_-]{24})(\/.*)?$/.exec(req.url ?? '');
    const route = m ? this.routes.get(m[1]) : undefined;
    const target = route?.target();
    if (!route || !target) {
      res.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    let socketPath: string;
    try {
      socketPath = await route.linkSocket(abort.signal);
    } catch (err) {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `Loupe could not reach the model server: ${(err as Error).message}` } }));
      return;
    }
    const headers = { ...req.headers, host: target.host };
    const out = httpRequest({ socketPath, method: req.method, path: m![2] ?? '/', headers, signal: abort.signal }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    out.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    out.end(body);
  }

  async close(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
}
