// The scripted model delegates: three `explore` agents at once and one `general` agent that edits
// two files. The parent gets four results; the edits are modifications of the parent's request,
// attributed to the child, and one undo of that request reverts them; every child's calls reach
// the parent's stream as they happen, tagged with the child.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatEvent } from '../../src/shared/contract';
import { foldTranscript, type ChatItem } from '../../src/renderer/store/chatFold';
import type { ScriptedReply } from '../support/scriptedLlm';
import { call, subagentWorld, type SubagentWorld } from './harness';

let world: SubagentWorld | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

/** Resolves once `n` callers have arrived: three children answered only when all three are asking at once. */
function barrier(n: number) {
  let arrived = 0;
  let open!: () => void;
  const all = new Promise<void>((r) => (open = r));
  return async (reply: ScriptedReply): Promise<ScriptedReply> => {
    if (++arrived >= n) open();
    await all;
    return reply;
  };
}

const toolResults = (body: { messages?: { role: string; content: unknown }[] }) => (body.messages ?? []).filter((m) => m.role === 'tool').map((m) => String(m.content));

describe('delegating to subagents', () => {
  it('three explore agents at once and a general one that edits two files: four results, the request’s modifications, one undo', async () => {
    const together = barrier(3);
    const explore = (n: number) => ({
      when: `EXPLORE-${n}:`,
      replies: (turn: number) => (turn === 0 ? together({ toolCalls: [call(`g${n}`, 'grep', { pattern: 'hello' })] }) : { content: `EXPLORE-${n} found hello in a.txt and b.txt.` }),
    });
    world = await subagentWorld(
      [
        {
          when: 'Survey and fix',
          replies: [
            {
              toolCalls: [
                call('a1', 'agent', { description: 'Find hello 1', prompt: 'EXPLORE-1: where is hello?', agent_type: 'explore' }),
                call('a2', 'agent', { description: 'Find hello 2', prompt: 'EXPLORE-2: where is hello?', agent_type: 'explore' }),
                call('a3', 'agent', { description: 'Find hello 3', prompt: 'EXPLORE-3: where is hello?', agent_type: 'explore' }),
                call('a4', 'agent', { description: 'Fix both files', prompt: 'GENERAL: change hello to bye in a.txt and b.txt', agent_type: 'general' }),
              ],
            },
            { content: 'All four agents reported.' },
          ],
        },
        explore(1),
        explore(2),
        explore(3),
        {
          when: 'GENERAL:',
          replies: [
            { toolCalls: [call('r1', 'read_file', { path: 'a.txt' }), call('r2', 'read_file', { path: 'b.txt' })] },
            { toolCalls: [call('e1', 'edit_file', { path: 'a.txt', old_str: 'hello', new_str: 'bye' }), call('e2', 'edit_file', { path: 'b.txt', old_str: 'hello', new_str: 'bye' })] },
            { content: 'GENERAL changed a.txt and b.txt.' },
          ],
        },
      ],
      { files: { 'a.txt': 'hello a\n', 'b.txt': 'hello b\n' }, git: true },
    );
    const w = world;
    const { session_id, correlation_id } = await w.host.handle('chat.send', { text: 'Survey and fix the greeting' });
    const done = await w.finished(correlation_id);
    expect(done.status).toBe('done');
    expect(done.text).toBe('All four agents reported.');

    // Four children, each a session with this one as its parent.
    const events = w.chat(session_id);
    const started = events.filter((e): e is Extract<ChatEvent, { type: 'subagent_started' }> => e.type === 'subagent_started');
    const finished = events.filter((e): e is Extract<ChatEvent, { type: 'subagent_finished' }> => e.type === 'subagent_finished');
    expect(started.map((e) => e.agent_type).sort()).toEqual(['explore', 'explore', 'explore', 'general']);
    expect(started.every((e) => e.parent_session_id === session_id && e.correlation_id === correlation_id && e.agent_id?.startsWith('ses-'))).toBe(true);
    expect(finished.map((e) => e.status)).toEqual(['done', 'done', 'done', 'done']);
    const idOf = (d: string) => started.find((e) => e.description === d)!.agent_id!;
    const general = idOf('Fix both files');
    // explore only reads: it was offered no tool that writes.
    expect(started.find((e) => e.agent_type === 'explore')!.read_only).toBe(true);
    expect(started.find((e) => e.agent_type === 'explore')!.tools).not.toContain('edit_file');
    expect(started.find((e) => e.agent_type === 'explore')!.tools).not.toContain('agent');

    // The parent's model is told the types it may start; a child is told what it is, and (at depth 1) no types.
    const system = (req: { body: { messages?: { role: string; content: unknown }[] } }) => String(req.body.messages![0].content);
    expect(system(w.seen[0][0])).toMatch(/^# Agent types\n[^\n]*\n- `explore`: \[read-only\] Read-only: searches[^\n]*\n- `general`: General-purpose/m);
    expect(system(w.seen[4][0])).toContain('# You are a subagent\nAnother agent started you for one task ("Fix both files")');
    expect(system(w.seen[4][0])).not.toContain('# Agent types');
    expect(system(w.seen[1][0])).toContain('You only read: every tool call that would change the workspace is refused.');

    // The parent's model got four results, each the child's own final words.
    const second = w.seen[0][1].body;
    const results = toolResults(second);
    expect(results).toHaveLength(4);
    for (const n of [1, 2, 3]) expect(results.some((r) => r.includes(`EXPLORE-${n} found hello`))).toBe(true);
    expect(results.find((r) => r.includes('GENERAL changed'))).toMatch(/Files it changed: a\.txt, b\.txt/);

    // The children's calls came up the parent's stream while they ran, tagged with the child.
    const generalEvents = events.filter((e) => e.agent_id === general);
    const edits = generalEvents.filter((e) => e.type === 'tool_call_finished' && e.tool === 'edit_file');
    expect(edits).toHaveLength(2);
    const endAt = events.findIndex((e) => e.type === 'subagent_finished' && e.agent_id === general);
    expect(events.findIndex((e) => e.type === 'tool_call_started' && e.agent_id === general && e.tool === 'edit_file')).toBeLessThan(endAt);
    for (const n of [1, 2, 3]) expect(events.some((e) => e.agent_id === idOf(`Find hello ${n}`) && e.type === 'tool_call_finished' && e.tool === 'grep' && e.ok)).toBe(true);

    // The chat's one fold draws a card per child with its calls inside, live and after a reload.
    const cards = (items: ChatItem[]) => items.filter((i): i is Extract<ChatItem, { kind: 'subagent' }> => i.kind === 'subagent');
    const live = cards(foldTranscript(events));
    expect(live.map((c) => [c.description, c.status])).toEqual(started.map((s) => [s.description, 'done']));
    expect(live.find((c) => c.id === general)!.items.filter((i) => i.kind === 'tool').map((i) => (i as { tool: string }).tool)).toEqual(['read_file', 'read_file', 'edit_file', 'edit_file']);
    const view = await w.host.handle('chat.session', { id: session_id });
    expect(cards(foldTranscript(view.entries)).map((c) => ({ id: c.id, status: c.status, tools: c.items.filter((i) => i.kind === 'tool').length }))).toEqual(live.map((c) => ({ id: c.id, status: c.status, tools: c.items.filter((i) => i.kind === 'tool').length })));

    // Its edits are modifications of the parent's request, attributed to the child.
    const mods = (await w.host.handle('modlog.list', {})).modifications;
    expect(mods.map((m) => [m.file, m.correlation_id, m.session_id, m.agent_id]).sort()).toEqual([
      ['a.txt', correlation_id, session_id, general],
      ['b.txt', correlation_id, session_id, general],
    ]);
    const line = (await readFile(path.join(w.root, '.loupe/modifications.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
    expect(line.every((l) => l.agent_id === general && l.session_id === session_id)).toBe(true);

    // The meter counts the children: the parent's 2 calls, 2 for each explorer, 3 for the general one.
    const usage = events.filter((e): e is Extract<ChatEvent, { type: 'usage' }> => e.type === 'usage' && !e.agent_id).at(-1)!;
    expect(usage.usage.session.calls).toBe(2 + 3 * 2 + 3);

    // The children are sessions of their own, not listed among the person's.
    expect((await w.host.handle('chat.sessions', undefined)).map((s) => s.id)).toEqual([session_id]);
    const child = JSON.parse(await readFile(path.join(w.root, '.loupe/sessions', `${general}.json`), 'utf8'));
    expect(child).toMatchObject({ id: general, parent_session_id: session_id, title: 'Fix both files', agent: { type: 'general', depth: 1 } });

    // One undo of the request reverts what its child did.
    const preview = await w.host.handle('chat.undoPreview', { session_id, correlation_id });
    expect(preview.files.map((f) => f.file).sort()).toEqual(['a.txt', 'b.txt']);
    await w.host.handle('chat.undo', { session_id, correlation_id, on_conflict: 'refuse', digest: preview.digest });
    expect(await readFile(path.join(w.root, 'a.txt'), 'utf8')).toBe('hello a\n');
    expect(await readFile(path.join(w.root, 'b.txt'), 'utf8')).toBe('hello b\n');
  }, 120_000);
});
