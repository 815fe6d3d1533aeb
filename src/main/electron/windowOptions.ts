// The window's security posture, as data. Pure: no runtime import of 'electron', so the unit
// test can pin every flag without an Electron binary.
import type { BrowserWindowConstructorOptions } from 'electron';

/**
 * The Content-Security-Policy of the renderer. The renderer's index.html carries the same
 * policy in a meta tag; the main process also sends it as a response header.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "worker-src 'self' blob:",
  "connect-src 'self'",
].join('; ');

export const WINDOW_BACKGROUND = '#1e1e1e';

export interface WindowOptionsInput {
  /** Absolute path of the built preload (out/preload/index.cjs). */
  preload: string;
  /** DevTools are available only in a developer run (see isDeveloperRun). */
  devTools: boolean;
}

/** Anything constructed like a BrowserWindow; main.ts passes the real one. */
export type WindowConstructor<W> = new (options: BrowserWindowConstructorOptions) => W;

/**
 * Creates the app window. The options literal sits right at `new BrowserWindow({…})` so
 * static scanners (electronegativity) see every flag; `windowOptions()` reads back this very
 * literal for the unit test, so what is tested is what is constructed.
 */
export function newAppWindow<W>(BrowserWindow: WindowConstructor<W>, { preload, devTools }: WindowOptionsInput): W {
  return new BrowserWindow({
    title: 'Loupe',
    width: 1400,
    height: 900,
    minWidth: 720,
    minHeight: 480,
    backgroundColor: WINDOW_BACKGROUND,
    // Shown on 'ready-to-show' so the user never sees an empty white frame.
    show: false,
    webPreferences: {
      preload,
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
      navigateOnDragDrop: false,
      spellcheck: false,
      enableWebSQL: false,
      safeDialogs: true,
      // Middle-click opens links in a new window: nothing in Loupe needs it.
      disableBlinkFeatures: 'Auxclick',
      devTools,
    },
  });
}

class CapturedOptions {
  constructor(readonly options: BrowserWindowConstructorOptions) {}
}

/** The exact options `newAppWindow` constructs the window with. */
export function windowOptions(input: WindowOptionsInput): BrowserWindowConstructorOptions {
  return newAppWindow(CapturedOptions, input).options;
}

const parse = (url: string): URL | null => {
  try {
    return new URL(url);
  } catch {
    return null;
  }
};

/**
 * Hosts whose https pages may be opened in the user's browser (exact host match; no
 * subdomain wildcards, so user-content hosts like *.github.io stay out).
 */
export const EXTERNAL_HOSTS: ReadonlySet<string> = new Set([
  'github.com',
  'www.github.com',
  'docs.github.com',
  'gist.github.com',
  'developer.mozilla.org',
  'nodejs.org',
  'docs.npmjs.com',
  'www.npmjs.com',
  'npmjs.com',
  'www.electronjs.org',
  'electronjs.org',
  'www.typescriptlang.org',
  'typescriptlang.org',
  'react.dev',
  'vite.dev',
  'vitejs.dev',
  'vitest.dev',
  'playwright.dev',
  'code.visualstudio.com',
  'learn.microsoft.com',
  'docs.python.org',
  'pypi.org',
  'doc.rust-lang.org',
  'docs.rs',
  'crates.io',
  'go.dev',
  'pkg.go.dev',
  'stackoverflow.com',
  'platform.openai.com',
]);

/** May this URL be handed to the OS (`shell.openExternal`)? https, allow-listed host, default port, no credentials. */
export function isAllowedExternalUrl(url: string): boolean {
  if (typeof url !== 'string' || url.length > 4096) return false;
  const u = parse(url);
  if (!u) return false;
  return u.protocol === 'https:' && u.port === '' && u.username === '' && u.password === '' && EXTERNAL_HOSTS.has(u.hostname);
}

/**
 * What a file: URL names: its host and its percent-decoded path, with a Windows drive letter in
 * lower case. Escaping differs between who wrote the URL (Node's pathToFileURL escapes `~`, `[`,
 * `]`; Electron's loadFile leaves them; Chromium keeps what it was given), so file URLs are
 * compared by what they name. null when not a file URL, or when decoding would change which
 * file is meant (an encoded separator or NUL, a dot segment, bytes that are not UTF-8).
 */
export function fileUrlTarget(url: string | URL): { host: string; path: string } | null {
  const u = typeof url === 'string' ? parse(url) : url;
  if (!u || u.protocol !== 'file:') return null;
  if (/%(2f|5c|00)/i.test(u.pathname)) return null;
  let decoded: string;
  try {
    // Escapes only: a lone `%` (Chromium keeps one that starts no escape) stands for itself.
    decoded = u.pathname.replace(/(?:%[0-9a-f]{2})+/gi, (run) => decodeURIComponent(run));
  } catch {
    return null;
  }
  if (decoded.split('/').some((segment) => segment === '.' || segment === '..')) return null;
  const path = decoded.replace(/^\/([A-Za-z]):/, (_m, drive: string) => `/${drive.toLowerCase()}:`);
  return { host: u.host.toLowerCase(), path };
}

/**
 * Is `url` the app itself? For a file:// app that is exactly its index.html (any query or
 * hash, however the path is escaped); for the development server, the same origin.
 */
export function isAppUrl(url: string, appUrl: string): boolean {
  const u = parse(url);
  const app = parse(appUrl);
  if (!u || !app) return false;
  if (app.protocol === 'file:') {
    const a = fileUrlTarget(app);
    const t = fileUrlTarget(u);
    return a !== null && t !== null && t.host === a.host && t.path === a.path;
  }
  if (app.protocol === 'http:' || app.protocol === 'https:') return u.origin === app.origin;
  return false;
}

/** IPC is answered only for the main frame of our own page, never for subframes or foreign pages. */
export function isTrustedSender(frameUrl: string | null | undefined, isMainFrame: boolean, appUrl: string): boolean {
  return isMainFrame === true && typeof frameUrl === 'string' && isAppUrl(frameUrl, appUrl);
}

/**
 * May our window's page load this resource? Its own files (under the renderer folder, or
 * the development server's origin, including its HMR WebSocket), data: and blob: URLs.
 * Everything else, such as other local files or remote hosts, is refused.
 */
export function isAllowedAppRequest(url: string, appUrl: string): boolean {
  const u = parse(url);
  const app = parse(appUrl);
  if (!u || !app) return false;
  if (u.protocol === 'data:' || u.protocol === 'blob:') return true;
  if (app.protocol === 'file:') {
    const a = fileUrlTarget(app);
    const t = fileUrlTarget(u);
    if (!a || !t || t.host !== a.host) return false;
    return t.path.startsWith(a.path.slice(0, a.path.lastIndexOf('/') + 1));
  }
  if (app.protocol === 'http:' || app.protocol === 'https:') {
    if (u.protocol === 'http:' || u.protocol === 'https:') return u.origin === app.origin;
    if (u.protocol === 'ws:' || u.protocol === 'wss:') return u.host === app.host;
  }
  return false;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The electron-vite development server URL, honoured only in unpackaged runs and only on a
 * loopback host; otherwise null (load the built file).
 */
export function devServerUrl(env: Record<string, string | undefined>, isPackaged: boolean): string | null {
  const raw = env.ELECTRON_RENDERER_URL;
  if (isPackaged || !raw) return null;
  const u = parse(raw);
  if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:') || !LOOPBACK.has(u.hostname)) return null;
  return u.href;
}

/**
 * Permission policy (requests and checks alike): everything is denied, with one exception:
 * sanitized clipboard *writes* (`navigator.clipboard.writeText`) from our own main frame,
 * so "copy" buttons work. Reading the clipboard, media, notifications, devices, etc.: no.
 */
export function isPermissionAllowed(
  permission: string,
  requestingUrl: string | undefined,
  isMainFrame: boolean,
  appUrl: string,
): boolean {
  return permission === 'clipboard-sanitized-write' && isTrustedSender(requestingUrl, isMainFrame, appUrl);
}

/**
 * Reload and DevTools are for working on Loupe itself: an unpackaged run with LOUPE_DEV=1, or
 * one on electron-vite's development server. `npm start` alone is a user's run: a stray
 * Ctrl+R would drop the page's state, and DevTools would hand the page's powers to anyone at
 * the keyboard.
 */
export function isDeveloperRun(env: Record<string, string | undefined>, isPackaged: boolean): boolean {
  return !isPackaged && (env.LOUPE_DEV === '1' || devServerUrl(env, isPackaged) !== null);
}
