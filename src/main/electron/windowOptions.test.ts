import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  CONTENT_SECURITY_POLICY,
  devServerUrl,
  isAllowedAppRequest,
  isAllowedExternalUrl,
  isAppUrl,
  isPermissionAllowed,
  isTrustedSender,
  newAppWindow,
  windowOptions,
} from './windowOptions';

const PRELOAD = '/opt/loupe/out/preload/index.cjs';
const FILE_APP = pathToFileURL('/opt/loupe/out/renderer/index.html').href;
const DEV_APP = 'http://localhost:5173/';

describe('windowOptions', () => {
  const options = windowOptions({ preload: PRELOAD, devTools: false });
  const prefs = options.webPreferences!;

  // Each flag is pinned to its exact value: flipping any of them fails this test.
  it.each([
    ['sandbox', true],
    ['contextIsolation', true],
    ['nodeIntegration', false],
    ['nodeIntegrationInWorker', false],
    ['nodeIntegrationInSubFrames', false],
    ['webSecurity', true],
    ['allowRunningInsecureContent', false],
    ['webviewTag', false],
    ['experimentalFeatures', false],
    ['navigateOnDragDrop', false],
    ['spellcheck', false],
    ['enableWebSQL', false],
    ['safeDialogs', true],
  ] as const)('sets webPreferences.%s to %s', (key, value) => {
    expect(prefs[key]).toBe(value);
  });

  it('uses the given preload and sets nothing that loosens the sandbox', () => {
    expect(prefs.preload).toBe(PRELOAD);
    expect(prefs.enableBlinkFeatures).toBeUndefined();
    expect(prefs.disableBlinkFeatures).toBe('Auxclick');
    expect(prefs.additionalArguments).toBeUndefined();
    expect(prefs.partition).toBeUndefined();
    expect(prefs.session).toBeUndefined();
    expect(Object.keys(prefs).sort()).toEqual(
      [
        'allowRunningInsecureContent',
        'contextIsolation',
        'devTools',
        'disableBlinkFeatures',
        'enableWebSQL',
        'experimentalFeatures',
        'navigateOnDragDrop',
        'nodeIntegration',
        'nodeIntegrationInSubFrames',
        'nodeIntegrationInWorker',
        'preload',
        'safeDialogs',
        'sandbox',
        'spellcheck',
        'webSecurity',
        'webviewTag',
      ].sort(),
    );
  });

  it('opens hidden on a dark background with a sensible size', () => {
    expect(options.show).toBe(false);
    expect(options.backgroundColor).toMatch(/^#[0-9a-f]{6}$/i);
    const [r, g, b] = [1, 3, 5].map((i) => parseInt(options.backgroundColor!.slice(i, i + 2), 16));
    expect(r + g + b).toBeLessThan(3 * 64);
    expect(options.width).toBeGreaterThanOrEqual(1024);
    expect(options.height).toBeGreaterThanOrEqual(700);
    expect(options.minWidth).toBeGreaterThan(0);
  });

  it('constructs the window with exactly these options', () => {
    const seen: unknown[] = [];
    class FakeWindow {
      constructor(o: unknown) {
        seen.push(o);
      }
    }
    expect(newAppWindow(FakeWindow, { preload: PRELOAD, devTools: false })).toBeInstanceOf(FakeWindow);
    expect(seen).toEqual([options]);
  });

  it('allows DevTools only when asked (unpackaged runs)', () => {
    expect(prefs.devTools).toBe(false);
    expect(windowOptions({ preload: PRELOAD, devTools: true }).webPreferences!.devTools).toBe(true);
  });
});

describe('CONTENT_SECURITY_POLICY', () => {
  const directives = new Map(
    CONTENT_SECURITY_POLICY.split(';').map((d) => {
      const [name, ...values] = d.trim().split(/\s+/);
      return [name, values] as const;
    }),
  );

  it('is the exact policy of the renderer', () => {
    expect(CONTENT_SECURITY_POLICY).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; worker-src 'self' blob:; connect-src 'self'",
    );
  });

  it('never allows inline or eval scripts, nor remote origins', () => {
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('default-src')).toEqual(["'self'"]);
    expect(directives.get('connect-src')).toEqual(["'self'"]);
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-eval|https?:|\*/);
  });

  const html = path.resolve('src/renderer/index.html');
  it.skipIf(!existsSync(html))('matches the meta tag in src/renderer/index.html', () => {
    const meta = /<meta[^>]+http-equiv=["']Content-Security-Policy["'][^>]*content=(["'])(.+?)\1/is.exec(readFileSync(html, 'utf8'));
    expect(meta, 'index.html has a CSP meta tag').not.toBeNull();
    const norm = (p: string) =>
      p
        .split(';')
        .map((d) => d.trim().replace(/\s+/g, ' '))
        .filter(Boolean)
        .sort();
    expect(norm(meta![2])).toEqual(norm(CONTENT_SECURITY_POLICY));
  });
});

describe('isAllowedExternalUrl', () => {
  it.each([
    'https://github.com/owner/repo/issues/1',
    'https://docs.github.com/en',
    'https://developer.mozilla.org/en-US/docs/Web/API',
    'https://www.electronjs.org/docs/latest/tutorial/security',
    'https://nodejs.org/api/fs.html#fspromises',
  ])('allows %s', (url) => expect(isAllowedExternalUrl(url)).toBe(true));

  it.each([
    'http://github.com/', // not https
    'file:///etc/passwd',
    'javascript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'vscode://file/etc/passwd',
    'ms-msdt:/id PCWDiagnostic',
    'smb://evil.example/share',
    'https://evil.example/',
    'https://github.com.evil.example/',
    'https://evilgithub.com/',
    'https://user:pass@github.com/',
    'https://github.com:8443/',
    'https://someone.github.io/',
    'not a url',
    '',
    `https://github.com/${'a'.repeat(5000)}`,
  ])('refuses %s', (url) => expect(isAllowedExternalUrl(url)).toBe(false));
});

describe('isTrustedSender / isAppUrl', () => {
  it('trusts the main frame of our file:// page, with or without query and hash', () => {
    expect(isTrustedSender(FILE_APP, true, FILE_APP)).toBe(true);
    expect(isTrustedSender(`${FILE_APP}?x=1#/tree`, true, FILE_APP)).toBe(true);
  });

  it('refuses subframes, other files, other schemes and missing frames', () => {
    expect(isTrustedSender(FILE_APP, false, FILE_APP)).toBe(false);
    expect(isTrustedSender(pathToFileURL('/opt/loupe/out/renderer/other.html').href, true, FILE_APP)).toBe(false);
    expect(isTrustedSender(pathToFileURL('/tmp/evil/index.html').href, true, FILE_APP)).toBe(false);
    expect(isTrustedSender('file:///opt/loupe/out/renderer/../renderer/x/../../../../tmp/index.html', true, FILE_APP)).toBe(false);
    expect(isTrustedSender('https://evil.example/', true, FILE_APP)).toBe(false);
    expect(isTrustedSender('about:blank', true, FILE_APP)).toBe(false);
    expect(isTrustedSender('', true, FILE_APP)).toBe(false);
    expect(isTrustedSender(null, true, FILE_APP)).toBe(false);
    expect(isTrustedSender(undefined, true, FILE_APP)).toBe(false);
  });

  it('trusts the dev server by origin only', () => {
    expect(isTrustedSender('http://localhost:5173/index.html', true, DEV_APP)).toBe(true);
    expect(isTrustedSender('http://localhost:5174/', true, DEV_APP)).toBe(false);
    expect(isTrustedSender('http://127.0.0.1:5173/', true, DEV_APP)).toBe(false);
    expect(isTrustedSender('https://localhost:5173/', true, DEV_APP)).toBe(false);
    expect(isTrustedSender('http://localhost:5173/', false, DEV_APP)).toBe(false);
  });

  it('never treats an unparsable or exotic app URL as matching', () => {
    expect(isAppUrl('custom://x/', 'custom://x/')).toBe(false);
    expect(isAppUrl('x', 'nonsense')).toBe(false);
  });
});

describe('isAllowedAppRequest', () => {
  it('lets the file:// page load its own folder, data: and blob:', () => {
    expect(isAllowedAppRequest(FILE_APP, FILE_APP)).toBe(true);
    expect(isAllowedAppRequest(pathToFileURL('/opt/loupe/out/renderer/assets/index-abc.js').href, FILE_APP)).toBe(true);
    expect(isAllowedAppRequest('data:font/woff2;base64,AAAA', FILE_APP)).toBe(true);
    expect(isAllowedAppRequest('blob:file:///1234-5678', FILE_APP)).toBe(true);
  });

  it('refuses other local files and any remote host', () => {
    expect(isAllowedAppRequest('file:///etc/passwd', FILE_APP)).toBe(false);
    expect(isAllowedAppRequest(pathToFileURL('/opt/loupe/out/renderer-evil/x.js').href, FILE_APP)).toBe(false);
    expect(isAllowedAppRequest('file:///opt/loupe/out/renderer/../main/index.js', FILE_APP)).toBe(false);
    expect(isAllowedAppRequest('file:///opt/loupe/out/renderer/%2e%2e/main/index.js', FILE_APP)).toBe(false);
    expect(isAllowedAppRequest('file://evil-host/opt/loupe/out/renderer/x.js', FILE_APP)).toBe(false);
    expect(isAllowedAppRequest('https://evil.example/x.js', FILE_APP)).toBe(false);
    expect(isAllowedAppRequest('ws://127.0.0.1:1234/ws', FILE_APP)).toBe(false);
  });

  it('lets the dev page reach its server and HMR socket only', () => {
    expect(isAllowedAppRequest('http://localhost:5173/@vite/client', DEV_APP)).toBe(true);
    expect(isAllowedAppRequest('ws://localhost:5173/', DEV_APP)).toBe(true);
    expect(isAllowedAppRequest('http://localhost:8080/', DEV_APP)).toBe(false);
    expect(isAllowedAppRequest('ws://localhost:8080/', DEV_APP)).toBe(false);
    expect(isAllowedAppRequest('file:///etc/passwd', DEV_APP)).toBe(false);
  });
});

describe('isPermissionAllowed', () => {
  it.each(['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal', 'fullscreen', 'hid', 'usb', 'serial', 'unknown'])(
    'denies %s even to our own page',
    (permission) => expect(isPermissionAllowed(permission, FILE_APP, true, FILE_APP)).toBe(false),
  );

  it('allows sanitized clipboard writes from our main frame only', () => {
    expect(isPermissionAllowed('clipboard-sanitized-write', FILE_APP, true, FILE_APP)).toBe(true);
    expect(isPermissionAllowed('clipboard-sanitized-write', FILE_APP, false, FILE_APP)).toBe(false);
    expect(isPermissionAllowed('clipboard-sanitized-write', 'https://evil.example/', true, FILE_APP)).toBe(false);
    expect(isPermissionAllowed('clipboard-sanitized-write', undefined, true, FILE_APP)).toBe(false);
  });
});

describe('devServerUrl', () => {
  it('is honoured only unpackaged and on loopback', () => {
    expect(devServerUrl({ ELECTRON_RENDERER_URL: 'http://localhost:5173' }, false)).toBe('http://localhost:5173/');
    expect(devServerUrl({ ELECTRON_RENDERER_URL: 'http://127.0.0.1:5173/' }, false)).toBe('http://127.0.0.1:5173/');
    expect(devServerUrl({ ELECTRON_RENDERER_URL: 'http://localhost:5173' }, true)).toBeNull();
    expect(devServerUrl({ ELECTRON_RENDERER_URL: 'https://evil.example/' }, false)).toBeNull();
    expect(devServerUrl({ ELECTRON_RENDERER_URL: 'file:///tmp/x.html' }, false)).toBeNull();
    expect(devServerUrl({}, false)).toBeNull();
  });
});
