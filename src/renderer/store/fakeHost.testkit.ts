// Test support only: a host double with canned answers per channel, a log of calls, and a
// way to push events. Imported by *.test.ts files, never by the app.
import type { EventChannel, HostEvents, ModificationView, Params, RequestChannel, Result, WorkspaceInfo } from '../../shared/contract';
import { connectStore, createAppStore } from './createAppStore';
import { HostRequestError, type HostConnection } from '../host-client';

export type Handler = (params: unknown) => unknown;

const noFake = (ch: RequestChannel) => new HostRequestError('INTERNAL', `no fake for ${ch}`, ch);

export function fakeHost(handlers: Partial<Record<RequestChannel, Handler>>, missing: (ch: RequestChannel) => Error = noFake) {
  const calls: { ch: RequestChannel; p: unknown }[] = [];
  const listeners = new Map<string, Set<(p: unknown) => void>>();
  const client: HostConnection = {
    transport: 'websocket',
    async request<C extends RequestChannel>(ch: C, p: Params<C>): Promise<Result<C>> {
      calls.push({ ch, p });
      const h = handlers[ch];
      if (!h) throw missing(ch);
      return (await h(p)) as Result<C>;
    },
    on<E extends EventChannel>(event: E, l: (p: HostEvents[E]) => void) {
      const set = listeners.get(event) ?? new Set();
      listeners.set(event, set);
      set.add(l as (p: unknown) => void);
      return () => set.delete(l as (p: unknown) => void);
    },
    status: () => ({ state: 'open', attempt: 0 }),
    onStatus: () => () => {},
    onReset: () => () => {},
  };
  const emit = <E extends EventChannel>(event: E, p: HostEvents[E]) => listeners.get(event)?.forEach((l) => l(p));
  const count = (ch: RequestChannel) => calls.filter((c) => c.ch === ch).length;
  return { client, calls, emit, count };
}

/** A timeline entry for renderer tests: the n-th modification, one file each. */
export const modView = (n: number, over: Partial<ModificationView> = {}): ModificationView => ({
  modification_id: `mod-20260131-101523-${String(n).padStart(3, '0')}`,
  timestamp: '2026-01-31T10:15:23.456Z',
  session_id: 's',
  tool: 'edit_file',
  operation: 'edit',
  file: `src/f${n}.ts`,
  status: 'applied',
  git_staged: true,
  ...over,
});

/**
 * A store connected to a fake host that has `ws` open (an empty root, one terminal), after
 * the connect's first round trips: what the store tests of folder state start from.
 */
export async function connectedStore(ws: WorkspaceInfo | null, extra: Partial<Record<RequestChannel, Handler>> = {}) {
  const { client, emit, calls, count } = fakeHost({
    'workspace.current': () => ws,
    'workspace.recent': () => [],
    'tree.list': () => ({ dir: '', entries: [] }),
    'terminal.list': () => [],
    'terminal.create': () => ({ id: 't1', shell: 'sh', title: 'sh', pid: 1 }),
    ...extra,
  });
  const store = createAppStore(client);
  connectStore(store, client);
  const tick = () => new Promise((r) => setTimeout(r, 0));
  await tick();
  await tick();
  return { store, emit, calls, count };
}
