// The BUILT desktop app booted under plain Node: out/main/index.js is imported by Node's own
// loader (not the test runner's transform), with a module hook that answers `electron` with the
// stand-in of test/support/fakeElectron.ts; the built preload (out/preload/index.cjs) runs with
// only the `require` a sandboxed preload gets. What the bundler made is what is checked: every
// request channel bound, the preload exposing exactly the contract's channels, the hardened
// window, and the renderer's IPC client completing a round trip through the real preload code.
// Needs `npm run build` (or `npx electron-vite build`) first.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { register } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import vm from 'node:vm';
import type { MenuItemConstructorOptions } from 'electron';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIpcClient } from '../src/renderer/host-client/ipcClient';
import { windowOptions } from '../src/main/electron/windowOptions';
import { EVENT_CHANNELS, REQUEST_CHANNELS, ipcChannel, type PreloadBridge } from '../src/shared/contract';
import { createFakeElectron, type FakeElectron } from './support/fakeElectron';
import { firstLaunchHome } from './support/firstLaunchHome';
import { tempDir, until } from './support/tmp';

const ROOT = path.resolve(__dirname, '..');
const MAIN = path.join(ROOT, 'out/main/index.js');
const PRELOAD = path.join(ROOT, 'out/preload/index.cjs');
const GLOBAL_KEY = '__loupeStandInElectron';

/**
 * Node's own import, not the test runner's: the runner hands `data:` modules to Node, and this
 * one imports the bundle from there, so Node's loader (and the hook below) loads all of it.
 */
async function nativeImport(url: string): Promise<unknown> {
  const trampoline = `export const loaded = import(${JSON.stringify(url)});`;
  const mod = (await import(/* @vite-ignore */ `data:text/javascript,${encodeURIComponent(trampoline)}`)) as { loaded: Promise<unknown> };
  return mod.loaded;
}

/** Makes `import 'electron'` from the built main bundle resolve to the stand-in on globalThis. */
function hookElectron(e: FakeElectron): void {
  (globalThis as Record<string, unknown>)[GLOBAL_KEY] = e;
  const names = Object.keys(e).filter((k) => /^[A-Za-z_$][\w$]*$/.test(k));
  const source = `const e = globalThis[${JSON.stringify(GLOBAL_KEY)}];\nexport default e;\n${names.map((n) => `export const ${n} = e.${n};`).join('\n')}\n`;
  const outDir = pathToFileURL(path.join(ROOT, 'out') + path.sep).href;
  const hooks = `
    const SOURCE = ${JSON.stringify(source)};
    export async function resolve(specifier, context, next) {
      if (specifier === 'electron' && context.parentURL && context.parentURL.startsWith(${JSON.stringify(outDir)})) return { url: 'loupe-stand-in:electron', shortCircuit: true };
      return next(specifier, context);
    }
    export async function load(url, context, next) {
      if (url === 'loupe-stand-in:electron') return { format: 'module', source: SOURCE, shortCircuit: true };
      return next(url, context);
    }`;
  register(`data:text/javascript,${encodeURIComponent(hooks)}`);
}

/** The built preload as Electron runs a sandboxed one: CommonJS, and `require` knows only `electron`. */
function runBuiltPreload(e: FakeElectron): { required: string[] } {
  const required: string[] = [];
  const code = readFileSync(PRELOAD, 'utf8');
  const fn = vm.compileFunction(code, ['exports', 'require', 'module', '__filename', '__dirname'], { filename: PRELOAD });
  const module = { exports: {} };
  const sandboxRequire = (id: string) => {
    required.push(id);
    if (id === 'electron') return e;
    throw new Error(`a sandboxed preload cannot require '${id}'`);
  };
  fn(module.exports, sandboxRequire, module, PRELOAD, path.dirname(PRELOAD));
  return { required };
}

let dir: string;
let cleanup: (() => Promise<void>) | undefined;
let workspace: string;
let configDir: string;
let e: FakeElectron;
const invoked: string[] = [];
let restoreEnv: (() => void) | undefined;

beforeAll(async () => {
  for (const f of [MAIN, PRELOAD]) if (!existsSync(f)) throw new Error(`The app is not built (${path.relative(ROOT, f)} is missing): run \`npm run build\` before this test.`);
  ({ dir, cleanup } = await tempDir('loupe-bundle-'));
  workspace = path.join(dir, 'project');
  mkdirSync(workspace);
  writeFileSync(path.join(workspace, 'hello.txt'), 'hello from the built bundle\n');
  ({ configDir, restore: restoreEnv } = firstLaunchHome(dir));

  e = createFakeElectron();
  const invoke = e.ipcRenderer.invoke;
  e.ipcRenderer.invoke = (channel, params) => {
    invoked.push(channel);
    return invoke(channel, params);
  };
  hookElectron(e);
  process.argv = [process.execPath, '.']; // no folder on the command line: the person picks one
  await nativeImport(pathToFileURL(MAIN).href);
  e.app.ready();
  await until(() => e.windows.length > 0 && e.Menu.current !== null, 10_000);
}, 30_000);

afterAll(async () => {
  if (e?.windows.length) {
    e.app.emit('will-quit', { preventDefault: () => undefined });
    await until(() => e.app.quits > 0, 10_000);
  }
  restoreEnv?.();
  await cleanup?.();
});

describe('the built Electron bundle, booted under Node with a stand-in electron', () => {
  it('binds every request channel of the contract with ipcMain.handle, and nothing else', () => {
    expect([...e.ipcMain.handlers.keys()].sort()).toEqual(REQUEST_CHANNELS.map((c) => ipcChannel(c)).sort());
    expect(e.app.sandboxed).toBe(true);
    expect(e.app.paths.userData).toBe(path.join(configDir, 'electron'));
  });

  it('creates the window with the hardened options and the built preload', () => {
    expect(e.windows).toHaveLength(1);
    // The options the bundle really built, against the source's literal (pinned flag by flag in
    // windowOptions.test.ts), and the flags that matter most said again here in full.
    expect(e.windows[0].options).toEqual(windowOptions({ preload: PRELOAD, devTools: false }));
    const prefs = e.windows[0].options.webPreferences!;
    expect([prefs.sandbox, prefs.contextIsolation, prefs.webSecurity]).toEqual([true, true, true]);
    expect([prefs.nodeIntegration, prefs.nodeIntegrationInWorker, prefs.nodeIntegrationInSubFrames, prefs.webviewTag, prefs.allowRunningInsecureContent, prefs.devTools]).toEqual([false, false, false, false, false, false]);
    expect(e.windows[0].webContents.getURL()).toBe(pathToFileURL(path.join(ROOT, 'out/renderer/index.html')).href);
    expect(e.dialog.shown).toEqual([]);
  });

  it('the built preload needs only electron and exposes exactly the contract: every request, every event, no more', () => {
    const { required } = runBuiltPreload(e);
    expect([...new Set(required)]).toEqual(['electron']);
    expect([...e.exposed.keys()]).toEqual(['loupe']);
    const bridge = e.exposed.get('loupe') as PreloadBridge;
    expect(Object.keys(bridge).sort()).toEqual(['on', 'requests']);
    expect(Object.keys(bridge.requests).sort()).toEqual([...REQUEST_CHANNELS].sort());
    expect(Object.isFrozen(bridge.requests)).toBe(true);
    for (const event of EVENT_CHANNELS) bridge.on(event, () => undefined)();
    for (const bad of ['loupe:tree.changed', 'constructor', '__proto__', 'ipc.raw', ''] as never[]) expect(() => bridge.on(bad, () => undefined)).toThrow(/unknown event/);
  });

  it('the renderer IPC client completes a round trip: open a folder, list the tree, read a file, an event back', async () => {
    const client = createIpcClient(e.exposed.get('loupe') as PreloadBridge);
    const opened: string[] = [];
    const off = client.on('workspace.opened', (info) => opened.push(info.name));
    e.dialog.showOpenDialog = async () => ({ canceled: false, filePaths: [workspace] });
    await client.request('workspace.pick', undefined);
    await until(() => opened.length > 0);
    expect(opened).toEqual(['project']);
    off();
    expect((await client.request('workspace.current', undefined))?.name).toBe('project');
    const listing = await client.request('tree.list', { dir: '' });
    expect(listing.entries.map((x) => x.name)).toContain('hello.txt');
    expect((await client.request('file.read', { path: 'hello.txt' })).content).toBe('hello from the built bundle\n');
    // Every call went over a contract channel name, nothing made up by the page.
    const allowed = new Set(REQUEST_CHANNELS.map((c) => ipcChannel(c)));
    expect(invoked.length).toBeGreaterThan(0);
    expect(invoked.every((c) => allowed.has(c))).toBe(true);
    // An error crosses as a code the client raises, not a bare rejection.
    await expect(client.request('file.read', { path: '../outside.txt' })).rejects.toMatchObject({ code: expect.any(String) });
  });

  it("has Help › Open Log, opening the user's log file", async () => {
    const flat = (items: MenuItemConstructorOptions[]): MenuItemConstructorOptions[] => items.flatMap((i) => [i, ...(Array.isArray(i.submenu) ? flat(i.submenu) : [])]);
    const item = flat(e.Menu.current!.template).find((i) => i.id === 'open-log');
    (item!.click as () => void)();
    await until(() => e.shell.opened.length > 0);
    expect(e.shell.opened).toEqual([path.join(configDir, 'logs', 'loupe.log')]);
  });
});
