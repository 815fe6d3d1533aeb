import { TOKEN_STORAGE_KEY as STORAGE_KEY } from '../../shared/contract';

interface LocationLike { href: string }
interface HistoryLike { state: unknown; replaceState(data: unknown, unused: string, url: string): void }
interface StorageLike { getItem(key: string): string | null; setItem(key: string, value: string): void }

/**
 * The access token of `loupe serve`. It arrives once in the printed URL; we move it to
 * sessionStorage and out of the address bar so it does not linger in history, screenshots
 * or a copied link. There is no cookie (cookies ignore ports): a reload of the same tab
 * gets the server's 401 page, whose script puts the token from sessionStorage back in the URL.
 */
export function takeToken(location: LocationLike, history: HistoryLike, storage: StorageLike): string | null {
  const url = new URL(location.href);
  const fromUrl = url.searchParams.get('token');
  if (fromUrl) {
    storage.setItem(STORAGE_KEY, fromUrl);
    url.searchParams.delete('token');
    history.replaceState(history.state, '', url.pathname + url.search + url.hash);
    return fromUrl;
  }
  return storage.getItem(STORAGE_KEY);
}

/** The WebSocket endpoint on the page's own host, so the CSP's 'self' covers it. */
export function webSocketUrl(location: { protocol: string; host: string }, token: string | null): string {
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  const query = token ? `?token=${encodeURIComponent(token)}` : '';
  return `${scheme}://${location.host}/ws${query}`;
}
