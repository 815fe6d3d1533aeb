import { describe, expect, it } from 'vitest';
import type { WorkspaceInfo } from '../../shared/contract';
import { connectedStore } from './fakeHost.testkit';

const notice = 'Live updates are off or incomplete: this folder could not be watched (too deep).';

describe('workspace notices', () => {
  it('shows the notices the folder opened with, those that come later, and forgets dismissed ones', async () => {
    const ws: WorkspaceInfo = { root: '/w/deep', name: 'deep', isGitRepo: false, notices: [notice] };
    const { store, emit } = await connectedStore(ws);
    expect(store.getState().notices).toEqual([notice]);

    emit('workspace.notice', { root: '/w/deep', message: 'second' });
    emit('workspace.notice', { root: '/w/deep', message: 'second' });
    emit('workspace.notice', { root: '/w/other', message: 'not ours' });
    expect(store.getState().notices).toEqual([notice, 'second']);

    // The same folder again (the open reply and its event): nothing doubles, nothing is lost.
    store.getState().workspaceOpened(ws);
    expect(store.getState().notices).toEqual([notice, 'second']);

    store.getState().dismissNotice(notice);
    expect(store.getState().notices).toEqual(['second']);
    store.getState().workspaceOpened(ws); // a reconnect
    expect(store.getState().notices).toEqual(['second']);

    store.getState().workspaceOpened({ root: '/w/other', name: 'other', isGitRepo: false });
    expect(store.getState().notices).toEqual([]);
  });
});
