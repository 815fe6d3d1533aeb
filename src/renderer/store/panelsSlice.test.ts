import { describe, expect, it } from 'vitest';
import type { ApprovalRequestView, DiffSides } from '../../shared/contract';
import { fakeHost } from './fakeHost.testkit';
import { connectStore, createAppStore } from './createAppStore';

const sides: DiffSides = { file: 'src/a.ts', language: 'typescript', before: 'a', after: 'b', label: 'before → after mod-1' };
const request = (id: string): ApprovalRequestView => ({ id, kind: 'bash', tool: 'bash', summary: 'ls', reason: '', rule: null, always: [], createdAt: '' });

describe('the right-hand panel tabs', () => {
  it('"Open diff" brings the Changes tab to the front and opens the modification', async () => {
    const { client, calls } = fakeHost({ 'modlog.diff': () => sides });
    const store = createAppStore(client);
    store.getState().setAgentPanelTab('agent');
    await store.getState().showModificationInReview('mod-1');
    const s = store.getState();
    expect(s.agentPanelTab).toBe('changes');
    expect(s.selectedModificationId).toBe('mod-1');
    expect(s.diff).toMatchObject({ target: { kind: 'modification', id: 'mod-1' }, status: 'ready', sides });
    expect(calls).toEqual([{ ch: 'modlog.diff', p: { modification_id: 'mod-1' } }]);
  });

  it('a new approval request pulls the agent tab to the front; one going away does not', async () => {
    const { client, emit } = fakeHost({}, () => new Error('offline'));
    const store = createAppStore(client);
    connectStore(store, client);
    expect(store.getState().agentPanelTab).toBe('changes');
    emit('approvals.changed', { requests: [request('r1')] });
    expect(store.getState().agentPanelTab).toBe('agent');
    store.getState().setAgentPanelTab('changes');
    emit('approvals.changed', { requests: [] });
    expect(store.getState().agentPanelTab).toBe('changes');
    emit('approvals.changed', { requests: [request('r2')] });
    expect(store.getState().agentPanelTab).toBe('agent');
  });

  it('the agent column toggle hides and shows it; shown with a question waiting, the agent tab is in front', () => {
    const { client, emit } = fakeHost({}, () => new Error('offline'));
    const store = createAppStore(client);
    connectStore(store, client);
    expect(store.getState().agentColumnOpen).toBe(true);
    store.getState().toggleAgentColumn();
    expect(store.getState().agentColumnOpen).toBe(false);
    emit('approvals.changed', { requests: [request('r1')] });
    store.getState().setAgentPanelTab('changes');
    store.getState().toggleAgentColumn();
    expect(store.getState()).toMatchObject({ agentColumnOpen: true, agentPanelTab: 'agent' });
  });
});
