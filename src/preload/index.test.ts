import { beforeEach, describe, expect, it, vi } from 'vitest';
import { EVENT_CHANNELS, REQUEST_CHANNELS, type PreloadBridge } from '../shared/contract';

// The real 'electron' module cannot load in Node; the preload sees only these two objects.
const electron = vi.hoisted(() => {
  const listeners = new Map<string, Set<(...args: unknown[]) => void>>();
  return {
    listeners,
    exposed: new Map<string, unknown>(),
    ipcRenderer: {
      invoke: vi.fn(async (channel: string, params: unknown) => ({ ok: true, r: { channel, params } })),
      on: vi.fn((channel: string, l: (...args: unknown[]) => void) => {
        if (!listeners.has(channel)) listeners.set(channel, new Set());
        listeners.get(channel)!.add(l);
      }),
      removeListener: vi.fn((channel: string, l: (...args: unknown[]) => void) => {
        listeners.get(channel)?.delete(l);
      }),
    },
  };
});
vi.mock('electron', () => ({
  ipcRenderer: electron.ipcRenderer,
  contextBridge: { exposeInMainWorld: (key: string, api: unknown) => electron.exposed.set(key, api) },
}));

const emit = (channel: string, payload: unknown) => {
  for (const l of electron.listeners.get(channel) ?? []) l({ sender: 'the IpcRendererEvent' }, payload);
};

describe('preload bridge', () => {
  let bridge: PreloadBridge;
  beforeEach(async () => {
    vi.resetModules();
    electron.exposed.clear();
    await import('./index');
    bridge = electron.exposed.get('loupe') as PreloadBridge;
  });

  it('exposes only window.loupe, with requests and on, never ipcRenderer', () => {
    expect([...electron.exposed.keys()]).toEqual(['loupe']);
    expect(Object.keys(bridge).sort()).toEqual(['on', 'requests']);
    expect(Object.values(bridge)).not.toContain(electron.ipcRenderer);
    // Contract channels only (`chat.send` is one); never a raw ipcRenderer method.
    for (const name of Object.keys(bridge.requests)) expect(name).not.toMatch(/^(invoke|send|sendSync|sendTo|sendToHost|postMessage|ipc\w*)$/);
    expect(Object.keys(bridge.requests).sort()).toEqual([...REQUEST_CHANNELS].sort());
  });

  it('has one method per request channel, each invoking its own namespaced channel', async () => {
    expect(Object.keys(bridge.requests).sort()).toEqual([...REQUEST_CHANNELS].sort());
    for (const ch of REQUEST_CHANNELS) {
      const method = bridge.requests[ch] as (p: unknown) => Promise<unknown>;
      await expect(method({ x: ch })).resolves.toEqual({ ok: true, r: { channel: `loupe:${ch}`, params: { x: ch } } });
    }
    expect(electron.ipcRenderer.invoke).toHaveBeenCalledTimes(REQUEST_CHANNELS.length);
  });

  it('subscribes only to contract events and passes the payload alone', () => {
    for (const ev of EVENT_CHANNELS) {
      const listener = vi.fn();
      const off = bridge.on(ev, listener);
      emit(`loupe:${ev}`, { ev });
      expect(listener).toHaveBeenCalledTimes(1);
      expect(listener.mock.calls[0]).toEqual([{ ev }]);
      off();
      off();
      emit(`loupe:${ev}`, { ev });
      expect(listener).toHaveBeenCalledTimes(1);
    }
  });

  it('refuses unknown or raw channel names', () => {
    for (const bad of ['loupe:terminal.data', 'ELECTRON_BROWSER_REQUIRE', 'toString', '__proto__', '', 42, null]) {
      expect(() => bridge.on(bad as never, () => {})).toThrow(/unknown event/);
    }
    expect(() => bridge.on('terminal.data', 'nope' as never)).toThrow(TypeError);
    expect(electron.ipcRenderer.on).not.toHaveBeenCalledWith('loupe:loupe:terminal.data', expect.anything());
  });
});
