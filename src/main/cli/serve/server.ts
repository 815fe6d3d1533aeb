// `loupe serve`: the renderer over HTTP and the host contract over one WebSocket, bound to
// 127.0.0.1 only. Every HTTP request and upgrade is checked (Host, Origin, token).
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { REQUEST_CHANNELS, type RequestChannel, type WsServerMessage } from '../../../shared/contract';
import { toWireError } from '../../errors';
import type { Host } from '../../host/host';
import { checkRequest, cookieName, newToken } from './auth';
import { serveStatic } from './staticFiles';

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

/** A client that stops reading must not make the host buffer without bound. */
const MAX_BUFFERED_BYTES = 32 * 1024 * 1024;
const channels = new Set<string>(REQUEST_CHANNELS);

export interface ServeOptions {
  host: Host;
  staticDir: string;
  port?: number;
  token?: string;
}

export interface RunningServer {
  url: string;
  port: number;
  token: string;
  server: Server;
  close(): Promise<void>;
}

export async function startServer(opts: ServeOptions): Promise<RunningServer> {
  const token = opts.token ?? newToken();
  const sockets = new Set<WebSocket>();
  const wss = new WebSocketServer({ noServer: true, maxPayload: 16 * 1024 * 1024 });
  let port = 0;

  const server = createServer((req, res) => {
    const verdict = checkRequest(req, token, port);
    if (!verdict.ok) {
      res.writeHead(verdict.status, { ...SECURITY_HEADERS, 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(verdict.status === 401 ? 'Unauthorized: open the URL that `loupe serve` printed.\n' : 'Forbidden.\n');
      return;
    }
    const headers: Record<string, string> = { ...SECURITY_HEADERS };
    if (verdict.viaQuery) {
      headers['Set-Cookie'] = `${cookieName(port)}=${token}; HttpOnly; SameSite=Strict; Path=/`;
    }
    const { pathname } = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, headers).end();
      return;
    }
    serveStatic(opts.staticDir, pathname, res, headers)
      .then((served) => {
        if (!served) res.writeHead(404, { ...headers, 'Content-Type': 'text/plain' }).end('Not found\n');
      })
      .catch(() => {
        if (!res.headersSent) res.writeHead(500, headers);
        res.end();
      });
  });

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const { pathname } = new URL(req.url ?? '/', 'http://127.0.0.1');
    const verdict = pathname === '/ws' ? checkRequest(req, token, port) : ({ ok: false, status: 403 } as const);
    if (!verdict.ok) {
      socket.end(`HTTP/1.1 ${verdict.status} ${verdict.status === 401 ? 'Unauthorized' : 'Forbidden'}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      sockets.add(ws);
      ws.on('close', () => sockets.delete(ws));
      ws.on('message', (raw) => void onMessage(ws, raw.toString()));
    });
  });

  const send = (ws: WebSocket, msg: WsServerMessage): void => {
    if (ws.readyState !== ws.OPEN) return;
    if (ws.bufferedAmount > MAX_BUFFERED_BYTES) {
      ws.terminate();
      return;
    }
    ws.send(JSON.stringify(msg));
  };

  async function onMessage(ws: WebSocket, raw: string): Promise<void> {
    let msg: { t?: unknown; id?: unknown; ch?: unknown; p?: unknown };
    try {
      msg = JSON.parse(raw);
    } catch {
      return;
    }
    if (msg?.t !== 'req' || typeof msg.id !== 'number') return;
    const id = msg.id;
    if (typeof msg.ch !== 'string' || !channels.has(msg.ch)) {
      send(ws, { t: 'res', id, ok: false, e: { code: 'INVALID_ARGUMENT', message: `Unknown request channel: ${String(msg.ch)}` } });
      return;
    }
    try {
      const r = await opts.host.handle(msg.ch as RequestChannel, msg.p as never);
      send(ws, { t: 'res', id, ok: true, r: r ?? null });
    } catch (err) {
      send(ws, { t: 'res', id, ok: false, e: toWireError(err) });
    }
  }

  const unsubscribe = opts.host.onEvent((ch, p) => {
    const data = JSON.stringify({ t: 'evt', ch, p } satisfies WsServerMessage);
    for (const ws of sockets) {
      if (ws.readyState !== ws.OPEN) continue;
      if (ws.bufferedAmount > MAX_BUFFERED_BYTES) ws.terminate();
      else ws.send(data);
    }
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    port,
    token,
    server,
    async close() {
      unsubscribe();
      for (const ws of sockets) ws.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
