// The page a browser gets without the token. The token never rides in a cookie, so a reload
// of a tab that already moved it from the address bar into sessionStorage arrives without
// it; this page's script puts it back in the URL once. sessionStorage belongs to this origin
// (port included) and this tab, so no other server or page can read it.
import { TOKEN_STORAGE_KEY } from '../../../shared/contract';

/** Served to anyone who passes the Host/Origin checks: it holds no secret. */
export const REAUTH_PATH = '/_loupe-reauth.js';

export const REAUTH_SCRIPT = `(() => {
  const key = ${JSON.stringify(TOKEN_STORAGE_KEY)};
  const url = new URL(location.href);
  let token = null;
  try { token = sessionStorage.getItem(key); } catch {}
  // This URL's token was just refused (a new \`loupe serve\` run): forget it, do not loop.
  if (url.searchParams.has('token')) { try { sessionStorage.removeItem(key); } catch {} return; }
  if (!token) return;
  url.searchParams.set('token', token);
  location.replace(url.pathname + url.search + url.hash);
})();
`;

export const UNAUTHORIZED_PAGE =
  '<!doctype html><meta charset="utf-8"><title>Loupe</title>' +
  '<p>Unauthorized: open the URL that <code>loupe serve</code> printed.</p>' +
  `<script src="${REAUTH_PATH}"></script>\n`;
