// Hooks are bounded and fail safe: a PreToolUse hook that never answers is killed at its timeout
// (its whole family) and the call it guards becomes a question for the person, as does one whose
// script is missing; one that exits 1 is a warning naming it, and the call goes on. The hooks are
// the person's own, in `~/.claude/settings.json` (HOME is a temp folder here).
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { agentHarness, call, type AgentHarness } from '../agent/agentHarness';
import { until } from '../support/tmp';
import { HOOK_FIXTURES, writeClaudeSettings, type HooksDoc } from './support';

let h: AgentHarness | undefined;
let home: string | undefined;
afterEach(async () => {
  await h?.services.dispose();
  await h?.cleanup();
  if (home) await rm(home, { recursive: true, force: true });
  h = undefined;
  home = undefined;
});

async function withPersonHooks(hooks: HooksDoc): Promise<AgentHarness> {
  home = await mkdtemp(path.join(os.tmpdir(), 'loupe-home-'));
  await writeClaudeSettings(path.join(home, '.claude/settings.json'), hooks);
  return agentHarness({ withHooks: true, unattended: 'wait', env: { ...process.env, HOME: home, HOOK_PID_FILE: path.join(home, 'pids') }, files: { 'a.txt': 'alpha\n' } });
}

/** Running (a zombie waiting for its parent's reaping is gone). */
const alive = (pid: number): boolean => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]$/.test(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? '');
  } catch {
    return false;
  }
};

const guard = (command: string, timeout?: number): HooksDoc => ({ PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command, ...(timeout ? { timeout } : {}) }] }] });

describe('a PreToolUse hook that cannot answer', () => {
  it('sleeps forever: killed at its timeout, with its child; the command is asked, not run', async () => {
    const script = path.join(HOOK_FIXTURES, 'sleep_forever.sh');
    h = await withPersonHooks(guard(script, 2));
    h.llm.enqueue({ toolCalls: [call('b1', 'bash', { command: 'echo ran > ran.txt', description: 'run' })] }, { content: 'ok' });
    const t0 = Date.now();
    const running = h.agent.run('run it');
    const card = await until(() => h!.queue.list()[0], 30_000);
    // Within the timeout (2 s) plus the kill, far from the hook's forever.
    expect(Date.now() - t0).toBeLessThan(25_000);
    expect(card).toMatchObject({ kind: 'bash', call_id: 'b1' });
    expect(card.reason).toContain(`the PreToolUse hook "${script}" (~/.claude/settings.json) asks`);
    expect(card.reason).toContain('timed out after 2 s');
    // Nothing ran before the person's answer, and no sleeper outlived the hook.
    expect(existsSync(path.join(h.root, 'ran.txt'))).toBe(false);
    const pids = (await readFile(path.join(home!, 'pids'), 'utf8')).trim().split(' ').map(Number);
    expect(pids).toHaveLength(2);
    // Stopped with the hook: gone at once, or reaped a moment later under load.
    await until(() => pids.filter(alive).length === 0 || null, 10_000);
    h.queue.answer(card.id, { answer: 'deny' });
    const r = await running;
    expect(r.status).toBe('done');
    expect(h.of('tool_call_finished')[0]).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED', details: { denied_by: 'user' } } });
    expect(h.of('hook')[0]).toMatchObject({ event: 'PreToolUse', decision: 'error', call_id: 'b1', source: '~/.claude/settings.json' });
    expect(existsSync(path.join(h.root, 'ran.txt'))).toBe(false);
  }, 60_000);

  it('whose script is missing: the command is asked; allowed once, it runs', async () => {
    h = await withPersonHooks(guard(path.join(HOOK_FIXTURES, 'no_such_script.sh')));
    h.llm.enqueue({ toolCalls: [call('b1', 'bash', { command: 'echo ran > ran.txt', description: 'run' })] }, { content: 'ok' });
    const running = h.agent.run('run it');
    const card = await until(() => h!.queue.list()[0], 30_000);
    expect(card.reason).toContain('could not be started (command or script not found)');
    expect(existsSync(path.join(h.root, 'ran.txt'))).toBe(false);
    h.queue.answer(card.id, { answer: 'once' });
    expect((await running).status).toBe('done');
    expect(existsSync(path.join(h.root, 'ran.txt'))).toBe(true);
  }, 60_000);

  it('in exec form whose program is missing: the same question', async () => {
    home = await mkdtemp(path.join(os.tmpdir(), 'loupe-home-'));
    await writeClaudeSettings(path.join(home, '.claude/settings.json'), { PreToolUse: [{ matcher: 'Read', hooks: [{ type: 'command', command: '/nonexistent/checker', args: ['--strict'] }] }] });
    h = await agentHarness({ withHooks: true, unattended: 'wait', env: { ...process.env, HOME: home }, files: { 'a.txt': 'alpha\n' } });
    h.llm.enqueue({ toolCalls: [call('r1', 'read_file', { path: 'a.txt' })] }, { content: 'ok' });
    const running = h.agent.run('read it');
    // A read the rules allow without asking still waits for the person.
    const card = await until(() => h!.queue.list()[0], 30_000);
    expect(card).toMatchObject({ kind: 'read', call_id: 'r1' });
    expect(card.reason).toContain('/nonexistent/checker could not be started (no such program)');
    h.queue.answer(card.id, { answer: 'once' });
    expect((await running).status).toBe('done');
    expect(h.of('tool_call_finished')[0]).toMatchObject({ ok: true });
  }, 60_000);
});

describe('a PreToolUse hook that exits 1', () => {
  it('is a warning that names it; the command runs without a question', async () => {
    const script = path.join(HOOK_FIXTURES, 'exit_one.sh');
    h = await withPersonHooks(guard(script));
    h.llm.enqueue({ toolCalls: [call('b1', 'bash', { command: 'echo ran > ran.txt', description: 'run' })] }, { content: 'ok' });
    expect((await h.agent.run('run it')).status).toBe('done');
    expect(h.queue.list()).toEqual([]);
    expect(existsSync(path.join(h.root, 'ran.txt'))).toBe(true);
    expect(h.of('hook')).toEqual([expect.objectContaining({ event: 'PreToolUse', decision: 'warn', hook: script, call_id: 'b1', reason: 'exited with code 1: lint server unreachable' })]);
  }, 60_000);
});
