// `loupe acp` end to end: the built CLI driven by an ACP client on the official SDK, against the
// scripted model. A prompt that reads, edits two files and runs a command streams the right
// updates (a diff for each write, read back from the modification log), the log holds every write
// under the ACP session, `loupe run --undo-last` undoes it, and a new process lists, loads (with
// the conversation replayed) and resumes the session. Every frame Loupe writes is checked against
// the protocol's schema (acpClient.ts). Needs `npm run build` first.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { SessionUpdate, ToolCallContent } from '@agentclientprotocol/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, toolMessages } from '../agent/agentHarness';
import { acpWorkspace, agentText, useAcpProcesses, type AcpProcess } from '../support/acpClient';
import { runLoupe, useCliFixture } from '../support/cli';
import { committedRepo, until } from '../support/tmp';

const fx = useCliFixture('loupe-acp-');
const start = useAcpProcesses();
let ws: string;
let env: Record<string, string | undefined>;

const A = 'export const a = 1;\n';
const B = 'export function b() {\n  return "b";\n}\n';

beforeAll(async () => {
  // The command is allowed by the person's own rule, so no question depends on the OS sandbox here.
  ({ ws, env } = await acpWorkspace(fx, { permissions: [{ kind: 'bash', pattern: 'echo *', action: 'allow' }] }));
  await committedRepo(ws, { 'src/a.ts': A, 'src/b.ts': B });
});

const acp = (): Promise<AcpProcess> => start({ cwd: ws, env });

type Update<T extends SessionUpdate['sessionUpdate']> = Extract<SessionUpdate, { sessionUpdate: T }>;
const ofType = <T extends SessionUpdate['sessionUpdate']>(updates: SessionUpdate[], type: T) => updates.filter((u): u is Update<T> => u.sessionUpdate === type);
const callUpdates = (updates: SessionUpdate[], id: string) => updates.filter((u): u is Update<'tool_call'> | Update<'tool_call_update'> => (u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update') && u.toolCallId === id);
const finished = (updates: SessionUpdate[], id: string) => callUpdates(updates, id).find((u) => u.status === 'completed' || u.status === 'failed') as Update<'tool_call_update'> | undefined;
const diffs = (u: { content?: ToolCallContent[] | null } | undefined) => (u?.content ?? []).filter((c): c is Extract<ToolCallContent, { type: 'diff' }> => c.type === 'diff');

async function logLines(): Promise<Record<string, unknown>[]> {
  return (await readFile(path.join(ws, '.loupe/modifications.jsonl'), 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('loupe acp', () => {
  let sessionId = '';

  it('says what it can do at initialize, and opens a session with its modes and options', async () => {
    const p = await acp();
    expect(p.init).toMatchObject({
      protocolVersion: 1,
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: true, embeddedContext: true },
        mcpCapabilities: { http: true },
        sessionCapabilities: { list: {}, resume: {} },
      },
      agentInfo: { name: 'loupe' },
    });
    const s = await p.agent.request('session/new', { cwd: ws, mcpServers: [] });
    expect(s.modes).toMatchObject({ currentModeId: 'act', availableModes: [{ id: 'act' }, { id: 'plan' }] });
    expect(s.configOptions).toEqual([
      expect.objectContaining({ id: 'mode', category: 'mode', type: 'select', currentValue: 'act' }),
      expect.objectContaining({ id: 'model', category: 'model', type: 'select', currentValue: 'scripted' }),
    ]);
    // The commands follow the answer.
    const advertised = await until(() => ofType(p.updates(s.sessionId), 'available_commands_update')[0]);
    const commands = advertised.availableCommands.map((c) => c.name);
    expect(commands).toEqual(expect.arrayContaining(['execute-plan', 'undo']));
    expect(p.problems).toEqual([]);
  });

  it('a prompt that reads, edits two files and runs a command streams each call with its kind, locations and a diff per write', async () => {
    const p = await acp();
    const s = await p.agent.request('session/new', { cwd: ws, mcpServers: [] });
    sessionId = s.sessionId;
    fx.llm.enqueue(
      // A model that writes its reasoning in <think> tags, as many local ones do.
      { content: '<think>Both files first.</think>Reading first.', toolCalls: [call('r1', 'read_file', { path: 'src/a.ts' }), call('r2', 'read_file', { path: 'src/b.ts' })] },
      { toolCalls: [call('e1', 'edit_file', { path: 'src/a.ts', old_str: 'a = 1', new_str: 'a = 2' })] },
      { toolCalls: [call('e2', 'edit_file', { path: 'src/b.ts', old_str: 'return "b";', new_str: 'return "B";' })] },
      { toolCalls: [call('x1', 'bash', { command: 'echo built > out.txt', description: 'write a file' })] },
      { content: 'All done.' },
    );
    const res = await p.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Change a and b, then build.' }] });
    expect(res.stopReason).toBe('end_turn');
    const updates = p.updates(sessionId);

    // Reads: kind read, the file as the client's absolute path.
    for (const [id, file] of [['r1', 'src/a.ts'], ['r2', 'src/b.ts']]) {
      const first = callUpdates(updates, id)[0];
      expect(first).toMatchObject({ sessionUpdate: 'tool_call', toolCallId: id, kind: 'read' });
      expect(callUpdates(updates, id).flatMap((u) => u.locations ?? [])).toContainEqual({ path: path.join(ws, file) });
      expect(finished(updates, id)).toMatchObject({ status: 'completed' });
    }

    // Edits: kind edit, a diff of the whole file's old and new text, and the modification's id.
    const lines = await logLines();
    for (const [id, file, before, after] of [
      ['e1', 'src/a.ts', A, A.replace('a = 1', 'a = 2')],
      ['e2', 'src/b.ts', B, B.replace('return "b";', 'return "B";')],
    ]) {
      const done = finished(updates, id)!;
      expect(done).toMatchObject({ status: 'completed', kind: 'edit' });
      expect(diffs(done)).toEqual([expect.objectContaining({ type: 'diff', path: path.join(ws, file), oldText: before, newText: after })]);
      const logged = lines.find((l) => l.type === 'modification' && l.file === file)!;
      expect(logged).toMatchObject({ session_id: sessionId, tool: 'edit_file' });
      expect(done._meta).toMatchObject({ loupe: { modification_id: logged.modification_id } });
      expect(await readFile(path.join(ws, file), 'utf8')).toBe(after);
    }

    // The command: kind execute, its output, and what it wrote as one more diff (the command's group).
    const ran = finished(updates, 'x1')!;
    expect(callUpdates(updates, 'x1')[0]).toMatchObject({ kind: 'execute' });
    expect(ran).toMatchObject({ status: 'completed', kind: 'execute' });
    expect(diffs(ran)).toEqual([expect.objectContaining({ path: path.join(ws, 'out.txt'), oldText: null, newText: 'built\n' })]);
    const cmd = lines.find((l) => l.type === 'modification' && l.file === 'out.txt')!;
    expect(cmd).toMatchObject({ session_id: sessionId, tool: 'bash', group_kind: 'command' });
    expect(ran._meta).toMatchObject({ loupe: { modification_id: cmd.group_id, modification_ids: [cmd.modification_id] } });

    // Every write of the request is in the log under this session and one correlation id.
    const writes = lines.filter((l) => l.type === 'modification');
    expect(writes.map((l) => l.file).sort()).toEqual(['out.txt', 'src/a.ts', 'src/b.ts']);
    expect(new Set(writes.map((l) => `${l.session_id} ${l.correlation_id}`)).size).toBe(1);

    // The first request names the session.
    expect(ofType(updates, 'session_info_update')).toEqual([expect.objectContaining({ title: 'Change a and b, then build.' })]);
    expect(agentText(updates)).toContain('Reading first.');
    // The reasoning is a thought, never part of the answer.
    expect(ofType(updates, 'agent_thought_chunk').map((u) => (u.content.type === 'text' ? u.content.text : '')).join('')).toBe('Both files first.');
    expect(agentText(updates)).not.toContain('Both files first.');
    expect(agentText(updates)).toContain('All done.');
    const usage = ofType(updates, 'usage_update');
    expect(usage.length).toBeGreaterThan(0);
    expect(usage.at(-1)).toMatchObject({ used: expect.any(Number), size: expect.any(Number) });
    expect(p.problems).toEqual([]);
  });

  it('a new process lists the session, replays it on session/load, and continues it', async () => {
    expect(sessionId).not.toBe('');
    const p = await acp();
    const list = await p.agent.request('session/list', {});
    expect(list.sessions).toContainEqual(expect.objectContaining({ sessionId, cwd: ws, title: 'Change a and b, then build.' }));

    const loaded = await p.agent.request('session/load', { sessionId, cwd: ws, mcpServers: [] });
    expect(loaded.modes).toMatchObject({ currentModeId: 'act' });
    // Everything was replayed before the answer came.
    const replayed = p.updates(sessionId);
    expect(ofType(replayed, 'user_message_chunk').map((u) => (u.content.type === 'text' ? u.content.text : ''))).toEqual(['Change a and b, then build.']);
    expect(agentText(replayed)).toContain('All done.');
    expect(diffs(finished(replayed, 'e1'))).toEqual([expect.objectContaining({ path: path.join(ws, 'src/a.ts'), oldText: A })]);
    expect(diffs(finished(replayed, 'e2'))).toEqual([expect.objectContaining({ path: path.join(ws, 'src/b.ts'), oldText: B })]);
    expect(finished(replayed, 'x1')).toMatchObject({ kind: 'execute', status: 'completed' });
    expect(ofType(replayed, 'usage_update').length).toBeGreaterThan(0);

    // The conversation goes on where it was: the model sees the earlier turns.
    fx.llm.enqueue({ content: 'Still here.' });
    const res = await p.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'And now?' }] });
    expect(res.stopReason).toBe('end_turn');
    const sent = fx.llm.completions.at(-1)!.body.messages!;
    expect(sent.some((m) => m.role === 'user' && m.content === 'Change a and b, then build.')).toBe(true);
    expect(toolMessages(fx.llm.completions.at(-1)!.body).e1).toContain('Edited src/a.ts');

    // session/resume answers without replaying anything.
    const q = await acp();
    const resumed = await q.agent.request('session/resume', { sessionId, cwd: ws, mcpServers: [] });
    expect(resumed.modes).toMatchObject({ currentModeId: 'act' });
    expect(q.updates(sessionId).filter((u) => u.sessionUpdate !== 'available_commands_update')).toEqual([]);
    expect([...p.problems, ...q.problems]).toEqual([]);
  });

  it('`loupe run --undo-last --session` undoes the ACP session\'s last request that changed files', async () => {
    const undo = await runLoupe(['run', '--undo-last', '--cwd', ws, '--session', sessionId], { env: { ...env } });
    expect(undo.code, undo.stderr).toBe(0);
    expect(await readFile(path.join(ws, 'src/a.ts'), 'utf8')).toBe(A);
    expect(await readFile(path.join(ws, 'src/b.ts'), 'utf8')).toBe(B);
    expect(existsSync(path.join(ws, 'out.txt'))).toBe(false);
  });
});
