// `loupe acp`'s modes, options and commands: plan mode is Loupe's enforced one (an edit is refused,
// the answer is a `plan`), `/execute-plan` carries the plan out in act mode under its request id,
// `/undo` undoes the session's last request, the model option picks the model a session's
// requests use, and the servers a client brings in `mcpServers` serve that session only. Needs
// `npm run build` first.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, toolMessages } from '../agent/agentHarness';
import { acpEnv, acpWorkspace, agentText, useAcpProcesses, type AcpProcess } from '../support/acpClient';
import { useCliFixture } from '../support/cli';
import { EVERYTHING } from '../support/mcpServers';
import { startScriptedLlm, userPrompt, type ScriptedLlm } from '../support/scriptedLlm';

const fx = useCliFixture('loupe-acp-modes-');
const startAcp = useAcpProcesses();
let ws: string;
let env: Record<string, string | undefined>;
let llm: ScriptedLlm;

beforeAll(async () => {
  // Its own model server, listing two models for the session's model option.
  llm = await startScriptedLlm([], { models: [{ id: 'scripted', object: 'model' }, { id: 'scripted-large', object: 'model' }] });
});
afterAll(() => llm.close());

beforeEach(async () => {
  const made = await acpWorkspace(fx);
  ws = made.ws;
  env = acpEnv(made.home, llm.baseURL);
  await writeFile(path.join(ws, 'a.ts'), 'export const a = 1;\n');
  llm.requests.length = 0;
});

async function session(): Promise<{ p: AcpProcess; id: string }> {
  const p = await startAcp({ cwd: ws, env });
  const s = await p.agent.request('session/new', { cwd: ws, mcpServers: [] });
  return { p, id: s.sessionId };
}

const ofType = <T extends SessionUpdate['sessionUpdate']>(updates: SessionUpdate[], type: T) => updates.filter((u): u is Extract<SessionUpdate, { sessionUpdate: T }> => u.sessionUpdate === type);
const say = (p: AcpProcess, sessionId: string, text: string) => p.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });

describe('loupe acp modes, options and commands', () => {
  it('plan mode refuses edits and answers with a plan; /execute-plan carries it out in act mode under the plan\'s request', async () => {
    const { p, id } = await session();
    expect(await p.agent.request('session/set_mode', { sessionId: id, modeId: 'plan' })).toEqual({});
    llm.enqueue(
      { toolCalls: [call('r1', 'read_file', { path: 'a.ts' }), call('e1', 'edit_file', { path: 'a.ts', old_str: 'a = 1', new_str: 'a = 2' })] },
      { content: 'The plan:\n\n1. Change a to 2 in a.ts\n2. Run the tests\n' },
    );
    expect((await say(p, id, 'plan the change')).stopReason).toBe('end_turn');
    const planned = p.updates(id);
    expect(ofType(planned, 'current_mode_update').map((u) => u.currentModeId)).toEqual(['plan']);
    expect(ofType(planned, 'config_option_update').at(-1)!.configOptions.find((o) => o.id === 'mode')).toMatchObject({ currentValue: 'plan' });
    expect(toolMessages(llm.completions.at(-1)!.body).e1).toMatch(/PERMISSION_DENIED[\s\S]*plan/i);
    expect(await readFile(path.join(ws, 'a.ts'), 'utf8')).toBe('export const a = 1;\n');
    expect(ofType(planned, 'plan').at(-1)!.entries).toEqual([
      { content: 'Change a to 2 in a.ts', priority: 'medium', status: 'pending' },
      { content: 'Run the tests', priority: 'medium', status: 'pending' },
    ]);

    llm.enqueue({ toolCalls: [call('e2', 'edit_file', { path: 'a.ts', old_str: 'a = 1', new_str: 'a = 2' })] }, { content: 'Carried out.' });
    expect((await say(p, id, '/execute-plan keep it small')).stopReason).toBe('end_turn');
    expect(ofType(p.updates(id), 'current_mode_update').map((u) => u.currentModeId)).toEqual(['plan', 'act']);
    const sent = userPrompt(llm.completions.at(-2)!);
    expect(sent).toContain('keep it small');
    expect(sent).toContain('Change a to 2 in a.ts');
    expect(await readFile(path.join(ws, 'a.ts'), 'utf8')).toBe('export const a = 2;\n');
    // The change follows the plan's request id, so it is found and undone with the plan.
    const log = (await readFile(path.join(ws, '.loupe/modifications.jsonl'), 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l) as { correlation_id: string });
    const plans = await readdir(path.join(ws, '.loupe/plans', id));
    expect(plans).toEqual([`${log[0].correlation_id}.md`]);
    expect(ofType(planned, 'plan').at(-1)!._meta).toMatchObject({ loupe: { path: `.loupe/plans/${id}/${plans[0]}` } });
    expect(p.problems).toEqual([]);
  });

  it("/undo undoes the session's last request without asking the model; /execute-plan without a plan says so", async () => {
    const { p, id } = await session();
    llm.enqueue({ toolCalls: [call('r1', 'read_file', { path: 'a.ts' })] }, { toolCalls: [call('e1', 'edit_file', { path: 'a.ts', old_str: 'a = 1', new_str: 'a = 3' })] }, { content: 'Changed.' });
    await say(p, id, 'change a');
    expect(await readFile(path.join(ws, 'a.ts'), 'utf8')).toBe('export const a = 3;\n');
    const asked = llm.completions.length;
    const before = p.updates(id).length;
    expect((await say(p, id, '/undo')).stopReason).toBe('end_turn');
    expect(await readFile(path.join(ws, 'a.ts'), 'utf8')).toBe('export const a = 1;\n');
    expect(agentText(p.updates(id).slice(before))).toMatch(/^Undid request req-\S+: 1 change in a\.ts/);
    expect((await say(p, id, '/undo')).stopReason).toBe('end_turn');
    expect(agentText(p.updates(id).slice(before))).toContain('Nothing to undo');
    expect((await say(p, id, '/execute-plan')).stopReason).toBe('end_turn');
    expect(agentText(p.updates(id).slice(before))).toContain('no plan yet');
    expect(llm.completions.length).toBe(asked);
    // A slash that names no command is a message for the model, which hears of the undo with it.
    llm.enqueue({ content: 'A path, then.' });
    await say(p, id, '/usr/bin is where it lives');
    const told = userPrompt(llm.completions.at(-1)!);
    expect(told).toContain('/usr/bin is where it lives');
    expect(told).toMatch(/undid request req-\S+: a\.ts changed back/);
    expect(p.problems).toEqual([]);
  });

  it('the model option picks the model of the session\'s next requests, among those the endpoint lists', async () => {
    const { p, id } = await session();
    const chosen = await p.agent.request('session/set_config_option', { sessionId: id, configId: 'model', value: 'scripted-large' });
    expect(chosen.configOptions.find((o) => o.id === 'model')).toMatchObject({ currentValue: 'scripted-large', options: [{ value: 'scripted-large' }, { value: 'scripted' }] });
    llm.enqueue({ content: 'Large.' });
    await say(p, id, 'hi');
    expect(llm.completions.at(-1)!.body.model).toBe('scripted-large');
    await expect(p.agent.request('session/set_config_option', { sessionId: id, configId: 'model', value: 'made-up' })).rejects.toMatchObject({ code: -32602 });
    await expect(p.agent.request('session/set_config_option', { sessionId: id, configId: 'colour', value: 'red' })).rejects.toMatchObject({ code: -32602 });
    // Another session keeps the settings' model.
    const other = await p.agent.request('session/new', { cwd: ws, mcpServers: [] });
    llm.enqueue({ content: 'Default.' });
    await say(p, other.sessionId, 'hi');
    expect(llm.completions.at(-1)!.body.model).toBe('scripted');
    expect(p.problems).toEqual([]);
  });

  it("serves a client's MCP servers to its session only, asking before each call, and stops them with the session", async () => {
    const p = await startAcp({ cwd: ws, env });
    const withServer = await p.agent.request('session/new', { cwd: ws, mcpServers: [{ name: 'everything', command: process.execPath, args: [EVERYTHING, 'stdio'], env: [] }] });
    const without = await p.agent.request('session/new', { cwd: ws, mcpServers: [] });
    llm.enqueue({ toolCalls: [call('m1', 'mcp__everything__echo', { message: 'from the editor' })] }, { content: 'Echoed.' });
    await say(p, withServer.sessionId, 'echo');
    expect(toolMessages(llm.completions.at(-1)!.body).m1).toContain('from the editor');
    expect(p.permissions.map((r) => r.toolCall.toolCallId)).toEqual(['m1']);
    const offered = (i: number) => ((llm.completions.at(i)!.body.tools as { function: { name: string } }[]) ?? []).map((t) => t.function.name);
    expect(offered(-1)).toContain('mcp__everything__echo');
    llm.enqueue({ content: 'No server here.' });
    await say(p, without.sessionId, 'anything');
    expect(offered(-1).some((t) => t.startsWith('mcp__everything__'))).toBe(false);
    // Closed, its server goes: opened again without it, the session is offered none.
    expect(await p.agent.request('session/close', { sessionId: withServer.sessionId })).toEqual({});
    await p.agent.request('session/resume', { sessionId: withServer.sessionId, cwd: ws, mcpServers: [] });
    llm.enqueue({ content: 'Gone.' });
    await say(p, withServer.sessionId, 'again');
    expect(offered(-1).some((t) => t.startsWith('mcp__everything__'))).toBe(false);
    expect(p.problems).toEqual([]);
  }, 90_000);
});
