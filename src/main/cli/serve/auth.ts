// Who may talk to `loupe serve`: only a page we served (Origin), addressed by a loopback name
// (Host, against DNS rebinding), holding the per-run token. The token travels only where
// nothing but this server receives it — the printed URL's query, then the WebSocket URL or an
// Authorization header — and never in a cookie: cookies ignore ports, so every other server on
// 127.0.0.1 would be handed it.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export type AuthVerdict = { ok: true } | { ok: false; status: 400 | 401 | 403; reason: string };

export const newToken = (): string => randomBytes(32).toString('base64url');

function sameToken(a: string | undefined, b: string): boolean {
  if (!a) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function bearer(header: string | undefined): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return m?.[1];
}

/** Host and Origin only: what every request, even for a public asset, must pass. */
export function checkOrigin(req: IncomingMessage, port: number): AuthVerdict {
  const hosts = [`127.0.0.1:${port}`, `localhost:${port}`];
  if (!hosts.includes(req.headers.host ?? '')) return { ok: false, status: 403, reason: 'foreign Host header' };
  const origin = req.headers.origin;
  if (origin !== undefined && !hosts.some((h) => origin === `http://${h}`)) {
    return { ok: false, status: 403, reason: 'foreign Origin' };
  }
  return { ok: true };
}

/** The request target as a URL; null for one no URL parser accepts (`//[`, `http://a:99999/`). */
export function requestTarget(req: IncomingMessage): URL | null {
  try {
    return new URL(req.url ?? '/', 'http://127.0.0.1');
  } catch {
    return null;
  }
}

/** Origin checks, then the token from the query or an Authorization header (a cookie never counts). */
export function checkRequest(req: IncomingMessage, target: URL, token: string, port: number): AuthVerdict {
  const origin = checkOrigin(req, port);
  if (!origin.ok) return origin;
  const fromQuery = target.searchParams.get('token') ?? undefined;
  if (sameToken(fromQuery, token) || sameToken(bearer(req.headers.authorization), token)) return { ok: true };
  return { ok: false, status: 401, reason: fromQuery ? 'wrong token' : 'missing token' };
}
