import { pathToFileURL } from 'node:url';
import type { IpcMainInvokeEvent, WebContents } from 'electron';
import { describe, expect, it, vi } from 'vitest';
import { EVENT_CHANNELS, REQUEST_CHANNELS, ipcChannel, type IpcResult } from '../../shared/contract';
import { FileNotFoundError } from '../errors';
import { bindIpc, type IpcHost } from './ipc';

const APP = pathToFileURL('/opt/loupe/out/renderer/index.html').href;
type Handler = (event: IpcMainInvokeEvent, params: unknown) => Promise<IpcResult>;

function setup() {
  const handlers = new Map<string, Handler>();
  const ipcMain = {
    handle: vi.fn((channel: string, h: Handler) => void handlers.set(channel, h)),
    removeHandler: vi.fn((channel: string) => void handlers.delete(channel)),
  };
  let emit: ((event: string, payload: unknown) => void) | undefined;
  const unsubscribe = vi.fn();
  const host = {
    handle: vi.fn(async (channel: string, params: unknown): Promise<unknown> => ({ channel, params })),
    onEvent: vi.fn((listener: (event: string, payload: unknown) => void) => {
      emit = listener;
      return unsubscribe;
    }),
  };
  const wc = { id: 1, destroyed: false, isDestroyed: () => wc.destroyed, send: vi.fn() };
  let current: typeof wc | null = wc;
  const unbind = bindIpc({
    ipcMain,
    host: host as unknown as IpcHost,
    appUrl: APP,
    getWebContents: () => current as unknown as WebContents | null,
    log: () => {},
  });
  const invoke = (channel: string, params: unknown, from: Partial<{ sender: unknown; url: string; parent: unknown; frame: null }> = {}) => {
    const senderFrame = 'frame' in from ? null : { url: from.url ?? APP, parent: from.parent ?? null };
    const event = { sender: from.sender ?? wc, senderFrame } as unknown as IpcMainInvokeEvent;
    return handlers.get(ipcChannel(channel as never))!(event, params);
  };
  return { handlers, ipcMain, host, wc, invoke, unbind, unsubscribe, emit: (e: string, p: unknown) => emit!(e, p), setCurrent: (c: typeof wc | null) => (current = c) };
}

describe('bindIpc', () => {
  it('binds exactly one namespaced handler per request channel', () => {
    const { handlers } = setup();
    expect([...handlers.keys()].sort()).toEqual(REQUEST_CHANNELS.map((c) => `loupe:${c}`).sort());
  });

  it('passes trusted requests to the host and wraps the result', async () => {
    const { invoke, host } = setup();
    await expect(invoke('tree.list', { dir: 'src' })).resolves.toEqual({ ok: true, r: { channel: 'tree.list', params: { dir: 'src' } } });
    expect(host.handle).toHaveBeenCalledWith('tree.list', { dir: 'src' });
  });

  it('keeps error codes across IPC', async () => {
    const { invoke, host } = setup();
    host.handle.mockRejectedValueOnce(new FileNotFoundError('a.txt'));
    const r = await invoke('file.read', { path: 'a.txt' });
    expect(r).toMatchObject({ ok: false, e: { code: 'FILE_NOT_FOUND' } });
    host.handle.mockRejectedValueOnce(new Error('boom'));
    expect(await invoke('file.read', { path: 'b' })).toEqual({ ok: false, e: { code: 'INTERNAL', message: 'boom' } });
  });

  it.each([
    ['a subframe', { parent: {} }],
    ['a foreign page', { url: 'https://evil.example/' }],
    ['another local file', { url: 'file:///tmp/evil.html' }],
    ['a destroyed frame', { frame: null }],
    ['another webContents', { sender: { id: 99 } }],
  ] as const)('refuses %s before touching the host', async (_what, from) => {
    const { invoke, host } = setup();
    const r = await invoke('workspace.open', { path: '/' }, from as never);
    expect(r).toMatchObject({ ok: false, e: { code: 'PERMISSION_DENIED' } });
    expect(host.handle).not.toHaveBeenCalled();
  });

  it('refuses everything once the window is gone', async () => {
    const { invoke, host, setCurrent, wc } = setup();
    wc.destroyed = true;
    expect(await invoke('app.info', undefined)).toMatchObject({ ok: false });
    setCurrent(null);
    expect(await invoke('app.info', undefined)).toMatchObject({ ok: false });
    expect(host.handle).not.toHaveBeenCalled();
  });

  it('forwards host events to the window, skipping a destroyed one', () => {
    const { emit, wc, setCurrent } = setup();
    for (const e of EVENT_CHANNELS) emit(e, { e });
    expect(wc.send.mock.calls).toEqual(EVENT_CHANNELS.map((e) => [`loupe:${e}`, { e }]));
    wc.destroyed = true;
    emit('terminal.data', { id: '1', data: 'x' });
    setCurrent(null);
    emit('terminal.data', { id: '1', data: 'x' });
    expect(wc.send).toHaveBeenCalledTimes(EVENT_CHANNELS.length);
  });

  it('unbinds every handler and the event subscription', () => {
    const { unbind, handlers, unsubscribe } = setup();
    unbind();
    expect(handlers.size).toBe(0);
    expect(unsubscribe).toHaveBeenCalledOnce();
  });
});
