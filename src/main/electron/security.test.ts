import { EventEmitter } from 'node:events';
import { pathToFileURL } from 'node:url';
import type { Session, WebContents } from 'electron';
import { describe, expect, it, vi } from 'vitest';
import { FakeSession } from '../../../test/support/fakeElectron';
import { hardenSession, hardenWebContents } from './security';
import { CONTENT_SECURITY_POLICY } from './windowOptions';

const APP = pathToFileURL('/opt/loupe/out/renderer/index.html').href;

class FakeWebContents extends EventEmitter {
  openHandler?: (details: { url: string }) => { action: string };
  setWindowOpenHandler(h: (details: { url: string }) => { action: string }) {
    this.openHandler = h;
  }
}

const event = (fields: Record<string, unknown> = {}) => ({ preventDefault: vi.fn(), ...fields });

function setupSession(appWebContentsId = 7) {
  const ses = new FakeSession();
  const log = vi.fn();
  hardenSession(ses as unknown as Session, {
    appUrl: APP,
    openExternal: vi.fn(async () => {}),
    log,
    isAppWebContents: (id) => id === appWebContentsId,
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const h = ses.handlers as Record<string, (...args: any[]) => any>;
  return { ses, h, log };
}

function setupWebContents() {
  const wc = new FakeWebContents();
  const openExternal = vi.fn(async () => {});
  hardenWebContents(wc as unknown as WebContents, { appUrl: APP, openExternal, log: vi.fn() });
  return { wc, openExternal };
}

describe('hardenSession', () => {
  it('denies permission requests and checks', () => {
    const { h } = setupSession();
    for (const permission of ['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal']) {
      const callback = vi.fn();
      h.request({}, permission, callback, { requestingUrl: APP, isMainFrame: true });
      expect(callback).toHaveBeenCalledWith(false);
      expect(h.check({}, permission, 'file://', { requestingUrl: APP, isMainFrame: true })).toBe(false);
    }
    expect(h.device({})).toBe(false);
  });

  it('allows only sanitized clipboard writes, from our own page', () => {
    const { h } = setupSession();
    expect(h.check({}, 'clipboard-sanitized-write', 'file://', { requestingUrl: APP, isMainFrame: true })).toBe(true);
    expect(h.check({}, 'clipboard-sanitized-write', 'https://x', { requestingUrl: 'https://x/', isMainFrame: true })).toBe(false);
  });

  it('cancels device pickers and downloads', () => {
    const { ses } = setupSession();
    for (const name of ['select-hid-device', 'select-usb-device']) {
      const e = event();
      const callback = vi.fn();
      ses.emit(name, e, {}, callback);
      expect(e.preventDefault).toHaveBeenCalled();
      expect(callback).toHaveBeenCalledWith();
    }
    const e = event();
    const callback = vi.fn();
    ses.emit('select-serial-port', e, [], {}, callback);
    expect(callback).toHaveBeenCalledWith('');
    const d = event();
    ses.emit('will-download', d, { getURL: () => 'https://x/y.zip' });
    expect(d.preventDefault).toHaveBeenCalled();
  });

  it('sends the CSP header, replacing any other CSP', () => {
    const { h } = setupSession();
    const callback = vi.fn();
    h.headers({ responseHeaders: { 'content-security-policy': ["default-src 'none'"], 'X-Other': ['1'] } }, callback);
    expect(callback).toHaveBeenCalledWith({
      responseHeaders: { 'X-Other': ['1'], 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] },
    });
  });

  it("confines our window's requests to the app's own files", () => {
    const { h } = setupSession(7);
    const run = (url: string, webContentsId?: number) => {
      const callback = vi.fn();
      h.before({ url, webContentsId, resourceType: 'xhr' }, callback);
      return callback.mock.calls[0][0];
    };
    expect(run(pathToFileURL('/opt/loupe/out/renderer/assets/a.js').href, 7)).toEqual({});
    expect(run('file:///etc/passwd', 7)).toEqual({ cancel: true });
    expect(run('https://evil.example/', 7)).toEqual({ cancel: true });
    // Other webContents (DevTools) and the browser process are not filtered here.
    expect(run('https://evil.example/', 8)).toEqual({});
    expect(run('https://evil.example/', undefined)).toEqual({});
  });
});

describe('hardenWebContents', () => {
  it('blocks navigation away from the app, opening allow-listed links externally', () => {
    const { wc, openExternal } = setupWebContents();
    const same = event({ url: `${APP}#x` });
    wc.emit('will-navigate', same);
    expect(same.preventDefault).not.toHaveBeenCalled();

    const docs = event({ url: 'https://github.com/a/b' });
    wc.emit('will-navigate', docs);
    expect(docs.preventDefault).toHaveBeenCalled();
    expect(openExternal).toHaveBeenCalledWith('https://github.com/a/b');

    const evil = event({ url: 'file:///etc/passwd' });
    wc.emit('will-navigate', evil);
    expect(evil.preventDefault).toHaveBeenCalled();
    expect(openExternal).toHaveBeenCalledTimes(1);
  });

  it('blocks subframe navigations and redirects away from the app', () => {
    const { wc } = setupWebContents();
    const sub = event({ url: 'https://evil.example/', isMainFrame: false });
    wc.emit('will-frame-navigate', sub);
    expect(sub.preventDefault).toHaveBeenCalled();
    const redirect = event({ url: 'https://evil.example/' });
    wc.emit('will-redirect', redirect);
    expect(redirect.preventDefault).toHaveBeenCalled();
    const ok = event({ url: APP });
    wc.emit('will-redirect', ok);
    expect(ok.preventDefault).not.toHaveBeenCalled();
  });

  it('denies every window.open, handing allow-listed https links to the browser', () => {
    const { wc, openExternal } = setupWebContents();
    expect(wc.openHandler!({ url: 'https://developer.mozilla.org/' })).toEqual({ action: 'deny' });
    expect(openExternal).toHaveBeenCalledWith('https://developer.mozilla.org/');
    for (const url of ['javascript:alert(1)', 'file:///etc/passwd', 'https://evil.example/', APP]) {
      expect(wc.openHandler!({ url })).toEqual({ action: 'deny' });
    }
    expect(openExternal).toHaveBeenCalledTimes(1);
  });

  it('refuses <webview> and Bluetooth device selection', () => {
    const { wc } = setupWebContents();
    const attach = event();
    wc.emit('will-attach-webview', attach, {}, {});
    expect(attach.preventDefault).toHaveBeenCalled();
    const bt = event();
    const callback = vi.fn();
    wc.emit('select-bluetooth-device', bt, [{ deviceId: 'x' }], callback);
    expect(bt.preventDefault).toHaveBeenCalled();
    expect(callback).toHaveBeenCalledWith('');
  });
});
