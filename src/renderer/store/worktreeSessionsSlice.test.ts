import { describe, expect, it } from 'vitest';
import type { RequestChannel, WorktreeChangesView, WorktreeSessionView } from '../../shared/contract';
import { HostRequestError } from '../host-client';
import { connectedStore, type Handler } from './fakeHost.testkit';
import { conflictsOf, tickedFiles } from './worktreeSessionsSlice';

const tick = () => new Promise((r) => setTimeout(r, 0));
const row = (name: string, over: Partial<WorktreeSessionView> = {}): WorktreeSessionView => ({
  session_id: `s-${name}`,
  title: `work ${name}`,
  worktree: name,
  branch: `loupe/${name}`,
  path: `/w/proj.loupe-worktrees/${name}`,
  status: 'done',
  missing: false,
  files: 1,
  added: 2,
  removed: 1,
  applied_files: 0,
  ...over,
});
const changes = (name: string): WorktreeChangesView => ({
  worktree: name,
  branch: `loupe/${name}`,
  base: 'b'.repeat(40),
  files: [
    { file: 'a.txt', operation: 'overwrite', merged: false, added: 1, removed: 1 },
    { file: 'new.txt', operation: 'create', merged: false, added: 1, removed: 0 },
  ],
  conflicts: [],
  applied: [],
});
const base: Partial<Record<RequestChannel, Handler>> = {
  'chat.session': (p) => ({ session: { id: (p as { id: string }).id, title: 't', created_at: '', updated_at: '', requests: 0 }, entries: [] }),
  'worktree.changes': (p) => changes((p as { name: string }).name),
};

/** The store with folder /w/proj open (a repository); `host` as the fake's calls and events. */
async function connected(handlers: Partial<Record<RequestChannel, Handler>>) {
  const { store, emit, calls, count } = await connectedStore({ root: '/w/proj', name: 'proj', isGitRepo: true }, { ...base, ...handlers });
  return { store, host: { emit, calls, count } };
}

describe('worktree sessions slice', () => {
  it('loads the rows with the folder and follows the host list; selecting opens the chat and the review', async () => {
    const { host, store } = await connected({ 'worktree.sessions': () => [row('a'), row('b')] });
    expect(store.getState().worktreeSessions.map((r) => r.worktree)).toEqual(['a', 'b']);
    host.emit('worktree.sessions', { sessions: [row('a', { status: 'waiting' }), row('b', { status: 'working' })] });
    expect(store.getState().worktreeSessions.map((r) => r.status)).toEqual(['waiting', 'working']);

    await store.getState().selectWorktreeSession('b');
    await tick();
    expect(store.getState()).toMatchObject({ selectedWorktree: 'b', chatSessionId: 's-b', worktreeChanges: { worktree: 'b' } });
    // Its lines moved: the review is fetched again; a row that went deselects.
    const before = host.count('worktree.changes');
    host.emit('worktree.sessions', { sessions: [row('a'), row('b', { files: 2, added: 5 })] });
    await tick();
    expect(host.count('worktree.changes')).toBe(before + 1);
    host.emit('worktree.sessions', { sessions: [row('a')] });
    expect(store.getState().selectedWorktree).toBeNull();
  });

  it('applies only the ticked files and shows the group in the timeline', async () => {
    const { host, store } = await connected({
      'worktree.sessions': () => [row('a')],
      'worktree.apply': () => ({ group_id: 'wt-1', files: ['new.txt'] }),
    });
    await store.getState().selectWorktreeSession('a');
    await tick();
    store.getState().toggleWorktreeFile('a.txt');
    await store.getState().applyWorktree();
    expect(host.calls.find((c) => c.ch === 'worktree.apply')!.p).toEqual({ name: 'a', files: ['new.txt'] });
    expect(store.getState()).toMatchObject({ worktreeApplied: { worktree: 'a', group_id: 'wt-1' }, agentPanelTab: 'changes', reviewFilters: { group: 'wt-1' } });
  });

  it('shows each APPLY_CONFLICT file and keeps nothing else as applied', async () => {
    const conflicts = [{ file: 'a.txt', why: 'both changed the same lines' }];
    const { store } = await connected({
      'worktree.sessions': () => [row('a')],
      'worktree.apply': () => {
        throw new HostRequestError('APPLY_CONFLICT', 'conflicts', 'worktree.apply', { conflicts });
      },
    });
    await store.getState().selectWorktreeSession('a');
    await tick();
    await store.getState().applyWorktree();
    expect(store.getState()).toMatchObject({ worktreeConflicts: conflicts, worktreeApplied: null, worktreeBusy: null });
    expect(conflictsOf({ conflicts: [{ file: 1 }, null, { file: 'b', why: 'x' }] })).toEqual([{ file: 'b', why: 'x' }]);
  });

  it('discards only after the report, with its digest; declining keeps it', async () => {
    const report = { worktree: 'a', branch: 'loupe/a', path: '/x', missing: false, uncommitted: [' M a.txt'], commits: [], digest: 'd1' };
    const { host, store } = await connected({
      'worktree.sessions': () => [row('a')],
      'worktree.discardReport': () => report,
      'worktree.discard': () => undefined,
    });
    await store.getState().selectWorktreeSession('a');
    await tick();
    await store.getState().askDiscardWorktree();
    expect(store.getState().discardReport).toEqual(report);
    store.getState().cancelDiscardWorktree();
    expect(host.count('worktree.discard')).toBe(0);
    expect(store.getState().worktreeSessions).toHaveLength(1);

    await store.getState().askDiscardWorktree();
    await store.getState().confirmDiscardWorktree();
    expect(host.calls.find((c) => c.ch === 'worktree.discard')!.p).toEqual({ name: 'a', digest: 'd1' });
    expect(store.getState()).toMatchObject({ worktreeSessions: [], selectedWorktree: null, discardReport: null, chatSessionId: null });
  });

  it('a new session is made, listed and opened; a refused name is said', async () => {
    const { store } = await connected({
      'worktree.sessions': () => [],
      'worktree.newSession': (p) => {
        const name = (p as { name: string }).name;
        if (name.startsWith('-')) throw new HostRequestError('INVALID_ARGUMENT', 'not a worktree name', 'worktree.newSession');
        return row(name, { files: 0, added: 0, removed: 0 });
      },
    });
    expect(await store.getState().newWorktreeSession('-bad')).toBe(false);
    expect(store.getState().worktreeError).toMatch(/not a worktree name/);
    expect(await store.getState().newWorktreeSession(' fix ')).toBe(true);
    expect(store.getState()).toMatchObject({ selectedWorktree: 'fix', chatSessionId: 's-fix', worktreeError: null });
  });
});

describe('what an apply takes', () => {
  const changes: WorktreeChangesView = {
    worktree: 'w',
    branch: 'loupe/w',
    base: 'abc',
    files: [
      { file: 'a.ts', operation: 'overwrite', merged: false, added: 1, removed: 1 },
      { file: 'b.ts', operation: 'create', merged: false, added: 2, removed: 0 },
    ],
    conflicts: [{ file: 'c.ts', why: 'changed in both' }],
    applied: [],
  };
  it('every change not unticked, and a conflict only once the person ticks it', () => {
    expect(tickedFiles(changes, [], [])).toEqual(['a.ts', 'b.ts']);
    expect(tickedFiles(changes, ['a.ts'], [])).toEqual(['b.ts']);
    expect(tickedFiles(changes, [], ['c.ts'])).toEqual(['a.ts', 'b.ts', 'c.ts']);
  });
});
