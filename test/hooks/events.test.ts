// Each event at its moment, with the person's hooks (Loupe's settings.json and, with HOME a temp
// folder, ~/.claude/settings.json): the sources merge and the same handler runs once; the person's
// disableAllHooks wins, the repository's turns off only its own; UserPromptSubmit and SessionStart
// stdout reach the model and a block keeps the prompt from it; a Stop hook that ignores
// stop_hook_active is overruled on its third block; PostToolUse context reaches the model;
// updatedInput is mapped back to Loupe's arguments; http hooks post only to URLs the person allows;
// Notification hears a waiting question, and SubagentStart/Stop fire through their API.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentHooks } from '../../src/main/agent/hooks/agentHooks';
import { agentHarness, call, toolMessages, type AgentHarness } from '../agent/agentHarness';
import { testTrust, type TestTrust } from '../support/trust';
import { until } from '../support/tmp';
import { HOOK_FIXTURES, writeClaudeSettings, type HooksDoc } from './support';

let h: AgentHarness | undefined;
let trust: TestTrust | undefined;
let home: string | undefined;
afterEach(async () => {
  await h?.services.dispose();
  await h?.cleanup();
  trust?.cleanup();
  if (home) await rm(home, { recursive: true, force: true });
  h = undefined;
  trust = undefined;
  home = undefined;
});

async function harness(loupe: HooksDoc, claude?: HooksDoc, extra: Record<string, unknown> = {}, files: Record<string, string> = { 'a.txt': 'alpha\n' }): Promise<AgentHarness> {
  trust = testTrust();
  await trust.store.update((doc) => ({ ...doc, hooks: loupe, ...extra }));
  home = await mkdtemp(path.join(os.tmpdir(), 'loupe-home-'));
  if (claude) await writeClaudeSettings(path.join(home, '.claude/settings.json'), claude);
  return agentHarness({ withHooks: true, user: trust.store, env: { ...process.env, HOME: home, LOG: path.join(home, 'runs.log') }, files });
}

const cmd = (command: string, timeout?: number) => ({ type: 'command' as const, command, ...(timeout ? { timeout } : {}) });
const lastUser = (n: number) => h!.llm.completions[n]!.body.messages!.filter((m) => m.role === 'user').at(-1)!;

describe('where hooks come from', () => {
  it("the person's two files merge; the same handler written in both runs once", async () => {
    const log = () => path.join(home!, 'runs.log');
    h = await harness({ PreToolUse: [{ matcher: 'read_file', hooks: [cmd('echo x >> "$LOG"')] }] }, { PreToolUse: [{ matcher: 'Read', hooks: [cmd('echo x >> "$LOG"'), cmd('echo y >> "$LOG"')] }] });
    h.llm.enqueue({ toolCalls: [call('r1', 'read_file', { path: 'a.txt' })] }, { content: 'ok' });
    await h.agent.run('read');
    expect((await readFile(log(), 'utf8')).split('\n').filter(Boolean).sort()).toEqual(['x', 'y']);
  }, 60_000);

  it("the person's disableAllHooks wins over everything; the repository's turns off only its own", async () => {
    h = await harness({ UserPromptSubmit: [{ hooks: [cmd('echo person-context')] }] }, undefined, { disableAllHooks: true });
    h.llm.enqueue({ content: 'ok' });
    await h.agent.run('hello');
    expect(String(lastUser(0).content)).not.toContain('person-context');
    expect((await h.services.hooks.list()).map((l) => l.status)).toEqual(['disabled']);
    await h.services.dispose();
    await h.cleanup();
    trust?.cleanup();

    // A repository saying disableAllHooks cannot switch off the person's hooks.
    h = await harness({ UserPromptSubmit: [{ hooks: [cmd('echo person-context')] }] });
    await writeClaudeSettings(path.join(h.root, '.claude/settings.json'), { UserPromptSubmit: [{ hooks: [cmd('echo repo-context')] }] }, { disableAllHooks: true });
    await trust!.trust(h.root);
    h.services.hooks.approveConfigured();
    h.llm.enqueue({ content: 'ok' });
    await h.agent.run('hello');
    expect(String(lastUser(0).content)).toContain('person-context');
    expect(String(lastUser(0).content)).not.toContain('repo-context');
  }, 60_000);
});

describe('the events', () => {
  it('SessionStart and UserPromptSubmit: plain stdout and additionalContext reach the model with the prompt', async () => {
    h = await harness({
      UserPromptSubmit: [{ hooks: [cmd(`printf '%s' '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"ticket ABC-1 is open"}}'`)] }],
    }, { SessionStart: [{ matcher: 'startup', hooks: [cmd('echo "branch policy: never push to main"')] }] });
    const hooks = new AgentHooks(h.services.hooks, { root: h.root, sessionId: 's1' });
    h.llm.enqueue({ content: 'ok' });
    await h.agent.run('hello', { sessionStart: (run) => hooks.sessionStart('startup', 'scripted', run) });
    const sent = String(lastUser(0).content);
    expect(sent).toMatch(/^hello\n\n/);
    expect(sent).toContain('branch policy: never push to main');
    expect(sent).toContain('ticket ABC-1 is open');
  }, 60_000);

  it('UserPromptSubmit exit 2: the prompt never reaches the model, the person is told why', async () => {
    h = await harness({ UserPromptSubmit: [{ hooks: [cmd('echo "no secrets in prompts" >&2; exit 2')] }] });
    const r = await h.agent.run('my password is hunter2');
    expect(r.status).toBe('done');
    expect(h.llm.completions).toHaveLength(0);
    expect(h.of('notice')[0]!.text).toContain('no secrets in prompts');
    expect(h.of('hook')[0]).toMatchObject({ event: 'UserPromptSubmit', decision: 'block' });
    expect(h.agent.messages).toEqual([]);
  }, 60_000);

  it('a Stop hook that ignores stop_hook_active is overruled on its third block, with a notice', async () => {
    h = await harness({ Stop: [{ hooks: [cmd(path.join(HOOK_FIXTURES, 'stubborn_stop.sh'))] }] });
    h.llm.enqueue({ content: 'done 1' }, { content: 'done 2' }, { content: 'done 3' }, { content: 'never asked' });
    const r = await h.agent.run('finish');
    expect(r).toMatchObject({ status: 'done', text: 'done 3' });
    expect(h.llm.completions).toHaveLength(3);
    expect(h.of('hook').map((e) => e.decision)).toEqual(['block', 'block', 'overruled']);
    expect(h.of('notice').at(-1)!.text).toMatch(/Stop hook overruled.*third block in a row/s);
  }, 60_000);

  it('PostToolUse: exit 2 and additionalContext reach the model with the result', async () => {
    h = await harness({
      PostToolUse: [{ matcher: 'read_file', hooks: [cmd('echo "a.txt is generated; edit a.src instead" >&2; exit 2'), cmd(`printf '%s' '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"owner: team-x"}}'`)] }],
    });
    h.llm.enqueue({ toolCalls: [call('r1', 'read_file', { path: 'a.txt' })] }, { content: 'ok' });
    await h.agent.run('read');
    const tool = toolMessages(h.llm.completions[1]!.body).r1!;
    expect(tool).toContain('alpha');
    expect(tool).toContain('a.txt is generated; edit a.src instead');
    expect(tool).toContain('owner: team-x');
  }, 60_000);

  it("updatedInput in Claude Code's shape becomes Loupe's arguments", async () => {
    const rewrite = `printf '%s' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"file_path":"'"$CLAUDE_PROJECT_DIR"'/b.txt","content":"rewritten"}}}'`;
    h = await harness({}, { PreToolUse: [{ matcher: 'Write', hooks: [cmd(rewrite)] }] });
    h.llm.enqueue({ toolCalls: [call('w1', 'write_file', { path: 'c.txt', content: 'original' })] }, { content: 'ok' });
    await h.agent.run('write');
    expect(await readFile(path.join(h.root, 'b.txt'), 'utf8')).toBe('rewritten');
    expect(existsSync(path.join(h.root, 'c.txt'))).toBe(false);
    expect(h.of('hook')[0]).toMatchObject({ decision: 'allow', call_id: 'w1' });
  }, 60_000);

  it('http hooks post the input only to URLs the person allows', async () => {
    const got: unknown[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        got.push(JSON.parse(body));
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'the policy server says no' } }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    try {
      h = await harness({ PreToolUse: [{ matcher: 'read_file', hooks: [{ type: 'http', url }] }] });
      h.llm.enqueue({ toolCalls: [call('r1', 'read_file', { path: 'a.txt' })] }, { content: 'ok' });
      await h.agent.run('read');
      expect(got).toEqual([]);
      expect(h.of('tool_call_finished')[0]!.ok).toBe(true);
      await trust!.store.update((doc) => ({ ...doc, allowedHttpHookUrls: ['http://127.0.0.1:*'] }));
      h.llm.enqueue({ toolCalls: [call('r2', 'read_file', { path: 'a.txt' })] }, { content: 'ok' });
      await h.agent.run('read again');
      expect(got).toEqual([expect.objectContaining({ hook_event_name: 'PreToolUse', tool_name: 'read_file', tool_input: { path: 'a.txt' }, cwd: h.root })]);
      expect(h.of('tool_call_finished').at(-1)).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED', details: { denied_by: 'hook' } } });
    } finally {
      server.close();
    }
  }, 60_000);

  it('Notification hears a question waiting; SubagentStart gives context; SubagentStop blocks', async () => {
    h = await harness({
      Notification: [{ matcher: 'permission_prompt', hooks: [cmd('cat > "$CLAUDE_PROJECT_DIR/notified.json"')] }],
      SubagentStart: [{ matcher: 'reviewer', hooks: [cmd('echo "review only src/"')] }],
      SubagentStop: [{ hooks: [cmd(`printf '%s' '{"decision":"block","reason":"add a summary"}'`)] }],
    });
    void h.services.queue.request({ kind: 'bash', tool: 'bash', summary: 'npm publish', reason: 'r', rule: null, always: [], session_id: 's1' }).catch(() => undefined);
    const note = JSON.parse(await until(() => readFile(path.join(h!.root, 'notified.json'), 'utf8').catch(() => null), 20_000));
    expect(note).toMatchObject({ hook_event_name: 'Notification', notification_type: 'permission_prompt', message: 'Loupe needs your permission: npm publish', session_id: 's1' });
    const hooks = new AgentHooks(h.services.hooks, { root: h.root, sessionId: 's1' });
    const run = { emit: () => undefined };
    expect(await hooks.subagentStart({ agent_id: 'a1', agent_type: 'reviewer' }, run)).toEqual([expect.stringContaining('review only src/')]);
    expect(await hooks.subagentStart({ agent_id: 'a2', agent_type: 'writer' }, run)).toEqual([]);
    expect(await hooks.subagentStop({ agent_id: 'a1', agent_type: 'reviewer', last_assistant_message: 'done' }, 0, run)).toMatchObject({ block: expect.stringContaining('add a summary') });
    expect(await hooks.subagentStop({ agent_id: 'a1', agent_type: 'reviewer', last_assistant_message: 'done' }, 2, run)).toMatchObject({ overruled: expect.stringContaining('add a summary') });
  }, 60_000);
});
