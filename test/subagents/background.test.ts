// Background subagents, approvals a child asks for, and the hooks' seam: a background child
// returns its id at once and is collected by agent_wait; one nobody collected is waited for and
// its result given to the model before the request ends; agent_stop stops one; a child's
// question waits in the one queue naming the child; the subagent hooks fire for it, the session's not.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatEvent } from '../../src/shared/contract';
import { until } from '../support/tmp';
import { call, processesRunning, subagentWorld, type SubagentWorld } from './harness';

let world: SubagentWorld | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

const toolResults = (body: { messages?: { role: string; content: unknown }[] }) => (body.messages ?? []).filter((m) => m.role === 'tool').map((m) => String(m.content));
const ofType = <T extends ChatEvent['type']>(events: ChatEvent[], type: T) => events.filter((e): e is Extract<ChatEvent, { type: T }> => e.type === type);

describe('background subagents', () => {
  it('returns its id at once; agent_wait collects its result', async () => {
    let id = '';
    world = await subagentWorld([
      {
        when: 'Work beside me',
        replies: (turn, req) => {
          if (turn === 0) return { toolCalls: [call('a1', 'agent', { description: 'Side job', prompt: 'SIDE: report', background: true })] };
          if (turn === 1) {
            id = /Started agent (ses-\w+)/.exec(toolResults(req.body)[0])![1];
            return { toolCalls: [call('w1', 'agent_wait', { id })] };
          }
          return { content: 'collected' };
        },
      },
      { when: 'SIDE:', replies: [{ content: 'SIDE result', delayMs: 200 }] },
    ]);
    const { session_id, correlation_id } = await world.host.handle('chat.send', { text: 'Work beside me' });
    expect((await world.finished(correlation_id)).status).toBe('done');
    expect(toolResults(world.seen[0][1].body)[0]).toMatch(/^Started agent ses-\w+ \(Side job\) in the background/);
    expect(toolResults(world.seen[0][2].body)[1]).toMatch(new RegExp(`^Agent ${id} \\(general: Side job\\) done after 1 turn[\\s\\S]*SIDE result`));
    expect(ofType(world.chat(session_id), 'subagent_started')[0]).toMatchObject({ background: true, agent_id: id });
    // Nothing was left to deliver at the end: no extra turn.
    expect(world.seen[0]).toHaveLength(3);
  }, 60_000);

  it('one nobody collected is waited for, and the model reads its result before the request ends', async () => {
    world = await subagentWorld([
      { when: 'Forget to wait', replies: [{ toolCalls: [call('a1', 'agent', { description: 'Late job', prompt: 'LATE: report', background: true })] }, { content: 'I moved on.' }, { content: 'Now I know the late result.' }] },
      { when: 'LATE:', replies: [{ content: 'LATE result', delayMs: 300 }] },
    ]);
    const { session_id, correlation_id } = await world.host.handle('chat.send', { text: 'Forget to wait' });
    const done = await world.finished(correlation_id);
    expect(done).toMatchObject({ status: 'done', text: 'Now I know the late result.' });
    const last = world.seen[0][2].body.messages!.at(-1)!;
    expect(last.role).toBe('user');
    expect(String(last.content)).toMatch(/^\[The background agent ses-\w+ \(Late job\) finished\. Its result:\][\s\S]*LATE result/);
    expect(ofType(world.chat(session_id), 'notice').map((e) => e.text)).toContain('1 background agent finished; the model reads its result before it answers.');
  }, 60_000);

  it('agent_stop stops one, and says what it had done', async () => {
    world = await subagentWorld(
      [
        {
          when: 'Start then stop',
          replies: (turn, req) => {
            if (turn === 0) return { toolCalls: [call('a1', 'agent', { description: 'Long job', prompt: 'LONG: sleep', background: true })] };
            // Stopped once it is in its command: it has made a turn.
            if (turn === 1) return until(() => processesRunning(['sleep', '331']).length === 1).then(() => ({ toolCalls: [call('s1', 'agent_stop', { id: /Started agent (ses-\w+)/.exec(toolResults(req.body)[0])![1] })] }));
            return { content: 'stopped it' };
          },
        },
        { when: 'LONG:', replies: [{ toolCalls: [call('b1', 'bash', { command: 'sleep 331', description: 'a long wait' })] }, { content: 'woke' }] },
      ],
      { settings: { permissions: [{ kind: 'bash', pattern: 'sleep *', action: 'allow' }] } },
    );
    const { session_id, correlation_id } = await world.host.handle('chat.send', { text: 'Start then stop' });
    await world.finished(correlation_id);
    expect(toolResults(world.seen[0][2].body)[1]).toMatch(/^Agent ses-\w+ \(general: Long job\) stopped after 1 turn, [\d,]+ tokens\.\nStopped by the agent that started it\./);
    expect(ofType(world.chat(session_id), 'subagent_finished')[0]).toMatchObject({ status: 'stopped', stopped_by: 'agent' });
  }, 60_000);
});

describe('a child’s question', () => {
  it('waits in the one queue naming the child and its parent; answered, the child goes on', async () => {
    world = await subagentWorld([
      { when: 'Ask through a child', replies: [{ toolCalls: [call('a1', 'agent', { description: 'Needs a command', prompt: 'ASKER: run it' })] }, { content: 'ok' }] },
      { when: 'ASKER:', replies: [{ toolCalls: [call('b1', 'bash', { command: 'echo hi', description: 'say hi' })] }, { content: 'ran it' }] },
    ]);
    const { session_id, correlation_id } = await world.host.handle('chat.send', { text: 'Ask through a child' });
    const card = await until(async () => (await world!.host.handle('approvals.list', undefined))[0], 30_000);
    const started = ofType(world.chat(session_id), 'subagent_started')[0];
    expect(card).toMatchObject({ kind: 'bash', call_id: 'b1', session_id: started.agent_id, agent_id: started.agent_id, parent_session_id: session_id, session_title: 'Needs a command', correlation_id });
    await world.host.handle('approvals.answer', { id: card.id, answer: 'once' });
    await world.finished(correlation_id);
    expect(ofType(world.chat(session_id), 'subagent_finished')[0]).toMatchObject({ status: 'done', text: 'ran it' });
  }, 60_000);
});

describe('the subagent hooks', () => {
  it('SubagentStart gives the child context before it starts; SubagentStop can send it back; neither SessionStart nor Stop fires for it', async () => {
    const log = (event: string) => ({ type: 'command', command: `cat >> "$CLAUDE_PROJECT_DIR/${event}.jsonl"; echo >> "$CLAUDE_PROJECT_DIR/${event}.jsonl"` });
    world = await subagentWorld(
      [
        { when: 'Hooked', replies: [{ toolCalls: [call('a1', 'agent', { description: 'Hooked child', prompt: 'HOOKED: hi', agent_type: 'explore' })] }, { content: 'parent done' }] },
        { when: 'HOOKED:', replies: [{ content: 'first words' }, { content: 'words with a summary' }] },
      ],
      {
        settings: {
          hooks: {
            SubagentStart: [{ matcher: 'explore', hooks: [{ type: 'command', command: 'echo "only read src/"' }, log('SubagentStart')] }],
            // Blocks while its input says stop_hook_active is false, then lets it stop.
            SubagentStop: [{ hooks: [log('SubagentStop'), { type: 'command', command: `grep -qE '"stop_hook_active": ?true' || printf '%s' '{"decision":"block","reason":"add a summary"}'` }] }],
            SessionStart: [{ hooks: [log('SessionStart')] }],
            Stop: [{ hooks: [log('Stop')] }],
          },
        },
      },
    );
    const { session_id, correlation_id } = await world.host.handle('chat.send', { text: 'Hooked' });
    expect((await world.finished(correlation_id)).status).toBe('done');
    const started = ofType(world.chat(session_id), 'subagent_started')[0];
    const read = async (event: string) => (await readFile(path.join(world!.root, `${event}.jsonl`), 'utf8').catch(() => '')).split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const transcript = path.join(world.root, '.loupe/sessions', `${started.agent_id}.json`);
    expect(await read('SubagentStart')).toEqual([expect.objectContaining({ hook_event_name: 'SubagentStart', session_id, agent_id: started.agent_id, agent_type: 'explore', agent_transcript_path: transcript })]);
    // Its context reached the child with its task.
    expect(String(world.seen[1][0].body.messages!.find((m) => m.role === 'user')!.content)).toContain('only read src/');
    // Blocked once, the child went on, and its second words are its result.
    const stops = await read('SubagentStop');
    expect(stops.map((e) => [e.agent_id, e.stop_hook_active, e.last_assistant_message])).toEqual([
      [started.agent_id, false, 'first words'],
      [started.agent_id, true, 'words with a summary'],
    ]);
    expect(ofType(world.chat(session_id), 'subagent_finished')[0]).toMatchObject({ status: 'done', text: 'words with a summary' });
    // The parent's own SessionStart and Stop fired once each; the child fired neither.
    expect((await read('SessionStart')).map((e) => e.session_id)).toEqual([session_id]);
    expect((await read('Stop')).map((e) => e.session_id)).toEqual([session_id]);
  }, 60_000);
});
