// The first screen's request goes first: the host answers a client's requests two at a time, in
// order, so the tree's root listing asked after a dozen panels' questions waited behind the
// slowest of them (the system prompt's whole-tree git status at 100,000 files).
import { expect, it } from 'vitest';
import type { WorkspaceInfo } from '../../shared/contract';
import { connectedStore } from './fakeHost.testkit';

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
