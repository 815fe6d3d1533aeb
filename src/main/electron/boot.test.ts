// The Electron entry booted under Node: src/main/electron/main.ts and the preload run for real
// against a stand-in 'electron' module (no Electron binary can run here). What a user would
// meet on first launch: where Chromium's profile goes, the IPC surface, the window's hardening,
// the menu of a user's run, the clipboard permission, an old sealed key, a crashed renderer.
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { MenuItemConstructorOptions } from 'electron';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FakeElectron } from '../../../test/support/fakeElectron';
import { firstLaunchHome } from '../../../test/support/firstLaunchHome';
import { tempDir, until } from '../../../test/support/tmp';
import { createIpcClient } from '../../renderer/host-client/ipcClient';
import { REQUEST_CHANNELS, ipcChannel, type PreloadBridge } from '../../shared/contract';
import { windowOptions } from './windowOptions';

const fake = vi.hoisted(() => ({ electron: null as FakeElectron | null }));
vi.mock('electron', async () => {
  const { createFakeElectron } = await import('../../../test/support/fakeElectron');
  fake.electron = createFakeElectron();
  return { ...fake.electron, default: fake.electron };
});

const here = path.dirname(fileURLToPath(import.meta.url));

let dir: string;
let cleanup: () => Promise<void>;
let workspace: string;
let configDir: string;
let e: FakeElectron;
let restoreEnv: (() => void) | undefined;

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('loupe-boot-'));
  workspace = path.join(dir, 'project');
  mkdirSync(workspace);
  writeFileSync(path.join(workspace, 'hello.txt'), 'hello from the boot test\n');
  ({ configDir, restore: restoreEnv } = firstLaunchHome(dir));
  // A key an earlier version of the app sealed with safeStorage.
  mkdirSync(configDir, { recursive: true });
  writeFileSync(path.join(configDir, 'settings.json'), JSON.stringify({ llm: { api_key_enc: Buffer.from('sealed:sk-legacy').toString('base64') } }));

  process.argv = [process.execPath, '.', workspace];
  await import('./main');
  e = fake.electron!;
  e.app.ready();
  await until(() => e.windows.length > 0 && e.Menu.current !== null, 10_000);
}, 30_000);

afterAll(async () => {
  if (e) {
    e.app.emit('will-quit', { preventDefault: () => undefined });
    await until(() => e.app.quits > 0, 10_000);
  }
  restoreEnv?.();
  await cleanup();
});

const win = () => e.windows[0];
const flatten = (items: MenuItemConstructorOptions[]): MenuItemConstructorOptions[] => items.flatMap((i) => [i, ...(Array.isArray(i.submenu) ? flatten(i.submenu) : [])]);

describe('the Electron main process, booted with a stand-in electron', () => {
  it("gives Chromium's profile its own folder, apart from settings.json", () => {
    expect(e.app.paths.userData).toBe(path.join(configDir, 'electron'));
  });

  it('binds every request channel, and opens the folder from the command line', async () => {
    expect([...e.ipcMain.handlers.keys()].sort()).toEqual(REQUEST_CHANNELS.map((c) => ipcChannel(c)).sort());
    expect(e.app.sandboxed).toBe(true);
  });

  it("creates the hardened window on the app's escaped file URL, DevTools off in a user's run", () => {
    const preload = path.join(here, '../preload/index.cjs');
    expect(win().options).toEqual(windowOptions({ preload, devTools: false }));
    expect(win().webContents.getURL()).toBe(pathToFileURL(path.join(here, '../renderer/index.html')).href);
    expect(e.dialog.shown).toEqual([]); // nothing went wrong at start
  });

  it("has no Reload or DevTools in the menu of a user's run", () => {
    const roles = flatten(e.Menu.current!.template).map((i) => i.role);
    expect(roles).toEqual(expect.arrayContaining(['copy', 'paste']));
    for (const role of ['reload', 'forceReload', 'toggleDevTools']) expect(roles).not.toContain(role);
  });

  it("Help › Open Log opens the user's log file, owner-only, in the config folder; settings name it", async () => {
    const item = flatten(e.Menu.current!.template).find((i) => i.id === 'open-log');
    (item!.click as () => void)();
    const file = path.join(configDir, 'logs', 'loupe.log');
    await until(() => e.shell.opened.length > 0);
    expect(e.shell.opened).toEqual([file]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toMatch(/"event":"app.started"/);
    await import('../../preload/index');
    const client = createIpcClient(e.exposed.get('loupe') as PreloadBridge);
    expect((await client.request('settings.get', undefined)).log_file).toBe(file);
  });

  it('never grants clipboard reads (paste is the browser\'s own event), only sanitized writes from the app', () => {
    const wc = win().webContents;
    const ask = (permission: string, url = wc.getURL(), isMainFrame = true) => {
      let granted: boolean | undefined;
      e.session.defaultSession.handlers.request(wc as never, permission as never, ((g: boolean) => (granted = g)) as never, { requestingUrl: url, isMainFrame } as never);
      const checked = e.session.defaultSession.handlers.check(wc as never, permission as never, '' as never, { requestingUrl: url, isMainFrame } as never);
      return { granted, checked };
    };
    expect(ask('clipboard-read')).toEqual({ granted: false, checked: false });
    expect(ask('clipboard-sanitized-write')).toEqual({ granted: true, checked: true });
    expect(ask('clipboard-sanitized-write', 'file:///etc/evil.html')).toEqual({ granted: false, checked: false });
  });

  it('answers the renderer through the real preload and IPC client: requests and an event back', async () => {
    await import('../../preload/index');
    const bridge = e.exposed.get('loupe') as PreloadBridge;
    expect(Object.keys(bridge).sort()).toEqual(['on', 'requests']);
    expect(Object.keys(bridge.requests).sort()).toEqual([...REQUEST_CHANNELS].sort());
    const client = createIpcClient(bridge);

    const current = await client.request('workspace.current', undefined);
    expect(current?.name).toBe('project');
    const listing = await client.request('tree.list', { dir: '' });
    expect(listing.entries.map((x) => x.name)).toContain('hello.txt');
    expect((await client.request('file.read', { path: 'hello.txt' })).content).toBe('hello from the boot test\n');

    const opened: string[] = [];
    const off = client.on('workspace.opened', (info) => opened.push(info.name));
    mkdirSync(path.join(dir, 'second'));
    await client.request('workspace.open', { path: path.join(dir, 'second') });
    await until(() => opened.length > 0);
    expect(opened).toEqual(['second']);
    off();
    await client.request('workspace.open', { path: workspace });
  });

  it.skipIf(process.platform !== 'linux')('opens a key an earlier app sealed, with the async safeStorage API, and moves it to the keyring', async () => {
    const client = createIpcClient(e.exposed.get('loupe') as PreloadBridge);
    const view = await client.request('settings.get', undefined);
    expect(view.has_api_key).toBe(true);
    expect(view.api_key_where).toMatch(/keyring/);
  });

  it('offers Reload when the renderer crashes, and closes the dead window when declined', async () => {
    const wc = win().webContents;
    e.dialog.answer = 0;
    wc.emit('render-process-gone', {}, { reason: 'crashed', exitCode: 139 });
    await until(() => wc.reloads === 1);
    expect(e.dialog.shown.at(-1)).toMatchObject({ type: 'error', buttons: ['Reload', 'Close Window'] });

    wc.emit('render-process-gone', {}, { reason: 'clean-exit', exitCode: 0 });
    e.dialog.answer = 1;
    wc.emit('render-process-gone', {}, { reason: 'oom', exitCode: 9 });
    await until(() => win().closed);
    expect(wc.reloads).toBe(1);
    expect(e.dialog.shown.filter((d) => d.buttons?.includes('Reload'))).toHaveLength(2);
  });
});
