import { describe, expect, it } from 'vitest';
import type { WorkspaceInfo } from '../../shared/contract';
import { HostRequestError } from '../host-client';
import { fakeHost } from './fakeHost.testkit';
import { connectStore, createAppStore } from './createAppStore';



const ws: WorkspaceInfo = { root: '/w/proj', name: 'proj', isGitRepo: true };
const tick = () => new Promise((r) => setTimeout(r, 0));

describe('app store', () => {
  it('on start loads the open workspace: root listing, git badges and one terminal', async () => {
    const { client, calls } = fakeHost({
      'app.info': () => ({ version: '0', transport: 'websocket', platform: 'linux' }),
      'workspace.current': () => ws,
      'workspace.recent': () => ['/w/proj'],
      'tree.list': () => ({ dir: '', entries: [{ path: 'b.ts', name: 'b.ts', kind: 'file' }, { path: 'src', name: 'src', kind: 'dir' }] }),
      'tree.gitStatus': () => ({ 'src/a.ts': 'M' }),
      'terminal.list': () => [],
      'terminal.create': () => ({ id: 't1', shell: '/bin/bash', title: 'bash', pid: 1 }),
    });
    const store = createAppStore(client);
    connectStore(store, client);
    await tick();
    await tick();
    const s = store.getState();
    expect(s.workspace).toEqual(ws);
    expect(s.listings[''].map((e) => e.path)).toEqual(['src', 'b.ts']);
    expect(s.gitDirs).toEqual({ src: 'M' });
    expect(s.terminals.map((t) => t.id)).toEqual(['t1']);
    // The shell the app opens by itself must not take the keyboard from the chat input.
    expect(s.terminalFocusNonce).toBe(0);
    expect(calls.filter((c) => c.ch === 'tree.list')).toHaveLength(1);
    await store.getState().createTerminal();
    expect(store.getState().terminalFocusNonce).toBe(1);
  });

  it('a new terminal adopted by a resync before its own reply arrives gets one tab, not two', async () => {
    const shell = { id: 't9', shell: '/bin/bash', title: 'bash', pid: 9 };
    let reply!: () => void;
    const { client } = fakeHost({
      'terminal.list': () => [shell],
      // The host has made the shell (so a list shows it), but the reply is still on its way.
      'terminal.create': () => new Promise((resolve) => (reply = () => resolve(shell))),
    });
    const store = createAppStore(client);
    const creating = store.getState().createTerminal();
    await tick();
    await store.getState().syncTerminals();
    reply();
    await creating;
    expect(store.getState().terminals.map((t) => t.id)).toEqual(['t9']);
    expect(store.getState().activeTerminalId).toBe('t9');
  });

  it('re-lists loaded dirs on tree.changed and forgets a dir that vanished', async () => {
    let rootEntries = [{ path: 'gone', name: 'gone', kind: 'dir' as const }];
    const { client, emit } = fakeHost({
      'workspace.current': () => ({ ...ws, isGitRepo: false }),
      'workspace.recent': () => [],
      'app.info': () => ({ version: '0', transport: 'websocket', platform: 'linux' }),
      'terminal.list': () => [{ id: 'old', shell: 'sh', title: 'sh', pid: 2 }],
      'tree.list': (p) => {
        const dir = (p as { dir: string }).dir;
        if (dir === '') return { dir, entries: rootEntries };
        if (rootEntries.length === 0) throw new HostRequestError('FILE_NOT_FOUND', 'gone', 'tree.list');
        return { dir, entries: [{ path: 'gone/x', name: 'x', kind: 'file' }] };
      },
    });
    const store = createAppStore(client);
    connectStore(store, client);
    await tick();
    store.getState().expandDir('gone');
    await tick();
    expect(store.getState().listings.gone).toHaveLength(1);
    rootEntries = [];
    emit('tree.changed', { dirs: ['', 'gone'] });
    await tick();
    expect(store.getState().listings['']).toEqual([]);
    expect(store.getState().listings.gone).toBeUndefined();
    expect(store.getState().expanded.gone).toBeUndefined();
    // A shell that survived a reload is adopted rather than a new one created.
    expect(store.getState().terminals.map((t) => t.id)).toEqual(['old']);
  });

  it('shows only the newest file when reads overtake each other', async () => {
    const resolvers: Record<string, () => void> = {};
    const { client } = fakeHost({
      'file.read': (p) => {
        const path = (p as { path: string }).path;
        return new Promise((resolve) => {
          resolvers[path] = () => resolve({ path, content: path, size: 1, binary: false, tooLarge: false, language: 'plaintext' });
        });
      },
    });
    const store = createAppStore(client);
    const first = store.getState().openFilePath('a.txt');
    const second = store.getState().openFilePath('b.txt');
    resolvers['b.txt']();
    await second;
    resolvers['a.txt']();
    await first;
    expect(store.getState().openFile).toMatchObject({ path: 'b.txt', status: 'ready' });
  });
});
