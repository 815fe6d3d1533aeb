import { describe, expect, it, vi } from 'vitest';
import type { IpcResult, PreloadBridge, WsServerMessage } from '../../shared/contract';
import { reconnectDelay } from './backoff';
import { HostRequestError } from './HostRequestError';
import { createIpcClient } from './ipcClient';
import { takeToken, webSocketUrl } from './token';
import { createWsClient, type SocketLike } from './wsClient';

class FakeSocket implements SocketLike {
  readyState = 0;
  sent: unknown[] = [];
  onopen: ((ev: unknown) => void) | null = null;
  onclose: ((ev: unknown) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  constructor(readonly url: string) {}
  send(data: string) {
    this.sent.push(JSON.parse(data));
  }
  close() {}
  open() {
    this.readyState = 1;
    this.onopen?.({});
  }
  drop() {
    this.readyState = 3;
    this.onclose?.({});
  }
  reply(msg: WsServerMessage) {
    this.onmessage?.({ data: JSON.stringify(msg) });
  }
}

function setup() {
  const sockets: FakeSocket[] = [];
  const timers: (() => void)[] = [];
  const client = createWsClient({
    url: 'ws://127.0.0.1:9/ws?token=t',
    createSocket: (url) => {
      const s = new FakeSocket(url);
      sockets.push(s);
      return s;
    },
    setTimer: (fn) => timers.push(fn),
    random: () => 0.5,
    clientId: 'client-0001',
  });
  const last = () => sockets[sockets.length - 1];
  /** The server's side of the handshake: ready, then a welcome. */
  const greet = (welcome: Partial<Extract<WsServerMessage, { t: 'welcome' }>> = {}) => {
    last().open();
    last().reply({ t: 'ready' });
    last().reply({ t: 'welcome', stream: 'st', seq: 0, replay: 'reset', resumed: true, ...welcome });
  };
  return { client, sockets, timers, last, greet };
}

const sentOf = (s: FakeSocket, t: string) => s.sent.filter((m) => (m as { t: string }).t === t);

describe('WebSocket client', () => {
  it('says hello when the server is ready, and sends requests only after the welcome', async () => {
    const { client, last } = setup();
    const recent = client.request('workspace.recent', undefined);
    last().open();
    expect(last().sent).toEqual([]);
    last().reply({ t: 'ready' });
    expect(last().sent).toEqual([{ t: 'hello', client: 'client-0001', pending: [] }]);
    last().reply({ t: 'welcome', stream: 'st', seq: 4, replay: 'reset', resumed: false });
    expect(sentOf(last(), 'req')).toEqual([{ t: 'req', id: 1, ch: 'workspace.recent', p: undefined }]);
    last().reply({ t: 'res', id: 1, ok: true, r: ['/a'] });
    await expect(recent).resolves.toEqual(['/a']);
  });

  it('turns an error reply into a HostRequestError carrying the code', async () => {
    const { client, last, greet } = setup();
    greet();
    const read = client.request('file.read', { path: 'nope' });
    last().reply({ t: 'res', id: 1, ok: false, e: { code: 'FILE_NOT_FOUND', message: 'no such file' } });
    const err = await read.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HostRequestError);
    expect(err).toMatchObject({ code: 'FILE_NOT_FOUND', message: 'no such file', channel: 'file.read' });
  });

  it('keeps the error details the host sent (a conflict\u2019s blocking ids)', async () => {
    const { client, last, greet } = setup();
    greet();
    const rollback = client.request('modlog.rollback', { modification_id: 'mod-1' });
    last().reply({ t: 'res', id: 1, ok: false, e: { code: 'ROLLBACK_CONFLICT', message: 'in the way', details: { blocking: ['mod-2'] } } });
    expect(await rollback.catch((e: unknown) => e)).toMatchObject({ code: 'ROLLBACK_CONFLICT', details: { blocking: ['mod-2'] } });
  });

  it('dispatches events to listeners until they unsubscribe, each number once', () => {
    const { client, last, greet } = setup();
    greet();
    const seen: string[] = [];
    const off = client.on('terminal.data', (p) => seen.push(p.data));
    last().reply({ t: 'evt', s: 1, ch: 'terminal.data', p: { id: 'a', data: 'hi' } });
    last().reply({ t: 'evt', s: 1, ch: 'terminal.data', p: { id: 'a', data: 'hi' } });
    off();
    last().reply({ t: 'evt', s: 2, ch: 'terminal.data', p: { id: 'a', data: 'again' } });
    expect(seen).toEqual(['hi']);
  });

  it('keeps a request across a drop, resends it with its id, and resumes the events where they stopped', async () => {
    const { client, sockets, timers, last, greet } = setup();
    const states: string[] = [];
    client.onStatus((s) => states.push(`${s.state}:${s.attempt}`));
    const resets: number[] = [];
    client.onReset(() => resets.push(1));
    const seen: string[] = [];
    client.on('terminal.data', (p) => seen.push(p.data));
    greet();
    last().reply({ t: 'evt', s: 1, ch: 'terminal.data', p: { id: 'a', data: 'one' } });
    const pending = client.request('tree.list', { dir: '' });
    last().drop();
    expect(timers).toHaveLength(1);
    timers.shift()!();
    expect(sockets).toHaveLength(2);
    last().drop();
    timers.shift()!();
    last().open();
    last().reply({ t: 'ready' });
    expect(sentOf(last(), 'hello')).toEqual([{ t: 'hello', client: 'client-0001', stream: 'st', since: 1, pending: [1] }]);
    // Events heard before the welcome are among those it replays.
    last().reply({ t: 'evt', s: 3, ch: 'terminal.data', p: { id: 'a', data: 'three' } });
    last().reply({ t: 'welcome', stream: 'st', seq: 3, replay: 'events', resumed: true });
    expect(sentOf(last(), 'req')).toEqual([{ t: 'req', id: 1, ch: 'tree.list', p: { dir: '' } }]);
    last().reply({ t: 'evt', s: 2, ch: 'terminal.data', p: { id: 'a', data: 'two' } });
    last().reply({ t: 'evt', s: 3, ch: 'terminal.data', p: { id: 'a', data: 'three' } });
    last().reply({ t: 'res', id: 1, ok: true, r: { dir: '', entries: [] } });
    await expect(pending).resolves.toEqual({ dir: '', entries: [] });
    expect(seen).toEqual(['one', 'two', 'three']);
    expect(resets).toEqual([]);
    expect(states).toEqual(['open:0', 'reconnecting:0', 'reconnecting:1', 'open:0']);
  });

  it('asks for the state again when the missed events are gone, and fails what a restarted host cannot know', async () => {
    const { client, timers, last, greet } = setup();
    const resets: number[] = [];
    client.onReset(() => resets.push(1));
    greet();
    const pending = client.request('chat.send', { text: 'hi' });
    last().drop();
    timers.shift()!();
    last().open();
    last().reply({ t: 'ready' });
    last().reply({ t: 'welcome', stream: 'other', seq: 0, replay: 'reset', resumed: false });
    await expect(pending).rejects.toMatchObject({ code: 'CONNECTION_LOST' });
    expect(sentOf(last(), 'req')).toEqual([]);
    expect(resets).toEqual([1]);
  });

  it('holds requests while the relay says the remote host is away, and says hello when it is back', async () => {
    const { client, last, greet } = setup();
    greet();
    last().reply({ t: 'link', state: 'reconnecting', message: 'ssh: connection reset' });
    expect(client.status().link).toEqual({ state: 'reconnecting', message: 'ssh: connection reset' });
    const later = client.request('workspace.current', undefined);
    expect(sentOf(last(), 'req')).toEqual([]);
    last().reply({ t: 'link', state: 'connected' });
    last().reply({ t: 'ready' });
    last().reply({ t: 'welcome', stream: 'st', seq: 0, replay: 'events', resumed: true });
    expect(sentOf(last(), 'req')).toEqual([{ t: 'req', id: 1, ch: 'workspace.current', p: undefined }]);
    last().reply({ t: 'res', id: 1, ok: true, r: null });
    await expect(later).resolves.toBeNull();
  });
});

describe('reconnectDelay', () => {
  it('grows exponentially to a ceiling', () => {
    const mid = () => 0.5;
    expect(reconnectDelay(0, mid)).toBe(250);
    expect(reconnectDelay(2, mid)).toBe(1000);
    expect(reconnectDelay(20, mid)).toBe(5000);
  });
});

describe('token', () => {
  it('moves the token from the URL to session storage and strips it from the address bar', () => {
    const store = new Map<string, string>();
    const storage = { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => void store.set(k, v) };
    const history = { state: null, replaceState: vi.fn() };
    expect(takeToken({ href: 'http://127.0.0.1:5000/?token=abc&x=1#h' }, history, storage)).toBe('abc');
    expect(history.replaceState).toHaveBeenCalledWith(null, '', '/?x=1#h');
    expect(takeToken({ href: 'http://127.0.0.1:5000/' }, history, storage)).toBe('abc');
    expect(history.replaceState).toHaveBeenCalledTimes(1);
  });

  it('builds the same-origin socket URL', () => {
    expect(webSocketUrl({ protocol: 'http:', host: '127.0.0.1:5000' }, 'a b')).toBe('ws://127.0.0.1:5000/ws?token=a%20b');
  });
});

describe('IPC client', () => {
  it('unwraps IpcResult and throws coded errors', async () => {
    const results: Record<string, IpcResult> = {
      'workspace.recent': { ok: true, r: ['/x'] },
      'file.read': { ok: false, e: { code: 'BINARY_FILE', message: 'binary' } },
    };
    const bridge = {
      requests: new Proxy({}, { get: (_t, ch: string) => async () => results[ch] }),
      on: () => () => {},
    } as unknown as PreloadBridge;
    const client = createIpcClient(bridge);
    await expect(client.request('workspace.recent', undefined)).resolves.toEqual(['/x']);
    await expect(client.request('file.read', { path: 'a.png' })).rejects.toMatchObject({ code: 'BINARY_FILE' });
    expect(client.status().state).toBe('open');
  });
});
