// webfetch: one deadline for the whole fetch (DNS, connect, headers, body, every redirect),
// redirects followed by hand so each hop is vetted again. Each hop is approved by its URL
// before its name is resolved (a lookup of `<secret>.attacker.example` already carries the
// secret to the attacker's name server), then checked again with the address it resolved to
// before anything is sent to it.
import { AbortedError } from '../../errors';
import { knownPrivateAddress, resolveHost, systemLookup, type LookupAll } from './addressClass';
import { FetchFailedError, FetchTimeoutError } from './errors';
import { htmlTitle, htmlToMarkdown, htmlToText } from './htmlConvert';
import { httpGet, type HttpResponse } from './httpGet';
import { checkUrl as parseUrl } from './urlPolicy';

export type FetchFormat = 'markdown' | 'text' | 'html';
export const MAX_FETCH_BYTES = 5 * 1024 * 1024;
export const DEFAULT_TIMEOUT_S = 30;
export const MAX_TIMEOUT_S = 120;
export const MAX_REDIRECTS = 5;

const BROWSER_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36';
/** Cloudflare challenges browser-looking clients that run no JavaScript; an honest UA often passes. */
const PLAIN_UA = 'loupe';

const ACCEPT: Record<FetchFormat, string> = {
  markdown: 'text/markdown;q=1.0, text/x-markdown;q=0.9, text/plain;q=0.8, text/html;q=0.7, */*;q=0.1',
  text: 'text/plain;q=1.0, text/markdown;q=0.9, text/html;q=0.8, */*;q=0.1',
  html: 'text/html;q=1.0, application/xhtml+xml;q=0.9, text/plain;q=0.8, text/markdown;q=0.7, */*;q=0.1',
};

export interface UrlCheck {
  url: URL;
  /** 0 for the URL asked for, then 1… for each redirect. */
  hop: number;
  /** What the host name alone says (an IP literal, `localhost`, a metadata name); no lookup was made. */
  privateAddress: string | null;
}

export interface HopCheck {
  url: URL;
  /** 0 for the URL asked for, then 1… for each redirect. */
  hop: number;
  addresses: string[];
  /** e.g. "127.0.0.1 (loopback)" when the host is not on the public internet. */
  privateAddress: string | null;
}

export interface WebFetchOptions {
  url: string;
  format?: FetchFormat;
  timeoutSeconds?: number;
  signal?: AbortSignal;
  /** Throws to refuse a hop by its URL alone; called before its host name is resolved. */
  checkUrl?: (hop: UrlCheck) => Promise<void>;
  /** Throws to refuse a hop once its addresses are known (the permission engine sits here). */
  checkHop?: (hop: HopCheck) => Promise<void>;
  /** Resolves host names; the system resolver by default. */
  lookup?: LookupAll;
  maxBytes?: number;
}

export interface WebFetchResult {
  url: string;
  redirects: string[];
  status: number;
  contentType: string;
  format: FetchFormat;
  title: string | null;
  content: string;
  bytes: number;
  binary: boolean;
  retriedWithPlainUserAgent: boolean;
}

export function clampTimeoutSeconds(s: number | undefined): number {
  if (s === undefined || !Number.isFinite(s) || s <= 0) return DEFAULT_TIMEOUT_S;
  return Math.min(MAX_TIMEOUT_S, s);
}

export async function webFetch(o: WebFetchOptions): Promise<WebFetchResult> {
  const first = parseUrl(o.url);
  const format = o.format ?? 'markdown';
  const seconds = clampTimeoutSeconds(o.timeoutSeconds);
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new FetchTimeoutError(first.href, seconds)), seconds * 1000);
  const onAbort = () => deadline.abort(new AbortedError('The fetch'));
  if (o.signal?.aborted) onAbort();
  o.signal?.addEventListener('abort', onAbort, { once: true });
  const signal = deadline.signal;
  try {
    let url = first;
    const redirects: string[] = [];
    let retried = false;
    for (let hop = 0; ; hop++) {
      await o.checkUrl?.({ url, hop, privateAddress: knownPrivateAddress(url.hostname) });
      if (signal.aborted) throw signal.reason;
      const host = await resolveHost(url.hostname, signal, o.lookup ?? systemLookup);
      if (!host.addresses.length) throw new FetchFailedError(`${url.hostname} has no address.`);
      await o.checkHop?.({ url, hop, addresses: host.addresses.map((a) => a.address), privateAddress: host.privateAddress });
      if (signal.aborted) throw signal.reason;
      const get = (ua: string) => httpGet({ url, address: host.addresses[0], headers: { 'user-agent': ua, accept: ACCEPT[format], 'accept-language': 'en;q=1.0, *;q=0.5' }, signal, maxBytes: o.maxBytes ?? MAX_FETCH_BYTES });
      let res = await get(BROWSER_UA);
      if (res.status === 403 && res.headers['cf-mitigated'] === 'challenge' && !retried) {
        retried = true;
        res = await get(PLAIN_UA);
      }
      const location = res.headers.location;
      if (res.status >= 300 && res.status < 400 && location) {
        if (redirects.length >= MAX_REDIRECTS) throw new FetchFailedError(`${first.href} redirected more than ${MAX_REDIRECTS} times; stopped at ${url.href}.`);
        url = parseUrl(location, url);
        redirects.push(url.href);
        continue;
      }
      if (res.status < 200 || res.status >= 300) throw new FetchFailedError(`${url.href} answered HTTP ${res.status} ${res.statusText}.`.replace(' .', '.'));
      return { ...(await convert(res, format)), url: url.href, redirects, status: res.status, format, retriedWithPlainUserAgent: retried };
    }
  } catch (err) {
    throw signal.aborted && signal.reason ? signal.reason : err;
  } finally {
    clearTimeout(timer);
    o.signal?.removeEventListener('abort', onAbort);
  }
}

const BINARY_TYPES = /^(image|audio|video|font)\/|^application\/(octet-stream|pdf|zip|gzip|x-tar|x-7z|vnd\.|msword|wasm)/;

function decode(body: Buffer, charset: string | undefined): string {
  try {
    return new TextDecoder(charset || 'utf-8').decode(body);
  } catch {
    return body.toString('utf8');
  }
}

async function convert(res: HttpResponse, format: FetchFormat): Promise<Pick<WebFetchResult, 'contentType' | 'title' | 'content' | 'bytes' | 'binary'>> {
  const contentType = String(res.headers['content-type'] ?? '');
  const mime = contentType.split(';')[0].trim().toLowerCase();
  const charset = /charset=["']?([\w-]+)/i.exec(contentType)?.[1];
  const bytes = res.body.length;
  if (BINARY_TYPES.test(mime) || res.body.subarray(0, 8192).includes(0)) {
    return { contentType, title: null, bytes, binary: true, content: `[binary content (${mime || 'unknown type'}, ${bytes} bytes) not shown]` };
  }
  const text = decode(res.body, charset);
  const isHtml = /html/.test(mime) || (!mime && /^\s*<(!doctype html|html)/i.test(text));
  if (!isHtml || format === 'html') return { contentType, title: isHtml ? htmlTitle(text) : null, bytes, binary: false, content: text };
  return { contentType, title: htmlTitle(text), bytes, binary: false, content: format === 'markdown' ? await htmlToMarkdown(text) : htmlToText(text) };
}
