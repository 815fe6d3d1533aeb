// A repository's Claude Code hook under `loupe acp`: in a trusted folder it runs only once the
// person approves its command line, and that question is the editor's `session/request_permission`
// (allow always keeps the approval for the folder). What the hook decided reaches the editor, and
// its refusal holds. Needs `npm run build` first.
import path from 'node:path';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { call } from '../agent/agentHarness';
import { installScripts, projectScript, writeClaudeSettings } from '../hooks/support';
import { acpWorkspace, useAcpProcesses } from '../support/acpClient';
import { runLoupe, useCliFixture } from '../support/cli';
import { git, writeTree } from '../support/tmp';

const fx = useCliFixture('loupe-acp-hooks-');
const startAcp = useAcpProcesses();

const said = (updates: SessionUpdate[]) =>
  updates.flatMap((u) => ((u.sessionUpdate === 'agent_thought_chunk' || u.sessionUpdate === 'agent_message_chunk') && u.content.type === 'text' ? [u.content.text] : u.sessionUpdate === 'notice' ? [u.title] : [])).join('');

describe("a repository's hook under loupe acp", () => {
  it('asks the editor before it first runs; "allow always" keeps the approval, and its refusal holds', async () => {
    const { ws, home, env } = await acpWorkspace(fx);
    await writeTree(ws, { 'a.txt': 'alpha\n' });
    git(ws, 'init', '-q');
    await installScripts(ws, ['bash_validator.py']);
    await writeClaudeSettings(path.join(ws, '.claude/settings.json'), { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: projectScript('bash_validator.py') }] }] });
    const withHome = { ...env, HOME: home };
    expect((await runLoupe(['trust', ws], { env: withHome })).code).toBe(0);

    const p = await startAcp({ cwd: ws, env: withHome });
    p.answer = () => ({ outcome: { outcome: 'selected', optionId: 'allow_always' } });
    const { sessionId } = await p.agent.request('session/new', { cwd: ws, mcpServers: [] });
    fx.llm.enqueue({ toolCalls: [call('g1', 'bash', { command: 'grep -r alpha .', description: 'search' })] }, { content: 'Done.' });
    expect((await p.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'search' }] })).stopReason).toBe('end_turn');
    const asked = p.permissions.find((r) => (r.toolCall._meta as { loupe?: { kind?: string } } | undefined)?.loupe?.kind === 'hook');
    expect(asked?.toolCall.title).toContain('bash_validator.py');
    expect(asked?.options.map((o) => o.kind)).toContain('allow_always');
    const updates = p.updates(sessionId);
    expect(said(updates)).toMatch(/Hook PreToolUse deny/);
    const done = updates.find((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === 'g1' && u.status === 'failed');
    expect(JSON.stringify(done)).toContain('PERMISSION_DENIED');
    expect(p.problems).toEqual([]);
    await p.close();

    // Approved for the folder: the next process runs it without asking.
    const q = await startAcp({ cwd: ws, env: withHome });
    const again = await q.agent.request('session/new', { cwd: ws, mcpServers: [] });
    fx.llm.enqueue({ toolCalls: [call('g2', 'bash', { command: 'grep -r alpha .', description: 'search' })] }, { content: 'Done.' });
    await q.agent.request('session/prompt', { sessionId: again.sessionId, prompt: [{ type: 'text', text: 'search again' }] });
    expect(q.permissions.filter((r) => (r.toolCall._meta as { loupe?: { kind?: string } } | undefined)?.loupe?.kind === 'hook')).toEqual([]);
    expect(said(q.updates(again.sessionId))).toMatch(/Hook PreToolUse deny/);
  }, 90_000);
});
