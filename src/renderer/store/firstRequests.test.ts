// The first screen's request goes first: the host answers a client's requests two at a time, in
// order, so the tree's root listing asked after a dozen panels' questions waited behind the
// slowest of them (the system prompt's whole-tree git status at 100,000 files).
import { expect, it } from 'vitest';
import type { WorkspaceInfo } from '../../shared/contract';
import { readBootData } from '../app/bootData';
import { connectStore, createAppStore } from './createAppStore';
import { connectedStore, fakeHost } from './fakeHost.testkit';

it('asks for the root listing before any panel asks the host about the folder', async () => {
  const ws: WorkspaceInfo = { root: '/w/big', name: 'big', isGitRepo: true };
  const { calls } = await connectedStore(ws);
  const asked = calls.map((c) => c.ch);
  const opened = asked.indexOf('workspace.current');
  const listing = asked.indexOf('tree.list');
  expect(listing).toBeGreaterThan(opened);
  // Every request about the open folder's panels comes after it.
  for (const ch of ['trust.get', 'lsp.status', 'modlog.list', 'chat.sessions', 'approvals.list', 'settings.editsMode', 'processes.list', 'mcp.list', 'hooks.list', 'worktree.sessions', 'chat.systemPrompt'] as const) {
    expect(asked.indexOf(ch), ch).toBeGreaterThan(listing);
  }
});

it('asks for the root listing beside the open folder, not after its answer, and asks it once', async () => {
  const ws: WorkspaceInfo = { root: '/w/big', name: 'big', isGitRepo: true };
  let answer = () => {};
  const known = new Promise<void>((r) => (answer = r));
  const entries = [{ path: 'src', name: 'src', kind: 'dir' as const }];
  const { calls, store } = await connectedStore(ws, {
    'workspace.current': async () => (await known, ws),
    'tree.list': () => ({ dir: '', entries }),
  });
  const asked = () => calls.map((c) => c.ch);
  // A round trip and a render saved: the answer is in when the workbench first renders.
  expect(asked()).toContain('tree.list');
  answer();
  await new Promise((r) => setTimeout(r, 0));
  expect(store.getState().listings['']).toEqual(entries);
  expect(asked().filter((ch) => ch === 'tree.list')).toHaveLength(1);
});

it('asks for the model settings, which load the agent side of the host, only once the root listing is in', async () => {
  const ws: WorkspaceInfo = { root: '/w/big', name: 'big', isGitRepo: true };
  let answer = () => {};
  const listed = new Promise<void>((r) => (answer = r));
  const { calls } = await connectedStore(ws, { 'tree.list': async () => (await listed, { dir: '', entries: [] }) });
  const asked = () => calls.map((c) => c.ch);
  expect(asked()).toContain('tree.list');
  expect(asked()).not.toContain('settings.get');
  answer();
  await new Promise((r) => setTimeout(r, 0));
  expect(asked()).toContain('settings.get');
});

it('with no folder open, asks for the model settings at once', async () => {
  const { calls } = await connectedStore(null);
  expect(calls.map((c) => c.ch)).toContain('settings.get');
});

it('shows the folder and the root listing that came with the page before the host answers, and keeps them when it confirms', async () => {
  const ws: WorkspaceInfo = { root: '/w/big', name: 'big', isGitRepo: true };
  const entries = [{ path: 'src', name: 'src', kind: 'dir' as const }];
  let answer = () => {};
  const known = new Promise<void>((r) => (answer = r));
  const { client, calls } = fakeHost({
    'workspace.current': async () => (await known, ws),
    'workspace.recent': () => [],
    'tree.list': async () => (await known, { dir: '', entries: [...entries] }),
    'terminal.list': () => [],
  });
  const store = createAppStore(client);
  connectStore(store, client, { workspace: ws, listing: { dir: '', entries } });
  await new Promise((r) => setTimeout(r, 0));
  // Before any answer: the first render has the folder and its rows.
  expect(store.getState().workspace?.root).toBe('/w/big');
  const shown = store.getState().listings[''];
  expect(shown).toEqual(entries);
  answer();
  await new Promise((r) => setTimeout(r, 0));
  await new Promise((r) => setTimeout(r, 0));
  // The host's answer was asked for and is the same listing: nothing is drawn again.
  expect(calls.some((c) => c.ch === 'tree.list')).toBe(true);
  expect(store.getState().listings['']).toBe(shown);
});

it('reads the boot data once, and refuses a block that is not the shape it expects', () => {
  const doc = (text: string | null) => {
    let removed = false;
    const el = text === null ? null : { textContent: text, remove: () => void (removed = true) };
    return { d: { getElementById: () => (removed ? null : el) } as unknown as Document, removed: () => removed };
  };
  const good = doc(JSON.stringify({ workspace: { root: '/w', name: 'w', isGitRepo: false }, listing: { dir: '', entries: [] } }));
  expect(readBootData(good.d)?.workspace.root).toBe('/w');
  expect(good.removed()).toBe(true);
  expect(readBootData(good.d)).toBeNull();
  for (const bad of ['', 'null', '{', '{"workspace":{"root":1},"listing":{"entries":[]}}', '{"workspace":{"root":"/w"}}']) expect(readBootData(doc(bad).d)).toBeNull();
  expect(readBootData(doc(null).d)).toBeNull();
});
