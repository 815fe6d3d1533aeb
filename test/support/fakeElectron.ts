// A stand-in for the 'electron' module, enough to boot src/main/electron/main.ts and the preload
// under Node: app lifecycle, windows, one session, ipcMain wired to ipcRenderer as Electron
// wires them (invoke carries the sender and its frame), dialogs that record what they showed.
// Only the async safeStorage API exists: the synchronous one is gone in Electron 46.
import { EventEmitter } from 'node:events';
import path from 'node:path';
import { format } from 'node:url';
import type { BrowserWindowConstructorOptions, MenuItemConstructorOptions, MessageBoxOptions } from 'electron';

type Fn = (...args: never[]) => unknown;
type IpcHandler = (event: unknown, params: unknown) => Promise<unknown>;

export class FakeWebContents extends EventEmitter {
  private static nextId = 1;
  readonly id = FakeWebContents.nextId++;
  url = '';
  destroyed = false;
  reloads = 0;
  openHandler: Fn | null = null;
  constructor(private readonly electron: FakeElectron) {
    super();
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  getURL(): string {
    return this.url;
  }
  async loadURL(url: string): Promise<void> {
    this.url = url;
  }
  reload(): void {
    this.reloads++;
  }
  setWindowOpenHandler(h: Fn): void {
    this.openHandler = h;
  }
  /** main → renderer: delivered to the preload's ipcRenderer listeners. */
  send(channel: string, payload: unknown): void {
    for (const l of this.electron.rendererListeners.get(channel) ?? []) l({ sender: 'IpcRendererEvent' }, payload);
  }
}

export class FakeSession extends EventEmitter {
  readonly handlers: Record<string, Fn> = {};
  setPermissionRequestHandler(h: Fn) {
    this.handlers.request = h;
  }
  setPermissionCheckHandler(h: Fn) {
    this.handlers.check = h;
  }
  setDevicePermissionHandler(h: Fn) {
    this.handlers.device = h;
  }
  readonly webRequest = {
    onHeadersReceived: (h: Fn) => void (this.handlers.headers = h),
    onBeforeRequest: (h: Fn) => void (this.handlers.before = h),
  };
}

export interface FakeElectron {
  app: EventEmitter & {
    isPackaged: boolean;
    paths: Record<string, string>;
    setPath(name: string, p: string): void;
    getPath(name: string): string;
    requestSingleInstanceLock(): boolean;
    enableSandbox(): void;
    sandboxed: boolean;
    quit(): void;
    quits: number;
    exit(code?: number): void;
    isReady(): boolean;
    whenReady(): Promise<void>;
    ready(): void;
  };
  BrowserWindow: (new (options: BrowserWindowConstructorOptions) => FakeWindow) & { getAllWindows(): FakeWindow[] };
  windows: FakeWindow[];
  ipcMain: { handlers: Map<string, IpcHandler>; handle(channel: string, h: IpcHandler): void; removeHandler(channel: string): void };
  ipcRenderer: {
    invoke(channel: string, params: unknown): Promise<unknown>;
    on(channel: string, l: (...args: unknown[]) => void): void;
    removeListener(channel: string, l: (...args: unknown[]) => void): void;
  };
  rendererListeners: Map<string, Set<(...args: unknown[]) => void>>;
  contextBridge: { exposeInMainWorld(key: string, api: unknown): void };
  exposed: Map<string, unknown>;
  dialog: {
    shown: MessageBoxOptions[];
    answer: number;
    showMessageBox(a: unknown, b?: MessageBoxOptions): Promise<{ response: number }>;
    showOpenDialog(): Promise<{ canceled: boolean; filePaths: string[] }>;
    showErrorBox(title: string, content: string): void;
  };
  Menu: { current: { template: MenuItemConstructorOptions[] } | null; buildFromTemplate(t: MenuItemConstructorOptions[]): { template: MenuItemConstructorOptions[] }; setApplicationMenu(m: { template: MenuItemConstructorOptions[] }): void };
  safeStorage: Record<string, Fn>;
  session: { defaultSession: FakeSession };
  shell: { openExternal(url: string): Promise<void>; opened: string[]; openPath(p: string): Promise<string> };
}

export interface FakeWindow extends EventEmitter {
  options: BrowserWindowConstructorOptions;
  webContents: FakeWebContents;
  shown: boolean;
  closed: boolean;
  show(): void;
  loadURL(url: string): Promise<void>;
  loadFile(file: string): Promise<void>;
  close(): void;
  isDestroyed(): boolean;
  isMinimized(): boolean;
  restore(): void;
  focus(): void;
}

export function createFakeElectron(): FakeElectron {
  let isReady = false;
  let markReady!: () => void;
  const readyPromise = new Promise<void>((r) => (markReady = r));
  const removed = (name: string) => () => {
    throw new Error(`safeStorage.${name} is deprecated in Electron 45 and removed in 46; use the async API`);
  };

  const electron = {} as FakeElectron;
  const windows: FakeWindow[] = [];
  class BrowserWindow extends EventEmitter implements FakeWindow {
    webContents: FakeWebContents;
    shown = false;
    closed = false;
    constructor(readonly options: BrowserWindowConstructorOptions) {
      super();
      this.webContents = new FakeWebContents(electron);
      windows.push(this);
      electron.app.emit('web-contents-created', {}, this.webContents);
    }
    static getAllWindows(): FakeWindow[] {
      return windows.filter((w) => !w.closed);
    }
    show() {
      this.shown = true;
    }
    loadURL(url: string) {
      return this.webContents.loadURL(url);
    }
    /** As Electron builds it: the path as is, only `#` and `?` escaped (url.format). */
    loadFile(file: string) {
      return this.webContents.loadURL(format({ protocol: 'file', slashes: true, pathname: path.resolve(file) }));
    }
    close() {
      this.closed = true;
      this.webContents.destroyed = true;
      this.emit('closed');
    }
    isDestroyed() {
      return this.closed;
    }
    isMinimized() {
      return false;
    }
    restore() {}
    focus() {}
  }

  const rendererListeners = new Map<string, Set<(...args: unknown[]) => void>>();
  const ipcHandlers = new Map<string, IpcHandler>();
  const exposed = new Map<string, unknown>();
  const shown: MessageBoxOptions[] = [];

  Object.assign(electron, {
    app: Object.assign(new EventEmitter(), {
      isPackaged: false,
      paths: {} as Record<string, string>,
      sandboxed: false,
      quits: 0,
      setPath(this: FakeElectron['app'], name: string, p: string) {
        this.paths[name] = p;
      },
      getPath(this: FakeElectron['app'], name: string) {
        return this.paths[name] ?? '';
      },
      requestSingleInstanceLock: () => true,
      enableSandbox(this: FakeElectron['app']) {
        this.sandboxed = true;
      },
      quit(this: FakeElectron['app']) {
        this.quits++;
      },
      exit() {},
      isReady: () => isReady,
      whenReady: () => readyPromise,
      ready() {
        isReady = true;
        markReady();
      },
    }),
    BrowserWindow,
    windows,
    ipcMain: {
      handlers: ipcHandlers,
      handle: (channel: string, h: IpcHandler) => {
        if (ipcHandlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
        ipcHandlers.set(channel, h);
      },
      removeHandler: (channel: string) => void ipcHandlers.delete(channel),
    },
    // The preload runs in the app window's main frame, whatever page it shows.
    ipcRenderer: {
      invoke: async (channel: string, params: unknown) => {
        const h = ipcHandlers.get(channel);
        if (!h) throw new Error(`No handler registered for '${channel}'`);
        const wc = windows.find((w) => !w.closed)!.webContents;
        return h({ sender: wc, senderFrame: { url: wc.getURL(), parent: null } }, params);
      },
      on: (channel: string, l: (...args: unknown[]) => void) => {
        if (!rendererListeners.has(channel)) rendererListeners.set(channel, new Set());
        rendererListeners.get(channel)!.add(l);
      },
      removeListener: (channel: string, l: (...args: unknown[]) => void) => void rendererListeners.get(channel)?.delete(l),
    },
    rendererListeners,
    contextBridge: { exposeInMainWorld: (key: string, api: unknown) => void exposed.set(key, api) },
    exposed,
    dialog: {
      shown,
      answer: 0,
      async showMessageBox(this: FakeElectron['dialog'], a: unknown, b?: MessageBoxOptions) {
        this.shown.push((b ?? a) as MessageBoxOptions);
        return { response: this.answer };
      },
      showOpenDialog: async () => ({ canceled: true, filePaths: [] }),
      showErrorBox: (title: string, content: string) => void shown.push({ message: title, detail: content }),
    },
    Menu: {
      current: null,
      buildFromTemplate: (template: MenuItemConstructorOptions[]) => ({ template }),
      setApplicationMenu(this: FakeElectron['Menu'], m: { template: MenuItemConstructorOptions[] }) {
        this.current = m;
      },
    },
    safeStorage: {
      isEncryptionAvailable: removed('isEncryptionAvailable'),
      encryptString: removed('encryptString'),
      decryptString: removed('decryptString'),
      isAsyncEncryptionAvailable: async () => true,
      encryptStringAsync: async (plain: string) => Buffer.from(`sealed:${plain}`),
      decryptStringAsync: async (sealed: Buffer) => ({ shouldReEncrypt: false, result: sealed.toString().replace(/^sealed:/, '') }),
    },
    session: { defaultSession: new FakeSession() },
    shell: {
      openExternal: async () => undefined,
      opened: [] as string[],
      async openPath(this: FakeElectron['shell'], p: string) {
        this.opened.push(p);
        return '';
      },
    },
  });
  return electron;
}
