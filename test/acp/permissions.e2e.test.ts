// `loupe acp`'s questions: whatever Loupe's rules would ask becomes `session/request_permission`
// in the editor, and the option chosen holds — allow always saves the rule the app saves, reject
// always saves it as a deny rule, reject and a cancelled request refuse, no answer within the
// approval timeout refuses. `session/cancel` stops the turn with `cancelled`, also while a
// question waits. Needs `npm run build` first.
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { RequestPermissionResponse, SessionUpdate } from '@agentclientprotocol/sdk';
import { beforeEach, describe, expect, it } from 'vitest';
import { call } from '../agent/agentHarness';
import { acpWorkspace, agentText, useAcpProcesses, type AcpProcess } from '../support/acpClient';
import { useCliFixture } from '../support/cli';

const fx = useCliFixture('loupe-acp-ask-');
const acp = useAcpProcesses();
let ws: string;
let env: Record<string, string | undefined>;

beforeEach(async () => {
  // No OS sandbox: a command no rule allows asks, as it does where none works; `touch` has an ask rule.
  ({ ws, env } = await acpWorkspace(fx, { sandbox: 'off', permissions: [{ kind: 'bash', pattern: 'touch *', action: 'ask' }] }));
});

async function session(extraEnv: Record<string, string> = {}): Promise<{ p: AcpProcess; id: string }> {
  const p = await acp({ cwd: ws, env: { ...env, ...extraEnv } });
  const s = await p.agent.request('session/new', { cwd: ws, mcpServers: [] });
  return { p, id: s.sessionId };
}

const bash = (id: string, command: string) => call(id, 'bash', { command, description: command });
const pick = (optionId: string): RequestPermissionResponse => ({ outcome: { outcome: 'selected', optionId } });
const finishedCall = (updates: SessionUpdate[], id: string) =>
  updates.find((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === id && (u.status === 'completed' || u.status === 'failed')) as Extract<SessionUpdate, { sessionUpdate: 'tool_call_update' }> | undefined;
const text = (u: { content?: { type: string; content?: { type: string; text?: string } }[] | null } | undefined) => (u?.content ?? []).map((c) => (c.type === 'content' ? (c.content?.text ?? '') : '')).join('\n');

async function projectRules(): Promise<unknown[]> {
  const file = path.join(ws, '.loupe/config.json');
  return existsSync(file) ? ((JSON.parse(await readFile(file, 'utf8')) as { permissions?: unknown[] }).permissions ?? []) : [];
}

describe('loupe acp asks the editor', () => {
  it('"allow always" runs the command and saves the rule the app saves; the next such command asks nothing', async () => {
    const { p, id } = await session();
    p.answer = () => pick('allow_always');
    fx.llm.enqueue({ toolCalls: [bash('c1', 'echo one > one.txt')] }, { toolCalls: [bash('c2', 'echo two > two.txt')] }, { content: 'Both written.' });
    const res = await p.agent.request('session/prompt', { sessionId: id, prompt: [{ type: 'text', text: 'write two files' }] });
    expect(res.stopReason).toBe('end_turn');
    expect(p.permissions).toHaveLength(1);
    const asked = p.permissions[0];
    expect(asked.sessionId).toBe(id);
    expect(asked.toolCall).toMatchObject({ toolCallId: 'c1', status: 'pending' });
    expect(text(asked.toolCall)).toContain('echo one > one.txt');
    expect(asked.options.map((o) => o.kind)).toEqual(['allow_once', 'allow_always', 'reject_once', 'reject_always']);
    // The option names the rule it saves; the project's config holds exactly that rule afterwards.
    const saved = /saves "([^"]+)"/.exec(asked.options[1].name)![1];
    expect(await projectRules()).toEqual([{ kind: 'bash', pattern: saved, action: 'allow' }]);
    expect(await readFile(path.join(ws, 'one.txt'), 'utf8')).toBe('one\n');
    expect(await readFile(path.join(ws, 'two.txt'), 'utf8')).toBe('two\n');
    expect(finishedCall(p.updates(id), 'c2')).toMatchObject({ status: 'completed' });
    expect(p.problems).toEqual([]);
  });

  it('an ask rule asks; "reject always" saves a deny rule, "reject" and a cancelled request refuse; nothing runs', async () => {
    const { p, id } = await session();
    const answers = [pick('reject_always'), pick('reject_once'), { outcome: { outcome: 'cancelled' } } as RequestPermissionResponse];
    p.answer = () => answers.shift()!;
    fx.llm.enqueue(
      { toolCalls: [bash('t1', 'touch three.txt')] },
      { toolCalls: [bash('t2', 'touch three.txt')] },
      { toolCalls: [bash('t3', 'echo four > four.txt')] },
      { toolCalls: [bash('t4', 'echo five > five.txt')] },
      { content: 'Refused all round.' },
    );
    const res = await p.agent.request('session/prompt', { sessionId: id, prompt: [{ type: 'text', text: 'try things' }] });
    expect(res.stopReason).toBe('end_turn');
    // t2 is refused by the saved deny rule without a question.
    expect(p.permissions.map((r) => r.toolCall.toolCallId)).toEqual(['t1', 't3', 't4']);
    expect(await projectRules()).toContainEqual({ kind: 'bash', pattern: expect.stringMatching(/^touch /), action: 'deny' });
    const updates = p.updates(id);
    for (const c of ['t1', 't2', 't3', 't4']) {
      expect(finishedCall(updates, c), c).toMatchObject({ status: 'failed' });
      expect(text(finishedCall(updates, c)), c).toContain('PERMISSION_DENIED');
    }
    expect(text(finishedCall(updates, 't2'))).toMatch(/Denied by the rule/);
    expect(text(finishedCall(updates, 't4'))).toMatch(/cancelled in the editor/);
    for (const f of ['three.txt', 'four.txt', 'five.txt']) expect(existsSync(path.join(ws, f)), f).toBe(false);
    expect(agentText(updates)).toContain('Refused all round.');
    expect(p.problems).toEqual([]);
  });

  it('with no answer within the approval timeout the call is refused, never run, and the question withdrawn', async () => {
    const { p, id } = await session({ LOUPE_ACP_APPROVAL_TIMEOUT_MS: '1500' });
    p.answer = () => new Promise<RequestPermissionResponse>(() => undefined);
    fx.llm.enqueue({ toolCalls: [bash('w1', 'echo late > late.txt')] }, { content: 'It was refused.' });
    const res = await p.agent.request('session/prompt', { sessionId: id, prompt: [{ type: 'text', text: 'write late' }] });
    expect(res.stopReason).toBe('end_turn');
    expect(p.permissions).toHaveLength(1);
    const done = finishedCall(p.updates(id), 'w1');
    expect(done).toMatchObject({ status: 'failed' });
    expect(text(done)).toContain('PERMISSION_DENIED');
    expect(existsSync(path.join(ws, 'late.txt'))).toBe(false);
    // Loupe withdrew the question it stopped waiting for.
    expect(p.frames.some((f) => f.method === '$/cancel_request')).toBe(true);
    expect(p.stderr()).toMatch(/No answer from the editor within 1.5 s/);
    expect(p.problems).toEqual([]);
  });

  it("--trust trusts the --cwd folder's config, so its allow rules apply; without it they wait for trust", async () => {
    await mkdir(path.join(ws, '.loupe'), { recursive: true });
    await writeFile(path.join(ws, '.loupe/config.json'), JSON.stringify({ permissions: [{ kind: 'bash', pattern: 'echo *', action: 'allow' }] }));
    const untrusted = await acp({ cwd: ws, env });
    const a = await untrusted.agent.request('session/new', { cwd: ws, mcpServers: [] });
    untrusted.answer = () => pick('reject_once');
    fx.llm.enqueue({ toolCalls: [bash('u1', 'echo a > a.txt')] }, { content: 'Refused.' });
    await untrusted.agent.request('session/prompt', { sessionId: a.sessionId, prompt: [{ type: 'text', text: 'write a' }] });
    expect(untrusted.permissions.map((r) => r.toolCall.toolCallId)).toEqual(['u1']);
    expect(untrusted.stderr()).toMatch(/not trusted|untrusted|trust/i);

    const trusted = await acp({ cwd: ws, env, args: ['--cwd', ws, '--trust'] });
    const b = await trusted.agent.request('session/new', { cwd: ws, mcpServers: [] });
    fx.llm.enqueue({ toolCalls: [bash('t1', 'echo b > b.txt')] }, { content: 'Written.' });
    await trusted.agent.request('session/prompt', { sessionId: b.sessionId, prompt: [{ type: 'text', text: 'write b' }] });
    expect(trusted.permissions).toEqual([]);
    expect(await readFile(path.join(ws, 'b.txt'), 'utf8')).toBe('b\n');
    expect(trusted.stderr()).toMatch(/loupe: trusted /);
  });

  it('session/cancel stops a turn while a question waits, and while the model streams, with `cancelled`', async () => {
    const { p, id } = await session();
    let asked!: () => void;
    const waiting = new Promise<void>((r) => (asked = r));
    p.answer = () => {
      asked();
      return new Promise<RequestPermissionResponse>(() => undefined);
    };
    fx.llm.enqueue({ toolCalls: [bash('k1', 'echo never > never.txt')] });
    const prompt = p.agent.request('session/prompt', { sessionId: id, prompt: [{ type: 'text', text: 'write never' }] });
    await waiting;
    await p.agent.notify('session/cancel', { sessionId: id });
    expect((await prompt).stopReason).toBe('cancelled');
    expect(existsSync(path.join(ws, 'never.txt'))).toBe(false);

    // The model is mid-answer when the cancel comes: what streamed is kept, the turn ends cancelled.
    fx.llm.enqueue({ content: 'Thinking about it for a very long time indeed.', stallAfterFrames: 4 });
    const second = p.agent.request('session/prompt', { sessionId: id, prompt: [{ type: 'text', text: 'take your time' }] });
    await p.frame((f) => f.method === 'session/update' && (f.params as { update: SessionUpdate }).update.sessionUpdate === 'agent_message_chunk');
    await p.agent.notify('session/cancel', { sessionId: id });
    expect((await second).stopReason).toBe('cancelled');
    // The session takes the next prompt.
    fx.llm.enqueue({ content: 'Back.' });
    expect((await p.agent.request('session/prompt', { sessionId: id, prompt: [{ type: 'text', text: 'again' }] })).stopReason).toBe('end_turn');
    expect(p.problems).toEqual([]);
  });
});
