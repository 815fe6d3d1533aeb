// The Open Folder dialog belongs to the person until they are done with it: news that the folder
// already open is still open (the host confirming the page's boot data, another window's echo)
// must not close it or clear what it says. Another folder, or their own pick, ends it.
import { expect, it } from 'vitest';
import type { WorkspaceInfo } from '../../shared/contract';
import { connectStore, createAppStore } from './createAppStore';
import { fakeHost } from './fakeHost.testkit';

const ws: WorkspaceInfo = { root: '/w/start', name: 'start', isGitRepo: false };
const other: WorkspaceInfo = { root: '/w/other', name: 'other', isGitRepo: false };
const tick = () => new Promise((r) => setTimeout(r, 0));

/** A page booted with `ws`, whose host has not answered `workspace.current` yet. */
async function booted() {
  let answer = () => {};
  const known = new Promise<void>((r) => (answer = r));
  const host = fakeHost({
    'workspace.current': async () => (await known, ws),
    'workspace.recent': () => [],
    'workspace.open': (p) => ((p as { path: string }).path === other.root ? other : ws),
    'tree.list': () => ({ dir: '', entries: [] }),
    'terminal.list': () => [],
    'terminal.create': () => ({ id: 't1', shell: 'sh', title: 'sh', pid: 1 }),
  });
  const store = createAppStore(host.client);
  connectStore(store, host.client, { workspace: ws, listing: { dir: '', entries: [] } });
  await tick();
  return { store, answer, emit: host.emit };
}

it('stays open, with its error, when the host confirms the booted folder after the person opened it', async () => {
  const { store, answer } = await booted();
  await store.getState().requestOpenFolder();
  expect(store.getState().folderDialogOpen).toBe(true);
  await store.getState().openFolder('   ');
  const error = store.getState().openError;
  expect(error).toBeTruthy();
  answer();
  await tick();
  await tick();
  expect(store.getState().workspace?.root).toBe(ws.root);
  expect(store.getState().folderDialogOpen).toBe(true);
  expect(store.getState().openError).toBe(error);
});

it('stays open when another window echoes the same folder, and closes when another folder opens', async () => {
  const { store, answer, emit } = await booted();
  answer();
  await tick();
  await store.getState().requestOpenFolder();
  emit('workspace.opened', ws);
  expect(store.getState().folderDialogOpen).toBe(true);
  emit('workspace.opened', other);
  expect(store.getState().folderDialogOpen).toBe(false);
  expect(store.getState().workspace?.root).toBe(other.root);
});

it('closes when the person opens a folder from it, the one already open included', async () => {
  const { store, answer } = await booted();
  answer();
  await tick();
  for (const pick of [ws.root, other.root]) {
    await store.getState().requestOpenFolder();
    expect(store.getState().folderDialogOpen).toBe(true);
    expect(await store.getState().openFolder(pick)).toBe(true);
    expect(store.getState().folderDialogOpen).toBe(false);
    expect(store.getState().workspace?.root).toBe(pick);
  }
});
