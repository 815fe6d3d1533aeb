// One HTTP(S) GET, connected to the address that was checked (no second DNS lookup a
// rebinding server could answer differently), with the body decoded as it streams and
// stopped the moment it passes the size cap.
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { FetchFailedError, FetchTooLargeError } from './errors';

export interface HttpResponse {
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  /** Decoded (decompressed) body; empty for redirects. */
  body: Buffer;
}

export interface HttpGetOptions {
  url: URL;
  address: { address: string; family: 4 | 6 };
  headers: Record<string, string>;
  signal: AbortSignal;
  maxBytes: number;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function pinned(address: HttpGetOptions['address']): LookupFunction {
  return (_host, opts, cb) => {
    if (opts.all) (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [address]);
    else cb(null, address.address, address.family);
  };
}

function decoder(encoding: string | undefined): zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | null {
  switch ((encoding ?? '').trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip();
    case 'deflate':
      return zlib.createInflate();
    case 'br':
      return zlib.createBrotliDecompress();
    default:
      return null;
  }
}

export function httpGet(o: HttpGetOptions): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const mod = o.url.protocol === 'https:' ? https : http;
    const req = mod.request(o.url, {
      method: 'GET',
      headers: { 'accept-encoding': 'gzip, deflate, br', ...o.headers },
      lookup: pinned(o.address),
      signal: o.signal,
      // A fresh connection per request: nothing pooled outlives the fetch.
      agent: false,
    });
    req.on('error', (err) => reject(o.signal.aborted ? o.signal.reason : new FetchFailedError(`Could not fetch ${o.url.href}: ${err.message}`)));
    req.on('response', (res) => {
      const base = { status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', headers: res.headers };
      if (REDIRECTS.has(base.status) && res.headers.location) {
        res.destroy();
        return resolve({ ...base, body: Buffer.alloc(0) });
      }
      const encoding = res.headers['content-encoding'];
      const declared = Number(res.headers['content-length']);
      if (!encoding && declared > o.maxBytes) {
        res.destroy();
        return reject(new FetchTooLargeError(o.url.href, o.maxBytes));
      }
      const unzip = decoder(encoding);
      const body: Readable = unzip ? res.pipe(unzip) : res;
      const chunks: Buffer[] = [];
      let size = 0;
      // Reject before destroying: destroy() emits 'aborted', which must not win the race.
      const fail = (err: Error) => {
        reject(err);
        res.destroy();
        unzip?.destroy();
      };
      body.on('data', (c: Buffer) => {
        size += c.length;
        if (size > o.maxBytes) return fail(new FetchTooLargeError(o.url.href, o.maxBytes));
        chunks.push(c);
      });
      body.on('end', () => resolve({ ...base, body: Buffer.concat(chunks) }));
      body.on('error', (err) => fail(o.signal.aborted ? o.signal.reason : new FetchFailedError(`Could not read ${o.url.href}: ${err.message}`)));
      res.on('error', (err) => fail(o.signal.aborted ? o.signal.reason : new FetchFailedError(`Could not read ${o.url.href}: ${err.message}`)));
      res.on('aborted', () => fail(o.signal.aborted ? o.signal.reason : new FetchFailedError(`The connection to ${o.url.host} closed mid-response.`)));
    });
    req.end();
  });
}
