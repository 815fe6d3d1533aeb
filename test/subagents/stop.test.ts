// Stop reaches every subagent: Stop on the request during four running children leaves no child
// running once it returns — neither its session nor the command it ran (the process table says
// so) — and one child can be stopped alone from its card while the others go on.
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatEvent } from '../../src/shared/contract';
import { until } from '../support/tmp';
import { call, processesRunning, subagentWorld, type SubagentWorld } from './harness';

let world: SubagentWorld | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

const sleeper = (n: number, seconds: number) => ({ when: `SLEEPER-${n}:`, replies: [{ toolCalls: [call(`s${n}`, 'bash', { command: `sleep ${seconds}`, description: 'wait a long time' })] }, { content: `SLEEPER-${n} woke` }] });

async function fourSleepers(seconds: number): Promise<{ w: SubagentWorld; session_id: string; correlation_id: string; ids: string[] }> {
  const w = await subagentWorld(
    [
      { when: 'Start four sleepers', replies: [{ toolCalls: [1, 2, 3, 4].map((n) => call(`a${n}`, 'agent', { description: `Sleeper ${n}`, prompt: `SLEEPER-${n}: sleep` })) }, { content: 'all woke' }] },
      ...[1, 2, 3, 4].map((n) => sleeper(n, seconds)),
    ],
    { settings: { permissions: [{ kind: 'bash', pattern: 'sleep *', action: 'allow' }] } },
  );
  world = w;
  const { session_id, correlation_id } = await w.host.handle('chat.send', { text: 'Start four sleepers' });
  // All four children are in their command.
  await until(() => processesRunning(['sleep', String(seconds)]).length === 4, 60_000);
  const ids = w.chat(session_id).filter((e) => e.type === 'subagent_started').map((e) => e.agent_id!);
  return { w, session_id, correlation_id, ids };
}

const finishedOf = (events: ChatEvent[]) => events.filter((e): e is Extract<ChatEvent, { type: 'subagent_finished' }> => e.type === 'subagent_finished');

describe('stopping subagents', () => {
  it('Stop on the request during four running children: none runs once it returns, in the sessions or the process table', async () => {
    const { w, session_id, correlation_id, ids } = await fourSleepers(317);
    expect(ids).toHaveLength(4);
    await w.host.handle('chat.stop', { session_id });
    // Nothing is left: no child session runs, no command of theirs is in the process table.
    for (const id of ids) expect((await w.host.handle('chat.session', { id })).running_correlation_id).toBeUndefined();
    expect(processesRunning(['sleep', '317'])).toEqual([]);
    expect((await w.finished(correlation_id)).status).toBe('aborted');
    const ends = finishedOf(w.chat(session_id));
    expect(ends.map((e) => [e.status, e.stopped_by])).toEqual(ids.map(() => ['stopped', 'request']));
    // Each child's end came before its parent's.
    const events = w.chat(session_id);
    const parentEnd = events.findIndex((e) => e.type === 'request_finished' && !e.agent_id);
    expect(events.findLastIndex((e) => e.type === 'subagent_finished')).toBeLessThan(parentEnd);
  }, 120_000);

  it('one child stopped from its card: it alone stops, the others go on until the request is stopped', async () => {
    const { w, session_id, ids } = await fourSleepers(319);
    await w.host.handle('chat.stopAgent', { session_id, agent_id: ids[1] });
    const ends = finishedOf(w.chat(session_id));
    expect(ends.map((e) => [e.agent_id, e.status, e.stopped_by])).toEqual([[ids[1], 'stopped', 'person']]);
    expect(processesRunning(['sleep', '319'])).toHaveLength(3);
    for (const id of [ids[0], ids[2], ids[3]]) expect((await w.host.handle('chat.session', { id })).running_correlation_id).toBeDefined();
    await expect(w.host.handle('chat.stopAgent', { session_id, agent_id: 'ses-000000000000' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await w.host.handle('chat.stop', { session_id });
    expect(processesRunning(['sleep', '319'])).toEqual([]);
  }, 120_000);
});
