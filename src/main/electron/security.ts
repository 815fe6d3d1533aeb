// Session and webContents hardening. Electron objects are passed in (type-only imports), so
// this module is testable with fakes; main.ts wires it to the real session and windows.
import type { Session, WebContents } from 'electron';
import { CONTENT_SECURITY_POLICY, isAllowedAppRequest, isAllowedExternalUrl, isAppUrl, isPermissionAllowed } from './windowOptions';

export interface SecurityOptions {
  /** The URL our window loads (file://…/index.html, or the dev server in development). */
  appUrl: string;
  /** `shell.openExternal`; only ever called with allow-listed https URLs. */
  openExternal: (url: string) => Promise<void>;
  log?: (message: string) => void;
}

const short = (url: string): string => (url.length > 200 ? `${url.slice(0, 200)}…` : url);

/**
 * Per-session policy: permissions denied, devices denied, downloads refused, the CSP sent
 * as a header, and our window's page confined to its own files.
 */
export function hardenSession(ses: Session, opts: SecurityOptions & { isAppWebContents: (id: number | undefined) => boolean }): void {
  const { appUrl } = opts;
  const log = opts.log ?? ((m: string) => console.warn(m));

  ses.setPermissionRequestHandler((_wc, permission, callback, details) => {
    const allowed = isPermissionAllowed(permission, details.requestingUrl, details.isMainFrame, appUrl);
    if (!allowed) log(`loupe: denied permission request "${permission}"`);
    callback(allowed);
  });
  ses.setPermissionCheckHandler((_wc, permission, _origin, details) =>
    isPermissionAllowed(permission, details.requestingUrl, details.isMainFrame, appUrl),
  );
  ses.setDevicePermissionHandler(() => false);
  ses.on('select-hid-device', (event, _details, callback) => {
    event.preventDefault();
    callback();
  });
  ses.on('select-usb-device', (event, _details, callback) => {
    event.preventDefault();
    callback();
  });
  ses.on('select-serial-port', (event, _ports, _wc, callback) => {
    event.preventDefault();
    callback('');
  });
  ses.on('will-download', (event, item) => {
    log(`loupe: refused download of ${short(item.getURL())}`);
    event.preventDefault();
  });

  // The renderer's index.html carries the same policy in a meta tag; the header covers
  // every response the session serves over http(s), e.g. the development server.
  ses.webRequest.onHeadersReceived((details, callback) => {
    const headers = { ...(details.responseHeaders ?? {}) };
    for (const key of Object.keys(headers)) if (key.toLowerCase() === 'content-security-policy') delete headers[key];
    headers['Content-Security-Policy'] = [CONTENT_SECURITY_POLICY];
    callback({ responseHeaders: headers });
  });

  // Our page may load its own files and nothing else (no other local file, no remote host),
  // whatever a compromised renderer tries. Other webContents (DevTools) are not filtered.
  ses.webRequest.onBeforeRequest((details, callback) => {
    if (!opts.isAppWebContents(details.webContentsId) || isAllowedAppRequest(details.url, appUrl)) {
      callback({});
      return;
    }
    log(`loupe: blocked ${details.resourceType} request to ${short(details.url)}`);
    callback({ cancel: true });
  });
}

/** Opens `url` in the user's browser if it is on the allow-list; says so when it is not. */
function openIfAllowed(url: string, opts: SecurityOptions, log: (m: string) => void): void {
  if (!isAllowedExternalUrl(url)) {
    log(`loupe: not opening ${short(url)}: only https links to known documentation hosts open externally`);
    return;
  }
  opts.openExternal(url).catch((err: unknown) => log(`loupe: could not open ${short(url)}: ${String(err)}`));
}

/**
 * Per-webContents policy, applied to every webContents the app creates: no navigation away
 * from the app, no new windows (allow-listed links open in the browser), no <webview>.
 */
export function hardenWebContents(wc: WebContents, opts: SecurityOptions): void {
  const { appUrl } = opts;
  const log = opts.log ?? ((m: string) => console.warn(m));

  wc.on('will-navigate', (event) => {
    if (isAppUrl(event.url, appUrl)) return;
    event.preventDefault();
    openIfAllowed(event.url, opts, log);
  });
  // Subframes navigate without 'will-navigate'; keep them on the app as well.
  wc.on('will-frame-navigate', (event) => {
    if (event.isMainFrame || isAppUrl(event.url, appUrl)) return;
    log(`loupe: blocked subframe navigation to ${short(event.url)}`);
    event.preventDefault();
  });
  wc.on('will-redirect', (event) => {
    if (isAppUrl(event.url, appUrl)) return;
    log(`loupe: blocked redirect to ${short(event.url)}`);
    event.preventDefault();
  });
  wc.setWindowOpenHandler(({ url }) => {
    openIfAllowed(url, opts, log);
    return { action: 'deny' };
  });
  wc.on('will-attach-webview', (event) => {
    log('loupe: blocked a <webview>');
    event.preventDefault();
  });
  wc.on('select-bluetooth-device', (event, _devices, callback) => {
    event.preventDefault();
    callback('');
  });
}
