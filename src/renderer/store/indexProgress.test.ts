import { describe, expect, it } from 'vitest';
import type { WorkspaceInfo } from '../../shared/contract';
import { connectedStore } from './fakeHost.testkit';

describe('index progress', () => {
  it('follows the open folder’s index and ignores another folder’s', async () => {
    const ws: WorkspaceInfo = { root: '/w/big', name: 'big', isGitRepo: false };
    const { store, emit } = await connectedStore(ws);
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
