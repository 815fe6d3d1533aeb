import { describe, expect, it } from 'vitest';
import type { ModificationView, RequestChannel } from '../../shared/contract';
import { HostRequestError } from '../host-client';
import { connectStore, createAppStore } from './createAppStore';
import { fakeHost, modView, type Handler } from './fakeHost.testkit';
import { REFETCH_DEBOUNCE_MS, TIMELINE_FIRST_SCREEN } from './reviewSlice';

const mod = modView;
const tick = () => new Promise((r) => setTimeout(r, 0));
const base: Partial<Record<RequestChannel, Handler>> = {
  'app.info': () => ({ version: '0', transport: 'websocket', platform: 'linux' }),
  'workspace.current': () => ({ root: '/w/proj', name: 'proj', isGitRepo: true }),
  'workspace.recent': () => [],
  'tree.list': () => ({ dir: '', entries: [] }),
  'tree.gitStatus': () => ({}),
  'terminal.list': () => [],
  'chat.sessions': () => [],
  'approvals.list': () => [],
};

async function connected(handlers: Partial<Record<RequestChannel, Handler>>) {
  const host = fakeHost({ ...base, ...handlers });
  const store = createAppStore(host.client);
  connectStore(store, host.client);
  await tick();
  await tick();
  return { host, store };
}

describe('review slice: commit approved', () => {
  it('prefills the message from the approved reasons, commits it, shows the commit and re-fetches', async () => {
    const list = [
      mod(3, { status: 'approved', file: 'src/b.ts', reason: 'Handle the empty list' }),
      mod(2, { status: 'applied', reason: 'Not reviewed yet' }),
      mod(1, { status: 'approved', file: 'src/a.ts', reason: 'Fix the off-by-one\nin the pager' }),
    ];
    const { host, store } = await connected({
      'modlog.list': () => ({ modifications: list, total: list.length }),
      'modlog.commitApproved': () => ({ commit: 'c0ffee1234567890c0ffee1234567890c0ffee12', files: ['src/a.ts', 'src/b.ts'] }),
      'modlog.fileDiff': () => ({ file: 'src/a.ts', language: 'typescript', before: 'a\n', after: 'b\n', label: 'HEAD → working tree' }),
    });
    await store.getState().openFileDiff('src/a.ts');
    store.getState().openCommitForm();
    // Oldest first, first lines only, unapproved work left out.
    expect(store.getState().commitDraft).toBe('Update a.ts, b.ts\n\n- Fix the off-by-one\n- Handle the empty list');
    store.getState().setCommitDraft('Pager fixes');
    const lists = host.count('modlog.list');
    await store.getState().commitApproved();
    expect(host.calls.filter((c) => c.ch === 'modlog.commitApproved').map((c) => c.p)).toEqual([{ message: 'Pager fixes' }]);
    expect(store.getState()).toMatchObject({
      commitDraft: null,
      commitBusy: false,
      commitError: null,
      commitResult: { commit: 'c0ffee1234567890c0ffee1234567890c0ffee12', files: ['src/a.ts', 'src/b.ts'] },
    });
    expect(host.count('modlog.list')).toBe(lists + 1);
    // HEAD moved, so the open HEAD → working tree diff is fetched again.
    expect(host.count('modlog.fileDiff')).toBe(2);
    store.getState().dismissCommitResult();
    expect(store.getState().commitResult).toBeNull();
  });

  it('keeps the form open with the host’s words when it refuses; an empty message never reaches the host; Escape cancels', async () => {
    const refusal = 'Not every modification of these files is approved: mod-20260131-101523-002 (src/f2.ts). Approve or roll them back first.';
    const { host, store } = await connected({
      'modlog.list': () => ({ modifications: [mod(2), mod(1, { status: 'approved', reason: 'Only one reason' })], total: 2 }),
      'modlog.commitApproved': () => {
        throw new HostRequestError('INVALID_ARGUMENT', refusal, 'modlog.commitApproved');
      },
    });
    store.getState().openCommitForm();
    expect(store.getState().commitDraft).toBe('Only one reason');
    await store.getState().commitApproved();
    expect(store.getState()).toMatchObject({ commitDraft: 'Only one reason', commitError: refusal, commitResult: null, commitBusy: false });

    store.getState().setCommitDraft('   ');
    await store.getState().commitApproved();
    expect(store.getState().commitError).toBe('Write a commit message first.');
    expect(host.count('modlog.commitApproved')).toBe(1);

    store.getState().cancelCommit();
    expect(store.getState()).toMatchObject({ commitDraft: null, commitError: null });
  });
});

describe('review slice: reverted hunks come from the log', () => {
  it('shows what the host folded after a reload, and drops it when the hunk rollback is rolled back', async () => {
    const id = mod(1).modification_id;
    let folded: Partial<ModificationView> = { reverted_hunks: [0], hunk_count: 2 };
    const handlers: Partial<Record<RequestChannel, Handler>> = { 'modlog.list': () => ({ modifications: [mod(2, { operation: 'rollback', rolls_back: id }), mod(1, folded)], total: 2 }) };
    // A fresh store is a reloaded page: nothing is remembered but what the host says.
    const { host, store } = await connected(handlers);
    expect(store.getState().modifications.find((m) => m.modification_id === id)).toMatchObject({ reverted_hunks: [0], hunk_count: 2 });

    folded = {};
    host.emit('modlog.changed', { count: 3 });
    await new Promise((r) => setTimeout(r, REFETCH_DEBOUNCE_MS + 50));
    expect(store.getState().modifications.find((m) => m.modification_id === id)?.reverted_hunks).toBeUndefined();
  });

  it('restoreHunk rolls back the hunk rollback that reverted that hunk', async () => {
    const id = mod(1).modification_id;
    const calls: unknown[] = [];
    const handlers: Partial<Record<RequestChannel, Handler>> = {
      // The host's fold: hunk 2 stays reverted until its rollback is rolled back.
      'modlog.list': () => ({ modifications: [mod(1, calls.length ? { reverted_hunks: [0], reverted_hunks_by: ['h0'] } : { reverted_hunks: [0, 2], reverted_hunks_by: ['h0', 'h2'] })], total: 1 }),
      'modlog.rollback': (p) => {
        calls.push(p);
        return { status: 'rolled_back', rollback_id: 'u', file: 'src/f1.ts', lines_restored: 1, merged: false, git_staged: false };
      },
    };
    const { store } = await connected(handlers);
    void store.getState().restoreHunk(id, 2);
    await new Promise((r) => setTimeout(r, 0));
    expect(calls).toEqual([{ modification_id: 'h2' }]);
    expect(store.getState().modifications[0]).toMatchObject({ reverted_hunks: [0], reverted_hunks_by: ['h0'] });
  });
});

describe('review slice: first load', () => {
  it('shows the first screen of a long log before the rest arrives; a short log is one request', async () => {
    const all = Array.from({ length: 10_000 }, (_, i) => mod(10_000 - i));
    let release: () => void = () => {};
    const rest = new Promise<void>((r) => (release = r));
    const { host, store } = await connected({
      'modlog.list': async (p) => {
        const limit = (p as { limit?: number }).limit;
        if (limit === undefined) await rest;
        return { modifications: all.slice(0, limit ?? 10_000), total: 100_000 };
      },
    });
    const asked = () => host.calls.filter((c) => c.ch === 'modlog.list').map((c) => c.p);
    // Connecting loads the timeline: the first screen is shown while the rest is still on its way.
    expect(asked()).toEqual([{ limit: TIMELINE_FIRST_SCREEN }, {}]);
    expect(store.getState()).toMatchObject({ timelineStatus: 'ready', modificationsTotal: 100_000 });
    expect(store.getState().modifications).toHaveLength(TIMELINE_FIRST_SCREEN);
    release();
    await tick();
    expect(store.getState().modifications).toHaveLength(10_000);
    // A refresh of a shown timeline asks for the whole list once.
    await store.getState().loadModifications();
    expect(asked()).toEqual([{ limit: TIMELINE_FIRST_SCREEN }, {}, {}]);

    const short = await connected({ 'modlog.list': () => ({ modifications: [mod(2), mod(1)], total: 2 }) });
    expect(short.host.calls.filter((c) => c.ch === 'modlog.list').map((c) => c.p)).toEqual([{ limit: TIMELINE_FIRST_SCREEN }]);
    expect(short.store.getState().modifications).toHaveLength(2);
  });
});
