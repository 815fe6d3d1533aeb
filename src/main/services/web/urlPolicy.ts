// Which URLs may be fetched at all, decided from the text alone so a refusal costs no I/O.
import { FetchFailedError, UnsupportedUrlError } from './errors';

/** Parses and vets a URL; for a redirect hop, refusals become FETCH_FAILED (the server chose it). */
export function checkUrl(raw: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    return refuse(raw, 'it is not a valid URL', base);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return refuse(url.href, `only http and https URLs can be fetched, not ${url.protocol}`, base);
  if (url.username || url.password) return refuse(url.href.replace(/\/\/[^@/]*@/, '//***@'), 'URLs with credentials are not fetched', base);
  if (!url.hostname) return refuse(url.href, 'it has no host', base);
  return url;
}

function refuse(url: string, why: string, base?: URL): never {
  if (base) throw new FetchFailedError(`${base.href} redirected to ${url}, which was refused: ${why}.`);
  throw new UnsupportedUrlError(url, why);
}
