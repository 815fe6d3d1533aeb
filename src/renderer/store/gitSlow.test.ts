import { expect, it } from 'vitest';
import type { WorkspaceInfo } from '../../shared/contract';
import { connectedStore } from './fakeHost.testkit';

const tick = () => new Promise((r) => setTimeout(r, 0));

it('shows "git status is slow" from the info a client connects with, follows the events, and forgets it with the folder', async () => {
  const ws: WorkspaceInfo = { root: '/w/big', name: 'big', isGitRepo: true, git_slow: true };
  const { store, emit } = await connectedStore(ws, { 'tree.gitStatus': () => ({ 'a.ts': 'M' }) });
  expect(store.getState().gitSlow).toBe(true);
  expect(store.getState().gitStatus).toEqual({ 'a.ts': 'M' });

  emit('tree.gitSlow', { slow: false });
  expect(store.getState().gitSlow).toBe(false);
  emit('tree.gitSlow', { slow: true });
  expect(store.getState().gitSlow).toBe(true);

  store.getState().workspaceOpened({ root: '/w/small', name: 'small', isGitRepo: true });
  await tick();
  expect(store.getState().gitSlow).toBe(false);
});

it('counts the changed files once per status (ignored ones not), and recounts for another folder', async () => {
  const ws: WorkspaceInfo = { root: '/w/big', name: 'big', isGitRepo: true };
  const { store, emit } = await connectedStore(ws, { 'tree.gitStatus': () => ({ 'a.ts': 'M', 'dist/': '!', 'b.ts': '?' }) });
  expect(store.getState().gitChanges).toBe(2);
  const many = Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`p/f${i}.ts`, 'M' as const]));
  emit('tree.gitStatus', { status: many });
  expect(store.getState().gitChanges).toBe(50_000);
  store.getState().workspaceOpened({ root: '/w/small', name: 'small', isGitRepo: true });
  await tick();
  // The other folder's own status (this fake host answers the same for every folder).
  expect(store.getState().gitChanges).toBe(2);
});
