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
