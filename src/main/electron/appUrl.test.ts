// The app's own URL as Chromium reports it must be recognised as the app, wherever the checkout
// lives. Chromium's normalisation is taken from a real Chromium page's `location.href`, for
// pages opened the way main.ts opens them (the escaped pathToFileURL form) and the way
// Electron's loadFile would (the path left as is).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { format, pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { chromium, type Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../../playwright.config';
import { tempDir } from '../../../test/support/tmp';
import { isAllowedAppRequest, isAppUrl, isPermissionAllowed, isTrustedSender } from './windowOptions';

const CHARS = ['a', 'b', '0', ' ', '~', '[', ']', '%', 'é', 'ü', '日', '😀', '#', '?', ';', '&', '+', '=', "'", '(', ')', '!', '$', ',', '@', '^', '{', '}', '|', '`'];
// Fixed names the issue names, plus a generated corpus of the same alphabet.
const FIXED = ['a~b', '[x]', '100%', '100%41', 'ünï cödé', 'a~b [c] 100% é 日'];
const GENERATED = fc.sample(
  fc
    .array(fc.constantFrom(...CHARS), { minLength: 1, maxLength: 12 })
    .map((cs) => cs.join(''))
    .filter((s) => s.trim() === s && s !== '.' && s !== '..'),
  { numRuns: 40, seed: 15 },
);

interface Seen {
  name: string;
  appUrl: string;
  href: string;
  asset: string;
  outside: string;
}

let browser: Browser;
const seen: Seen[] = [];
let cleanup: () => Promise<void>;

beforeAll(async () => {
  const t = await tempDir('loupe-app-url-');
  cleanup = t.cleanup;
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  const page = await browser.newPage();
  const names = [...new Set([...FIXED, ...GENERATED])];
  for (const [i, name] of names.entries()) {
    const index = path.join(t.dir, String(i), name, 'out', 'renderer', 'index.html');
    mkdirSync(path.dirname(index), { recursive: true });
    writeFileSync(index, '<!doctype html><title>Loupe</title>');
    const appUrl = pathToFileURL(index).href;
    // loadFile's URL: the path as is (`#` and `?` escaped). A `%` followed by hex digits then
    // names another file, so Chromium cannot open it that way at all: main.ts uses loadURL.
    const loadFileUrl = format({ protocol: 'file', slashes: true, pathname: index });
    const urls = /%[0-9a-f]{2}/i.test(index) ? [appUrl] : [appUrl, loadFileUrl];
    for (const url of urls) {
      await page.goto(url);
      const probe = await page.evaluate(() => {
        const { href } = (globalThis as unknown as { location: { href: string } }).location;
        return { href, asset: new URL('assets/index-abc.js', href).href, outside: new URL('../../secret.txt', href).href };
      });
      seen.push({ name, appUrl, ...probe });
    }
  }
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await cleanup?.();
});

describe("the app URL against Chromium's own", () => {
  it('Chromium does rewrite some of them (the case the comparison must survive)', () => {
    expect(seen.length).toBeGreaterThan(FIXED.length * 2);
    expect(seen.some((s) => s.href !== s.appUrl)).toBe(true);
  });

  it('recognises the page, its IPC, its clipboard writes and its assets, whatever the folder is called', () => {
    for (const s of seen) {
      const ctx = `${JSON.stringify(s.name)}: ${s.href} vs ${s.appUrl}`;
      expect(isAppUrl(s.href, s.appUrl), ctx).toBe(true);
      expect(isTrustedSender(s.href, true, s.appUrl), ctx).toBe(true);
      expect(isTrustedSender(s.href, false, s.appUrl), ctx).toBe(false);
      expect(isPermissionAllowed('clipboard-sanitized-write', s.href, true, s.appUrl), ctx).toBe(true);
      expect(isAllowedAppRequest(s.asset, s.appUrl), ctx).toBe(true);
      expect(isAllowedAppRequest(s.outside, s.appUrl), ctx).toBe(false);
      expect(isAppUrl(s.href.replace('/index.html', '/index.html.evil'), s.appUrl), ctx).toBe(false);
    }
  });
});

describe('Windows file URLs', () => {
  it('match whatever the case of the drive letter', () => {
    const upper = pathToFileURL('C:\\Users\\dev\\a~b [1]\\out\\renderer\\index.html', { windows: true }).href;
    const lower = 'file:///c:/Users/dev/a~b%20[1]/out/renderer/index.html';
    expect(isAppUrl(lower, upper)).toBe(true);
    expect(isAppUrl(upper, lower)).toBe(true);
    expect(isAllowedAppRequest('file:///c:/Users/dev/a~b%20[1]/out/renderer/assets/x.js', upper)).toBe(true);
    expect(isAllowedAppRequest('file:///c:/Users/dev/a~b%20[1]/out/main/index.js', upper)).toBe(false);
    expect(isAppUrl('file:///d:/Users/dev/a~b%20[1]/out/renderer/index.html', upper)).toBe(false);
    // Only the drive letter: the rest of the path still compares exactly.
    expect(isAppUrl('file:///c:/users/dev/a~b%20[1]/out/renderer/index.html', upper)).toBe(false);
  });

  it('refuses escapes that would name another file once decoded', () => {
    const app = pathToFileURL('/opt/loupe/out/renderer/index.html').href;
    for (const bad of [
      'file:///opt/loupe/out/renderer%2F..%2F..%2Fmain/index.js',
      'file:///opt/loupe/out/renderer/..%2Fmain.js',
      'file:///opt/loupe/out/renderer/%5C..%5Cmain.js',
      'file:///opt/loupe/out/renderer/x%00.js',
      'file:///opt/loupe/out/renderer/%FF.js',
    ]) {
      expect(isAllowedAppRequest(bad, app), bad).toBe(false);
    }
  });
});
