// The desktop app: lifecycle, the one window, menus, dialogs and the IPC binding. This folder
// is the only place that imports 'electron'; the Host knows nothing of it.
import { app, BrowserWindow, dialog, ipcMain, Menu, safeStorage, session, shell, type OpenDialogOptions, type SaveDialogOptions, type WebContents } from 'electron';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { defaultConfigDir } from '../host/configDir';
import { Host } from '../host/host';
import { LOUPE_VERSION } from '../host/version';
import { toWireError } from '../errors';
import { systemKeys } from '../services/settings/keyStore';
import { userLog } from '../services/log/userLog';
import { folderFromArgv } from './argv';
import { bindIpc } from './ipc';
import { menuTemplate } from './menu';
import { offerReload } from './rendererGone';
import { hardenSession, hardenWebContents, type SecurityOptions } from './security';
import { devServerUrl, isDeveloperRun, newAppWindow } from './windowOptions';

const here = path.dirname(fileURLToPath(import.meta.url)); // out/main
const PRELOAD = path.join(here, '../preload/index.cjs');
const RENDERER_INDEX = path.join(here, '../renderer/index.html');
const DISPOSE_TIMEOUT_MS = 5_000;

const devUrl = devServerUrl(process.env, app.isPackaged);
const developer = isDeveloperRun(process.env, app.isPackaged);
const configDir = defaultConfigDir();
const log = userLog({ configDir });
// Electron still shows its own dialog for these; the log keeps the stack.
process.on('uncaughtExceptionMonitor', (error) => log.logger.error('app.uncaught', { error }));
const appUrl = devUrl ?? pathToFileURL(RENDERER_INDEX).href;
const security: SecurityOptions = { appUrl, openExternal: (url) => shell.openExternal(url) };

let host: Host | null = null;
let win: BrowserWindow | null = null;
let appWebContents: WebContents | null = null;
let unbindIpc: (() => void) | null = null;

function message(err: unknown): string {
  return toWireError(err).message;
}

function showError(title: string, err: unknown): void {
  const options = { type: 'error' as const, message: title, detail: message(err) };
  console.error(`loupe: ${title}: ${options.detail}`);
  log.logger.error('app.error', { title, error: err });
  void (win && !win.isDestroyed() ? dialog.showMessageBox(win, options) : dialog.showMessageBox(options));
}

async function pickFolder(): Promise<string | null> {
  const options: OpenDialogOptions = { title: 'Open Folder', properties: ['openDirectory', 'createDirectory'] };
  const r = win && !win.isDestroyed() ? await dialog.showOpenDialog(win, options) : await dialog.showOpenDialog(options);
  return r.canceled ? null : (r.filePaths[0] ?? null);
}

/** The save dialog of File › Export Session…: Markdown to read and share, or JSON to import again. */
async function pickSaveFile(name: string): Promise<string | null> {
  const options: SaveDialogOptions = {
    title: 'Export Session',
    defaultPath: name,
    filters: [
      { name: 'Markdown', extensions: ['md'] },
      { name: 'JSON (complete, for loupe import)', extensions: ['json'] },
    ],
  };
  const r = win && !win.isDestroyed() ? await dialog.showSaveDialog(win, options) : await dialog.showSaveDialog(options);
  return r.canceled || !r.filePath ? null : r.filePath;
}

/** File › Open Folder…: the host shows the dialog (pickFolder) and announces `workspace.opened`. */
async function openFolderFromMenu(): Promise<void> {
  if (!host) return;
  try {
    await host.handle('workspace.pick', undefined);
  } catch (err) {
    showError('Could not open the folder', err);
  }
}

function createWindow(): void {
  const w = newAppWindow(BrowserWindow, { preload: PRELOAD, devTools: developer });
  win = w;
  appWebContents = w.webContents;
  w.once('ready-to-show', () => w.show());
  w.on('closed', () => {
    if (win === w) {
      win = null;
      appWebContents = null;
    }
  });
  w.webContents.on('render-process-gone', (_event, details) => {
    console.error(`loupe: the window's renderer stopped (${details.reason}, exit code ${details.exitCode})`);
    log.logger.error('app.renderer_gone', { reason: details.reason, exit_code: details.exitCode });
    const target = { isDestroyed: () => w.isDestroyed(), reload: () => w.webContents.reload(), close: () => w.close() };
    offerReload(target, details, (options) => dialog.showMessageBox(w, options)).catch((err: unknown) => showError('Could not reload the window', err));
  });
  // loadURL with the escaped URL, not loadFile: loadFile leaves `%` unescaped, so a checkout
  // path with `%41` in it would load a different (missing) file.
  const loaded = w.loadURL(appUrl);
  loaded.catch((err: unknown) => showError('Could not load the Loupe window', err));
}

/** Help › Open Log: the user's log file in the system's viewer for it. */
async function openLog(): Promise<void> {
  log.logger.info('app.open_log', { file: log.file }); // the file exists before it is opened
  const failure = await shell.openPath(log.file);
  if (failure) showError('Could not open the log', new Error(`${failure} (${log.file})`));
}

async function start(): Promise<void> {
  log.logger.info('app.started', { version: LOUPE_VERSION });
  hardenSession(session.defaultSession, {
    ...security,
    isAppWebContents: (id) => id !== undefined && appWebContents !== null && !appWebContents.isDestroyed() && appWebContents.id === id,
  });

  // The API key lives where `loupe serve` and `loupe run` find it too (the OS keychain, else the
  // owner-only settings file). safeStorage only opens a key an earlier version sealed with it.
  // Asked only when such a key exists: on Linux the first use may prompt for the keyring.
  const unsealLegacy = async (sealed: string): Promise<string> => {
    if (!(await safeStorage.isAsyncEncryptionAvailable())) throw new Error('safeStorage is not available');
    return (await safeStorage.decryptStringAsync(Buffer.from(sealed, 'base64'))).result;
  };
  host = new Host({ transport: 'electron', configDir, pickFolder, pickSaveFile, keys: { ...systemKeys(configDir), unsealLegacy }, logger: log.logger, logFile: log.file });
  unbindIpc = bindIpc({ ipcMain, host, appUrl, getWebContents: () => appWebContents });

  Menu.setApplicationMenu(
    Menu.buildFromTemplate(
      menuTemplate({ platform: process.platform, developer, openFolder: () => void openFolderFromMenu(), exportSession: () => host?.menuCommand('export-session'), openLog: () => void openLog() }),
    ),
  );

  // Open the folder from the command line before the page asks for `workspace.current`.
  const folder = folderFromArgv(process.argv, app.isPackaged, process.cwd());
  let openError: unknown = null;
  if (folder) {
    try {
      await host.open(folder);
    } catch (err) {
      openError = err;
    }
  }
  createWindow();
  host.readAhead();
  if (openError) showError(`Could not open ${folder}`, openError);
}

let disposed = false;
let disposing = false;
async function disposeHost(): Promise<void> {
  unbindIpc?.();
  unbindIpc = null;
  const h = host;
  host = null;
  if (!h) return;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      console.error(`loupe: the host did not stop within ${DISPOSE_TIMEOUT_MS} ms; quitting anyway`);
      resolve();
    }, DISPOSE_TIMEOUT_MS);
  });
  try {
    await Promise.race([h.dispose(), timeout]);
  } catch (err) {
    console.error(`loupe: while stopping the host: ${message(err)}`);
    log.logger.error('app.dispose_failed', { error: err });
  } finally {
    clearTimeout(timer);
  }
}

// Chromium's profile (caches, cookies, Local State) goes in its own subfolder of the config
// folder, away from settings.json. An isolated Loupe home (tests, a second profile) thereby gets
// its own profile and single-instance lock, and never hands its argv to the user's running Loupe.
app.setPath('userData', path.join(path.resolve(configDir), 'electron'));

if (!app.requestSingleInstanceLock()) {
  // Another Loupe is running; it receives our argv through 'second-instance'.
  app.quit();
} else {
  app.enableSandbox();

  // Every webContents the app ever creates gets the navigation / window.open / webview policy.
  app.on('web-contents-created', (_event, contents) => hardenWebContents(contents, security));

  app.on('second-instance', (_event, argv, workingDirectory) => {
    if (win && !win.isDestroyed()) {
      if (win.isMinimized()) win.restore();
      win.focus();
    } else if (app.isReady() && host) {
      createWindow();
    }
    const folder = folderFromArgv(argv, app.isPackaged, workingDirectory);
    if (folder && host) host.open(folder).catch((err: unknown) => showError(`Could not open ${folder}`, err));
  });

  app.on('activate', () => {
    if (app.isReady() && host && BrowserWindow.getAllWindows().length === 0) createWindow();
  });

  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });

  // Stop the host (and with it every terminal's process group) before the process exits.
  app.on('will-quit', (event) => {
    if (disposed) return;
    event.preventDefault();
    if (disposing) return;
    disposing = true;
    void disposeHost().finally(() => {
      disposed = true;
      app.quit();
    });
  });

  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => app.quit());

  app
    .whenReady()
    .then(start)
    .catch((err: unknown) => {
      console.error(err);
      dialog.showErrorBox('Loupe could not start', message(err));
      app.exit(1);
    });
}
