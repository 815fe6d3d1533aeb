// Who may talk to `loupe serve`: only a page we served (Origin), addressed by a loopback
// name (Host, against DNS rebinding), holding the per-run token (query or cookie).
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export type AuthVerdict = { ok: true; viaQuery: boolean } | { ok: false; status: 401 | 403; reason: string };

export const newToken = (): string => randomBytes(32).toString('base64url');

export const cookieName = (port: number): string => `loupe_token_${port}`;

function sameToken(a: string | undefined, b: string): boolean {
  if (!a) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function checkRequest(req: IncomingMessage, token: string, port: number): AuthVerdict {
  const hosts = [`127.0.0.1:${port}`, `localhost:${port}`];
  if (!hosts.includes(req.headers.host ?? '')) return { ok: false, status: 403, reason: 'foreign Host header' };
  const origin = req.headers.origin;
  if (origin !== undefined && !hosts.some((h) => origin === `http://${h}`)) {
    return { ok: false, status: 403, reason: 'foreign Origin' };
  }
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const fromQuery = url.searchParams.get('token') ?? undefined;
  if (sameToken(fromQuery, token)) return { ok: true, viaQuery: true };
  if (sameToken(cookieValue(req.headers.cookie, cookieName(port)), token)) return { ok: true, viaQuery: false };
  return { ok: false, status: 401, reason: fromQuery ? 'wrong token' : 'missing token' };
}
