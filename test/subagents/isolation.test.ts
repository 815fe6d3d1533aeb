// `isolation: "worktree"`: the child works in a git worktree of its own, a worktree session like
// any other; the main folder is untouched until the person applies its changes, which then come
// back as one group of the main folder's log.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatEvent } from '../../src/shared/contract';
import { until } from '../support/tmp';
import { call, subagentWorld, type SubagentWorld } from './harness';

let world: SubagentWorld | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

describe('a subagent in a worktree of its own', () => {
  it('changes only its worktree; its changes are that worktree session’s, reviewed and applied from there', async () => {
    world = await subagentWorld(
      [
        { when: 'Try it aside', replies: [{ toolCalls: [call('a1', 'agent', { description: 'Try the rename', prompt: 'ISOLATED: rename hello to bye in a.txt', isolation: 'worktree' })] }, { content: 'tried' }] },
        {
          when: 'ISOLATED:',
          replies: [
            { toolCalls: [call('r1', 'read_file', { path: 'a.txt' })] },
            { toolCalls: [call('e1', 'edit_file', { path: 'a.txt', old_str: 'hello', new_str: 'bye' })] },
            { content: 'renamed in the worktree' },
          ],
        },
      ],
      { files: { 'a.txt': 'hello\n' }, git: true, settings: { worktrees: { spare: false } } },
    );
    const w = world;
    const { session_id, correlation_id } = await w.host.handle('chat.send', { text: 'Try it aside' });
    expect((await w.finished(correlation_id)).status).toBe('done');
    const events = w.chat(session_id);
    const started = events.find((e): e is Extract<ChatEvent, { type: 'subagent_started' }> => e.type === 'subagent_started')!;
    const end = events.find((e): e is Extract<ChatEvent, { type: 'subagent_finished' }> => e.type === 'subagent_finished')!;
    expect(started.worktree).toMatch(/^agent-/);
    expect(end).toMatchObject({ status: 'done', worktree: started.worktree, files: ['a.txt'] });
    // The main folder is as it was, and its log holds nothing of the child.
    expect(await readFile(path.join(w.root, 'a.txt'), 'utf8')).toBe('hello\n');
    expect((await w.host.handle('modlog.list', {})).modifications).toEqual([]);
    // The parent was told where the change waits.
    const told = (w.seen[0][1].body.messages ?? []).filter((m) => m.role === 'tool').map((m) => String(m.content))[0];
    expect(told).toMatch(new RegExp(`Files it changed in worktree ${started.worktree} \\(not in this folder until the person applies them\\): a\\.txt`));
    // It is that worktree's session: listed in the sidebar with its changes.
    const row = await until(async () => (await w.host.handle('worktree.sessions', undefined)).find((s) => s.worktree === started.worktree && s.files === 1));
    expect(row).toMatchObject({ session_id: started.agent_id, title: 'Try the rename' });
    expect((await w.host.handle('worktree.changes', { name: started.worktree! })).files.map((f) => f.file)).toEqual(['a.txt']);
    // Applied, it comes back as one group of the main folder's log.
    const applied = await w.host.handle('worktree.apply', { name: started.worktree! });
    expect(applied.files).toEqual(['a.txt']);
    expect(await readFile(path.join(w.root, 'a.txt'), 'utf8')).toBe('bye\n');
  }, 120_000);

  it('outside a repository the child is refused with why, and nothing starts', async () => {
    world = await subagentWorld([
      { when: 'Isolate here', replies: [{ toolCalls: [call('a1', 'agent', { description: 'Aside', prompt: 'ASIDE: x', isolation: 'worktree' })] }, { content: 'no' }] },
      { when: 'ASIDE:', replies: [{ content: 'should not run' }] },
    ]);
    const { session_id, correlation_id } = await world.host.handle('chat.send', { text: 'Isolate here' });
    await world.finished(correlation_id);
    expect(world.chat(session_id).filter((e) => e.type === 'subagent_started')).toEqual([]);
    const result = world.chat(session_id).find((e): e is Extract<ChatEvent, { type: 'tool_call_finished' }> => e.type === 'tool_call_finished' && e.tool === 'agent')!;
    expect(result.ok).toBe(false);
    expect(world.seen[1]).toHaveLength(0);
    expect((await world.host.handle('chat.sessions', undefined)).map((s) => s.id)).toEqual([session_id]);
  }, 60_000);
});
