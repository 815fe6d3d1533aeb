// Subagents are bounded, not asked to be: a looping child is stopped by its token budget or its
// turns and says so in its result; a session's children share one budget; no more run at once
// than the limit however many are asked for in one turn; none nests deeper than allowed.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatEvent } from '../../src/shared/contract';
import { foldTranscript, type SubagentItem } from '../../src/renderer/store/chatFold';
import type { RecordedRequest, ScriptedReply } from '../support/scriptedLlm';
import { call, subagentWorld, type SubagentWorld } from './harness';

let world: SubagentWorld | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

type Finished = Extract<ChatEvent, { type: 'subagent_finished' }>;
type Started = Extract<ChatEvent, { type: 'subagent_started' }>;
const ofType = <T extends ChatEvent['type']>(events: ChatEvent[], type: T) => events.filter((e): e is Extract<ChatEvent, { type: T }> => e.type === type);
const results = (req: RecordedRequest) => (req.body.messages ?? []).filter((m) => m.role === 'tool').map((m) => String(m.content));
/** A child that never stops on its own: a call every turn. */
const forever = (turn: number): ScriptedReply => ({ toolCalls: [call(`l${turn}`, 'list_files', { pattern: '*' })] });

describe('subagent limits', () => {
  it('a looping child is stopped by its token budget, and its result says so', async () => {
    world = await subagentWorld(
      [
        { when: 'Delegate the loop', replies: [{ toolCalls: [call('a1', 'agent', { description: 'Loop forever', prompt: 'LOOP: list files until told to stop' })] }, { content: 'The agent was stopped.' }] },
        { when: 'LOOP:', replies: forever },
      ],
      // Each scripted call costs 15 tokens: the budget is past at the 7th.
      { settings: { subagents: { tokens_per_agent: 100 } } },
    );
    const { session_id, correlation_id } = await world.host.handle('chat.send', { text: 'Delegate the loop' });
    expect((await world.finished(correlation_id)).status).toBe('done');
    const end = ofType(world.chat(session_id), 'subagent_finished')[0] as Finished;
    expect(end).toMatchObject({ status: 'stopped', stopped_by: 'budget', tokens: 105, reason: expect.stringMatching(/105 tokens, past its budget of 100 \("subagents\.tokens_per_agent"\)/) });
    expect(world.seen[1]).toHaveLength(7);
    const told = results(world.seen[0][1])[0];
    expect(told).toMatch(/stopped after 7 turns, 105 tokens/);
    expect(told).toMatch(/past its budget of 100/);
  }, 60_000);

  it('a child past its definition’s maxTurns is stopped at that turn, and says so', async () => {
    world = await subagentWorld([
      { when: 'Delegate to the looper', replies: [{ toolCalls: [call('a1', 'agent', { description: 'Loop', prompt: 'LOOPER: go', agent_type: 'looper' })] }, { content: 'ok' }] },
      { when: 'LOOPER:', replies: forever },
    ]);
    await mkdir(path.join(world.root, '.claude/agents'), { recursive: true });
    await writeFile(path.join(world.root, '.claude/agents/looper.md'), '---\nname: looper\ndescription: Lists files, again and again.\nmaxTurns: 3\n---\nKeep listing.\n');
    const { session_id, correlation_id } = await world.host.handle('chat.send', { text: 'Delegate to the looper' });
    await world.finished(correlation_id);
    expect(ofType(world.chat(session_id), 'subagent_finished')[0]).toMatchObject({ status: 'stopped', stopped_by: 'turns', turns: 3, reason: 'Stopped at its turn limit (3 turns) before it finished.' });
    expect(world.seen[1]).toHaveLength(3);
  }, 60_000);

  it('a definition cannot raise the turns past the configured limit', async () => {
    world = await subagentWorld(
      [
        { when: 'Delegate to the greedy one', replies: [{ toolCalls: [call('a1', 'agent', { description: 'Loop', prompt: 'GREEDY: go', agent_type: 'greedy' })] }, { content: 'ok' }] },
        { when: 'GREEDY:', replies: forever },
      ],
      { settings: { subagents: { max_turns: 2 } } },
    );
    await mkdir(path.join(world.root, '.claude/agents'), { recursive: true });
    await writeFile(path.join(world.root, '.claude/agents/greedy.md'), '---\nname: greedy\ndescription: Wants many turns.\nmaxTurns: 500\n---\n');
    const { session_id, correlation_id } = await world.host.handle('chat.send', { text: 'Delegate to the greedy one' });
    await world.finished(correlation_id);
    expect(ofType(world.chat(session_id), 'subagent_started')[0]).toMatchObject({ max_turns: 2 });
    expect(ofType(world.chat(session_id), 'subagent_finished')[0]).toMatchObject({ stopped_by: 'turns', turns: 2 });
  }, 60_000);

  it('a session’s children share one budget: past it, the running ones stop and no new one starts', async () => {
    world = await subagentWorld(
      [
        {
          when: 'Spend the budget',
          replies: [
            { toolCalls: [call('a1', 'agent', { description: 'First spender', prompt: 'SPEND-1: go' })] },
            { toolCalls: [call('a2', 'agent', { description: 'Second spender', prompt: 'SPEND-2: go' })] },
            { content: 'done' },
          ],
        },
        { when: 'SPEND-1:', replies: forever },
        { when: 'SPEND-2:', replies: forever },
      ],
      { settings: { subagents: { tokens_per_session: 40 } } },
    );
    const { session_id, correlation_id } = await world.host.handle('chat.send', { text: 'Spend the budget' });
    await world.finished(correlation_id);
    expect(ofType(world.chat(session_id), 'subagent_finished')[0]).toMatchObject({ status: 'stopped', stopped_by: 'session_budget', tokens: 45 });
    expect(world.seen[2]).toHaveLength(0);
    expect(results(world.seen[0][2])[1]).toMatch(/^Error \[AGENT_LIMIT\]: This session's subagents have spent 45 tokens, its budget \("subagents\.tokens_per_session" is 40\)/);
    // The meter counts what they spent: the parent's 2 calls and the child's 3.
    const usage = ofType(world.chat(session_id), 'usage').filter((e) => !e.agent_id).at(-1)!;
    expect(usage.usage.session.calls).toBe(3 + 3);
  }, 60_000);

  it('six agents asked for in one turn: four run at once, two are refused, never more', async () => {
    let running = 0;
    let most = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const worker = (n: number) => ({
      when: `WORKER-${n}:`,
      replies: async (turn: number) => {
        if (turn > 0) return { content: `WORKER-${n} done` };
        most = Math.max(most, ++running);
        // The four hold until all four are in: they run at once.
        if (running === 4) release();
        await gate;
        running--;
        return { content: `WORKER-${n} done` };
      },
    });
    world = await subagentWorld([
      { when: 'Six at once', replies: [{ toolCalls: [1, 2, 3, 4, 5, 6].map((n) => call(`a${n}`, 'agent', { description: `Worker ${n}`, prompt: `WORKER-${n}: go` })) }, { content: 'ok' }] },
      ...[1, 2, 3, 4, 5, 6].map(worker),
    ]);
    const { session_id, correlation_id } = await world.host.handle('chat.send', { text: 'Six at once' });
    await world.finished(correlation_id);
    const events = world.chat(session_id);
    expect(ofType(events, 'subagent_started')).toHaveLength(4);
    expect(most).toBe(4);
    // At no point in the stream were more than four running.
    let live = 0;
    let peak = 0;
    for (const e of events) {
      if (e.type === 'subagent_started') peak = Math.max(peak, ++live);
      if (e.type === 'subagent_finished') live--;
    }
    expect(peak).toBe(4);
    const told = results(world.seen[0][1]);
    expect(told.filter((r) => r.startsWith('Error [AGENT_LIMIT]') && r.includes('"subagents.max_parallel" is 4'))).toHaveLength(2);
    expect(told.filter((r) => /WORKER-\d done/.test(r))).toHaveLength(4);
  }, 60_000);

  it('depth 1 by default: a child is not offered the agent tool, and is refused it if it calls it anyway', async () => {
    world = await subagentWorld([
      { when: 'Nest', replies: [{ toolCalls: [call('a1', 'agent', { description: 'Would nest', prompt: 'NESTER: try to start another' })] }, { content: 'ok' }] },
      { when: 'NESTER:', replies: [{ toolCalls: [call('n1', 'agent', { description: 'Grandchild', prompt: 'GRANDCHILD: hi' })] }, { content: 'could not nest' }] },
      { when: 'GRANDCHILD:', replies: [{ content: 'should never run' }] },
    ]);
    const { session_id, correlation_id } = await world.host.handle('chat.send', { text: 'Nest' });
    await world.finished(correlation_id);
    const started = ofType(world.chat(session_id), 'subagent_started') as Started[];
    expect(started).toHaveLength(1);
    expect(started[0].tools).not.toContain('agent');
    // Not offered to the model…
    expect((world.seen[1][0].body.tools as { function: { name: string } }[]).map((t) => t.function.name)).not.toContain('agent');
    // …and refused by the permission layer when called anyway.
    const refused = world.chat(session_id).find((e) => e.type === 'tool_call_finished' && e.agent_id === started[0].agent_id && e.tool === 'agent');
    expect(refused).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED', details: { denied_by: 'agent' } } });
    expect(world.seen[2]).toHaveLength(0);
  }, 60_000);

  it('with max_depth 2 a child starts a grandchild, whose card sits in its own, and which cannot go deeper', async () => {
    world = await subagentWorld(
      [
        { when: 'Go two deep', replies: [{ toolCalls: [call('a1', 'agent', { description: 'Child', prompt: 'LEVEL-ONE: start one more' })] }, { content: 'ok' }] },
        { when: 'LEVEL-ONE:', replies: [{ toolCalls: [call('c1', 'agent', { description: 'Grandchild', prompt: 'LEVEL-TWO: report' })] }, { content: 'child done' }] },
        { when: 'LEVEL-TWO:', replies: [{ content: 'grandchild done' }] },
      ],
      { settings: { subagents: { max_depth: 2 } } },
    );
    const { session_id, correlation_id } = await world.host.handle('chat.send', { text: 'Go two deep' });
    await world.finished(correlation_id);
    const started = ofType(world.chat(session_id), 'subagent_started') as Started[];
    expect(started).toHaveLength(2);
    const [child, grandchild] = started;
    expect(child.parent_session_id).toBe(session_id);
    expect(grandchild.parent_session_id).toBe(child.agent_id);
    expect(child.tools).toContain('agent');
    expect(grandchild.tools).not.toContain('agent');
    expect(results(world.seen[1][1])[0]).toMatch(/grandchild done/);
    const cards = foldTranscript(world.chat(session_id)).filter((i): i is SubagentItem => i.kind === 'subagent');
    expect(cards.map((c) => c.id)).toEqual([child.agent_id]);
    expect(cards[0].items.filter((i): i is SubagentItem => i.kind === 'subagent').map((c) => [c.id, c.status])).toEqual([[grandchild.agent_id, 'done']]);
  }, 60_000);
});
