import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DiffSides, RequestChannel } from '../../shared/contract';
import { HostRequestError } from '../host-client';
import { fakeHost as fakeHostWith, modView } from '../store/fakeHost.testkit';
import { connectStore, createAppStore, filterModifications } from '../store';
import { REFETCH_DEBOUNCE_MS } from '../store/reviewSlice';
import { commitMessageFor } from './commitMessage';
import { blockingOf } from '../store/reviewSlice';
import { reasonLine, requestLabel, revertedHunksLabel, statusLabel } from './format';
import { computeHunks } from './hunks';
import { timelineKeyAction } from './timelineKeys';

type Handler = (params: unknown) => unknown;
const notYet = (ch: RequestChannel) => new HostRequestError('INVALID_ARGUMENT', `${ch} is not available yet`, ch);
const fakeHost = (handlers: Partial<Record<RequestChannel, Handler>>) => fakeHostWith(handlers, notYet);


const mod = modView;
const tick = () => new Promise((r) => setTimeout(r, 0));
const ws = { root: '/w/proj', name: 'proj', isGitRepo: true };
const base: Partial<Record<RequestChannel, Handler>> = {
  'app.info': () => ({ version: '0', transport: 'websocket', platform: 'linux' }),
  'workspace.current': () => ws,
  'workspace.recent': () => [],
  'tree.list': () => ({ dir: '', entries: [] }),
  'tree.gitStatus': () => ({}),
  'terminal.list': () => [{ id: 't', shell: 'sh', title: 'sh', pid: 1 }],
};

afterEach(() => {
  vi.useRealTimers();
});

describe('review store', () => {
  it('loads the timeline when a workspace opens and re-fetches once per burst of modlog.changed', async () => {
    let list = [mod(1)];
    const host = fakeHost({ ...base, 'modlog.list': () => ({ modifications: list, total: list.length }) });
    const store = createAppStore(host.client);
    connectStore(store, host.client);
    await tick();
    await tick();
    expect(store.getState().modifications.map((m) => m.file)).toEqual(['src/f1.ts']);
    expect(store.getState().timelineStatus).toBe('ready');

    vi.useFakeTimers();
    list = [mod(3), mod(2), mod(1)];
    host.emit('modlog.changed', { count: 2 });
    host.emit('modlog.changed', { count: 3 });
    host.emit('modlog.changed', { count: 3 });
    expect(host.count('modlog.list')).toBe(1);
    await vi.advanceTimersByTimeAsync(REFETCH_DEBOUNCE_MS + 10);
    expect(host.count('modlog.list')).toBe(2);
    expect(store.getState().modifications).toHaveLength(3);
  });

  it('shows the "not available yet" error on first load, keeps entries on a failed refresh', async () => {
    const host = fakeHost(base);
    const store = createAppStore(host.client);
    connectStore(store, host.client);
    await tick();
    await tick();
    expect(store.getState().timelineStatus).toBe('error');
    expect(store.getState().timelineError).toMatch(/not available yet/);
  });

  it('opens a modification in the diff view; approve and rollback update its status', async () => {
    const sides: DiffSides = { file: 'src/f1.ts', language: 'typescript', before: 'a\n', after: 'b\n', label: 'before → after' };
    const host = fakeHost({
      ...base,
      'modlog.list': () => ({ modifications: [mod(2), mod(1)], total: 2 }),
      'modlog.diff': () => sides,
      'modlog.approve': () => undefined,
      'modlog.rollback': () => ({ rollback_id: 'mod-20260131-101524-001', file: 'src/f1.ts' }),
    });
    const store = createAppStore(host.client);
    connectStore(store, host.client);
    await tick();
    await tick();
    const [second, first] = store.getState().modifications.map((m) => m.modification_id);
    await store.getState().openModification(first);
    expect(store.getState().diff).toMatchObject({ target: { kind: 'modification', id: first }, status: 'ready', sides });
    expect(store.getState().selectedModificationId).toBe(first);

    await store.getState().approveModification(first);
    expect(store.getState().modifications.find((m) => m.modification_id === first)?.status).toBe('approved');
    await store.getState().rollbackModification(second);
    expect(store.getState().modifications.find((m) => m.modification_id === second)?.status).toBe('rolled_back');
    expect(host.calls.filter((c) => c.ch === 'modlog.rollback').map((c) => c.p)).toEqual([{ modification_id: second }]);
  });

  it('explains a ROLLBACK_CONFLICT with the modifications in the way and changes no status', async () => {
    const target = mod(1).modification_id;
    const host = fakeHost({
      ...base,
      'modlog.list': () => ({ modifications: [mod(3), mod(2), mod(1)], total: 3 }),
      'modlog.diff': () => ({ file: 'src/f1.ts', language: 'typescript', before: '', after: 'x', label: '' }),
      'modlog.rollback': () => {
        // The message names other ids than the details: the banner lists what details say.
        throw new HostRequestError('ROLLBACK_CONFLICT', `cannot roll back ${target}: mod-20990101-000000-999 changed the same lines`, 'modlog.rollback', {
          blocking: ['mod-20260131-101523-003', 'mod-20260131-101523-002'],
        });
      },
      'modlog.revertHunk': () => {
        throw new HostRequestError('INVALID_ARGUMENT', 'hunk 7 does not exist', 'modlog.revertHunk');
      },
    });
    const store = createAppStore(host.client);
    connectStore(store, host.client);
    await tick();
    await tick();
    await store.getState().openModification(target);
    await store.getState().rollbackModification(target);
    expect(store.getState().conflict).toEqual({
      modificationId: target,
      message: expect.stringContaining('changed the same lines'),
      blockers: ['mod-20260131-101523-003', 'mod-20260131-101523-002'],
    });
    expect(store.getState().modifications.every((m) => m.status === 'applied')).toBe(true);
    expect(store.getState().reviewBusy).toBeNull();

    await store.getState().revertHunk(target, 7);
    expect(store.getState().conflict).toBeNull();
    expect(store.getState().reviewError).toBe('hunk 7 does not exist');
    expect(store.getState().modifications.some((m) => m.reverted_hunks)).toBe(false);
  });

  it('reverts one hunk by its index and marks it at once; a whole-file diff follows the file on disk', async () => {
    let now = 'one\n';
    let reverted: number[] | undefined;
    const host = fakeHost({
      ...base,
      'modlog.list': () => ({ modifications: [mod(1, { reverted_hunks: reverted, hunk_count: reverted && 2 })], total: 1 }),
      'modlog.revertHunk': (p) => {
        reverted = [(p as { hunk: number }).hunk];
        return { rollback_id: 'mod-x', file: 'src/f1.ts' };
      },
      'modlog.fileDiff': (p) => ({ file: (p as { path: string }).path, language: 'typescript', before: 'zero\n', after: now, label: 'HEAD → working tree' }),
    });
    const store = createAppStore(host.client);
    connectStore(store, host.client);
    await tick();
    await tick();
    const id = mod(1).modification_id;
    await store.getState().revertHunk(id, 1);
    expect(host.calls.find((c) => c.ch === 'modlog.revertHunk')?.p).toEqual({ modification_id: id, hunk: 1 });
    expect(store.getState().modifications[0].reverted_hunks).toEqual([1]);

    await store.getState().openFileDiff('src/f1.ts');
    expect(store.getState().diff?.sides?.after).toBe('one\n');
    now = 'two\n';
    host.emit('file.changed', { paths: ['src/f1.ts'] });
    await tick();
    expect(store.getState().diff?.sides?.after).toBe('two\n');
  });

  it('opening a file from the tree closes the diff; another folder resets the timeline', async () => {
    const host = fakeHost({
      ...base,
      'modlog.list': () => ({ modifications: [mod(1)], total: 1 }),
      'modlog.diff': () => ({ file: 'src/f1.ts', language: 'typescript', before: '', after: 'x', label: '' }),
      'file.read': (p) => ({ path: (p as { path: string }).path, content: 'x', size: 1, binary: false, tooLarge: false, language: 'plaintext' }),
    });
    const store = createAppStore(host.client);
    connectStore(store, host.client);
    await tick();
    await tick();
    await store.getState().openModification(mod(1).modification_id);
    expect(store.getState().diff).not.toBeNull();
    await store.getState().openFilePath('README.md');
    expect(store.getState().diff).toBeNull();

    store.getState().workspaceOpened({ root: '/w/other', name: 'other', isGitRepo: false });
    expect(store.getState().modifications).toEqual([]);
    await tick();
    expect(host.count('modlog.list')).toBe(2);
  });
});

describe('review helpers', () => {
  it('filters by correlation and file substrings and by status', () => {
    const list = [mod(1, { correlation_id: 'bug-42' }), mod(2, { correlation_id: 'feat-7', status: 'approved' }), mod(3, { file: 'lib/x.py', correlation_id: 'bug-43' })];
    const f = (over: object) => filterModifications(list, { correlation: '', file: '', status: '', group: '', ...over }).map((m) => m.modification_id.slice(-1));
    expect(f({})).toEqual(['1', '2', '3']);
    expect(f({ correlation: 'BUG' })).toEqual(['1', '3']);
    expect(f({ correlation: 'bug', file: 'src/' })).toEqual(['1']);
    expect(f({ status: 'approved' })).toEqual(['2']);
  });

  it('filters by subagent: one agent’s changes, or the sessions’ own', () => {
    const list = [mod(1, { agent_id: 'ses-aaa' }), mod(2), mod(3, { agent_id: 'ses-bbb' })];
    const f = (agent: string) => filterModifications(list, { correlation: '', file: '', status: '', group: '', agent }).map((m) => m.modification_id.slice(-1));
    expect(f('')).toEqual(['1', '2', '3']);
    expect(f('ses-bbb')).toEqual(['3']);
    expect(f('self')).toEqual(['2']);
  });

  it('computes hunks as structuredPatch does, 0-based in diff order', () => {
    const before = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    const after = before.replace('line 3\n', 'line three\n').replace('line 25\n', 'line 25\nadded\n');
    const hunks = computeHunks('a.txt', before, after);
    expect(hunks.map((h) => [h.index, h.added, h.removed, h.newStart, h.leadingContext, h.preview])).toEqual([
      [0, 1, 1, 1, 2, 'line 3'],
      [1, 1, 0, 23, 3, 'added'],
    ]);
    expect(computeHunks('a.txt', null, 'x\n')).toHaveLength(1);
    expect(computeHunks('a.txt', 'same\n', 'same\n')).toEqual([]);
  });

  it('moves with j/k and the arrows, opens with Enter', () => {
    expect(timelineKeyAction(5, -1, 'j', 3)).toEqual({ type: 'move', index: 0 });
    expect(timelineKeyAction(5, 0, 'ArrowDown', 3)).toEqual({ type: 'move', index: 1 });
    expect(timelineKeyAction(5, 4, 'j', 3)).toEqual({ type: 'move', index: 4 });
    expect(timelineKeyAction(5, 2, 'k', 3)).toEqual({ type: 'move', index: 1 });
    expect(timelineKeyAction(5, 1, 'PageDown', 3)).toEqual({ type: 'move', index: 4 });
    expect(timelineKeyAction(5, 3, 'Enter', 3)).toEqual({ type: 'open', index: 3 });
    expect(timelineKeyAction(5, -1, 'Enter', 3)).toEqual({ type: 'none' });
    expect(timelineKeyAction(0, -1, 'j', 3)).toEqual({ type: 'none' });
    expect(timelineKeyAction(5, 1, 'x', 3)).toEqual({ type: 'none' });
  });

  it('labels reverted hunks out of the diff’s count, or alone when an older log did not record it', () => {
    expect(revertedHunksLabel(mod(1))).toBeNull();
    expect(revertedHunksLabel(mod(1, { reverted_hunks: [0], hunk_count: 3 }))).toEqual({
      label: '1/3 hunks reverted',
      title: 'Hunk 1 of 3 reverted on disk by a hunk rollback; roll that rollback back to apply it again',
    });
    expect(revertedHunksLabel(mod(1, { reverted_hunks: [0, 1], hunk_count: 2 }))?.label).toBe('2/2 hunks reverted');
    expect(revertedHunksLabel(mod(1, { reverted_hunks: [1] }))?.label).toBe('1 hunk reverted');
    expect(revertedHunksLabel(mod(1, { reverted_hunks: [1], status: 'rolled_back' }))).toBeNull();
  });

  it('rows say what happened: rollbacks with hunks from 1, no placeholder, request chips without the date', () => {
    expect(reasonLine(mod(2, { operation: 'rollback', reason: 'roll back mod-x (hunk 0)', rolls_back: 'mod-x' }))).toBe('Reverted hunk 1 in mod-x');
    expect(reasonLine(mod(2, { operation: 'rollback', reason: 'roll back mod-x', rolls_back: 'mod-x' }))).toBe('Rolled back mod-x');
    expect(reasonLine(mod(2, { operation: 'rollback', reason: undefined, rolls_back: 'mod-x' }))).toBe('Rolled back mod-x');
    expect(reasonLine(mod(1, { reason: undefined, tool: 'write_file' }))).toBe('By write_file');
    expect(reasonLine(mod(1, { reason: 'Bump a' }))).toBe('Bump a');
    expect(statusLabel(mod(2, { operation: 'rollback', status: 'rolled_back' }))).toBe('Undone');
    expect(statusLabel(mod(1, { status: 'approved', committed: true }))).toBe('Committed');
    expect(requestLabel('req-20260131-9f2c11ab')).toBe('req 9f2c11ab');
    expect(requestLabel('bug-42')).toBe('bug-42');
  });

  it('starts the commit message from the approved reasons', () => {
    expect(commitMessageFor([mod(1, { reason: 'Serve on 8080' })])).toBe('Serve on 8080');
    expect(commitMessageFor([mod(2, { reason: 'Same' }), mod(1, { reason: 'Same' })])).toBe('Same');
    expect(commitMessageFor([mod(1)])).toBe('Update src/f1.ts');
    expect(commitMessageFor([mod(2, { operation: 'rollback', reason: 'roll back mod-x' }), mod(1)])).toBe('Update f1.ts, f2.ts');
    const many = [4, 3, 2, 1].map((n) => mod(n, { reason: `r${n}` }));
    expect(commitMessageFor(many)).toBe('Update 4 files\n\n- r1\n- r2\n- r3\n- r4');
  });

  it('takes the blocking ids from the conflict details, never from the message', () => {
    expect(blockingOf({ blocking: ['mod-20260131-101530-002', 'mod-20260131-101530-002', 'mod-20260201-000000-010', 'mod-20260131-101523-001', 7] }, 'mod-20260131-101523-001')).toEqual([
      'mod-20260131-101530-002',
      'mod-20260201-000000-010',
    ]);
    expect(blockingOf(undefined, 'mod-x')).toEqual([]);
    expect(blockingOf({ blocking: 'mod-20260131-101530-002' }, 'mod-x')).toEqual([]);
  });
});
