import { describe, expect, it } from 'vitest';
import type { WorkspaceInfo } from '../../shared/contract';
import { fakeHost } from './fakeHost.testkit';
import { connectStore, createAppStore } from './createAppStore';

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('index progress', () => {
  it('follows the open folder’s index and ignores another folder’s', async () => {
    const ws: WorkspaceInfo = { root: '/w/big', name: 'big', isGitRepo: false };
    const { client, emit } = fakeHost({
      'workspace.current': () => ws,
      'workspace.recent': () => [],
      'tree.list': () => ({ dir: '', entries: [] }),
      'terminal.list': () => [],
      'terminal.create': () => ({ id: 't1', shell: 'sh', title: 'sh', pid: 1 }),
    });
    const store = createAppStore(client);
    connectStore(store, client);
    await tick();
    await tick();
    expect(store.getState().indexProgress).toBeNull();
    emit('tree.indexProgress', { root: '/w/big', files: 48_000, done: false });
    expect(store.getState().indexProgress).toEqual({ files: 48_000, done: false });
    emit('tree.indexProgress', { root: '/w/old', files: 7, done: true });
    expect(store.getState().indexProgress).toEqual({ files: 48_000, done: false });
    emit('tree.indexProgress', { root: '/w/big', files: 100_000, done: true });
    expect(store.getState().indexProgress).toEqual({ files: 100_000, done: true });

    // A client connecting after the index finished learns it from the folder's info.
    store.getState().workspaceOpened({ root: '/w/late', name: 'late', isGitRepo: false, index_progress: { files: 5, done: true } });
    expect(store.getState().indexProgress).toEqual({ files: 5, done: true });
  });
});
