// `loupe serve`: the renderer over HTTP and the host contract over one WebSocket, bound to
// 127.0.0.1 only. Every HTTP request and upgrade passes the Host/Origin checks; the page and
// the WebSocket also need the token. The built assets are public: they hold no secret, and a
// browser can only authenticate their requests with a cookie, which other ports would see.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { createRequire } from 'node:module';
import type * as WsModule from 'ws';
import type { WebSocket, WebSocketServer } from 'ws';
import { Connection, DEFAULT_LIMITS, type ConnectionLimits, type ConnectionStats } from '../../transport/connection';
import { SessionHub, type HostLike, type SessionLimits } from '../../transport/sessionHub';
import type { Wire } from '../../transport/wire';
import { checkOrigin, checkRequest, newToken, requestTarget, type AuthVerdict } from './auth';
import { REAUTH_PATH, REAUTH_SCRIPT, UNAUTHORIZED_PAGE } from './reauth';
import { serveStatic } from './staticFiles';
import { serveBootPage } from './bootPage';
import type { BootData } from '../../../shared/contract';

export const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "font-src 'self' data:; worker-src 'self' blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

const SECURITY_HEADERS = {
  'Content-Security-Policy': CSP,
  'X-Content-Type-Options': 'nosniff',
  // The token is in the first URL: never leak it through Referer.
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
};

const BAD_TARGET = { ok: false, status: 400, reason: 'a request target no URL parser accepts' } as const;
const STATUS_TEXT = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden' } as const;

const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

export interface ServeOptions {
  /** The host the WebSocket clients talk to (through its session layer)... */
  host?: HostLike;
  /** ...or, for a relay to a remote host, what each authenticated WebSocket is handed to instead. */
  accept?: (wire: Wire) => void;
  staticDir: string;
  port?: number;
  token?: string;
  /** Per-connection limits on work and buffered bytes (tests shrink them). */
  limits?: Partial<ConnectionLimits>;
  /** How many events and answers are kept for clients that reconnect (tests shrink them). */
  sessions?: Partial<SessionLimits>;
  /** The open folder and its root listing, written into the page (bootPage.ts). */
  boot?: () => Promise<BootData | null>;
}

export interface RunningServer {
  url: string;
  port: number;
  token: string;
  server: Server;
  /** One entry per open WebSocket client. */
  connections(): ConnectionStats[];
  /** The session layer: its stream, last event number and clients (absent for a relay). */
  hub: SessionHub | null;
  close(): Promise<void>;
}

/** A WebSocket of `ws` as a Wire. */
function wsWire(ws: WebSocket): Wire {
  const closeListeners: (() => void)[] = [];
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    for (const l of closeListeners) l();
  };
  // ws reports a protocol violation (bad frame, bad UTF-8, over-size message) as an error and
  // closes with the matching status; unheard, the error would end the process.
  ws.on('error', () => ws.terminate());
  ws.on('close', close);
  return {
    send: (text) => ws.readyState === ws.OPEN && ws.send(text),
    bufferedBytes: () => ws.bufferedAmount,
    pause: () => ws.pause(),
    resume: () => ws.resume(),
    isOpen: () => !closed && ws.readyState === ws.OPEN,
    terminate: () => ws.terminate(),
    onMessage: (l) => void ws.on('message', (data) => l(data.toString())),
    onClose: (l) => void closeListeners.push(l),
  };
}

/** Pages need the token; assets and the reload helper do not. */
const isPage = (pathname: string): boolean => pathname.endsWith('/') || pathname.endsWith('.html');

function refuse(res: ServerResponse, verdict: Extract<AuthVerdict, { ok: false }>, navigation = false): void {
  if (verdict.status === 400) {
    res.writeHead(400, SECURITY_HEADERS).end();
    return;
  }
  if (verdict.status === 401) {
    // A reload of a tab whose token moved into sessionStorage arrives without one: the browser
    // navigates, gets the page that puts the token back, and logs no 401 for it. It holds no
    // secret; a wrong token, or a request that is not a navigation, still gets 401.
    const reload = navigation && verdict.reason === 'missing token';
    res.writeHead(reload ? 200 : 401, { ...SECURITY_HEADERS, 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
    res.end(UNAUTHORIZED_PAGE);
    return;
  }
  res.writeHead(403, { ...SECURITY_HEADERS, 'Content-Type': 'text/plain; charset=utf-8' });
  res.end('Forbidden.\n');
}

// ws is CommonJS: required, it loads in ~20 ms; imported, Node's ESM loader scans each of its
// files for exports first (~50 ms), on the host's one thread while the page boots beside it.
const requireHere = createRequire(import.meta.url);

export async function startServer(opts: ServeOptions): Promise<RunningServer> {
  const token = opts.token ?? newToken();
  const limits: ConnectionLimits = { ...DEFAULT_LIMITS, ...opts.limits };
  const clients = new Set<Connection>();
  const hub = opts.host ? new SessionHub(opts.host, opts.sessions) : null;
  if (!hub && !opts.accept) throw new Error('startServer needs a host or an accept handler');
  // Loaded once the server listens, while the URL is printed and the page loads: a page
  // connects a few hundred milliseconds later, and the upgrade waits for it if need be.
  let wss: WebSocketServer | null = null;
  let wssReady: Promise<WebSocketServer> | null = null;
  const socketServer = () =>
    (wssReady ??= Promise.resolve().then(() => {
      const { WebSocketServer } = requireHere('ws') as typeof WsModule;
      return (wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES }));
    }));
  let port = 0;

  const server = createServer((req, res) => {
    const target = requestTarget(req);
    if (!target) return refuse(res, BAD_TARGET);
    const { pathname } = target;
    const verdict = isPage(pathname) ? checkRequest(req, target, token, port) : checkOrigin(req, port);
    if (!verdict.ok) return refuse(res, verdict, req.headers['sec-fetch-mode'] === 'navigate' && req.method === 'GET');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, SECURITY_HEADERS).end();
      return;
    }
    if (pathname === REAUTH_PATH) {
      res.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-store' });
      res.end(REAUTH_SCRIPT);
      return;
    }
    const boot = opts.boot;
    const page = boot && req.method === 'GET' && (pathname === '/' || pathname === '/index.html');
    (page ? serveBootPage(opts.staticDir, res, SECURITY_HEADERS, boot) : Promise.resolve(false))
      .then((served) => served || serveStatic(opts.staticDir, pathname, res, SECURITY_HEADERS))
      .then((served) => {
        if (!served) res.writeHead(404, { ...SECURITY_HEADERS, 'Content-Type': 'text/plain' }).end('Not found\n');
      })
      .catch(() => {
        if (!res.headersSent) res.writeHead(500, SECURITY_HEADERS);
        res.end();
      });
  });

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Node hands the raw socket over without an error listener: a reset mid-handshake
    // would otherwise end the process.
    socket.on('error', () => socket.destroy());
    const target = requestTarget(req);
    const verdict: AuthVerdict = !target
      ? BAD_TARGET
      : target.pathname === '/ws'
        ? checkRequest(req, target, token, port)
        : { ok: false, status: 403, reason: 'not the WebSocket' };
    if (!verdict.ok) {
      socket.end(`HTTP/1.1 ${verdict.status} ${STATUS_TEXT[verdict.status]}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    void socketServer().then(
      (server) => {
        if (socket.destroyed) return;
        server.handleUpgrade(req, socket, head, (ws) => {
          if (!hub) return opts.accept!(wsWire(ws));
          const client: Connection = new Connection(wsWire(ws), (raw, c) => hub.message(raw, c), limits, () => {
            clients.delete(client);
            hub.remove(client);
          });
          clients.add(client);
          hub.add(client);
        });
      },
      () => socket.destroy(),
    );
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  setImmediate(() => void socketServer().catch(() => undefined));

  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    port,
    token,
    server,
    connections: () => [...clients].map((c) => c.stats()),
    hub,
    async close() {
      hub?.close();
      for (const client of clients) client.terminate();
      wss?.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
