// Hooks written for Claude Code, in a repository's `.claude/settings.json`, run unchanged against
// Loupe's agent (the scripted model): a Bash command validator blocks the command it blocks and the
// model reads its reason; a formatter after Edit|Write rewrites the file, and that rewrite is a
// modification attributed to the hook; a Stop test gate sends the model back until the tests pass.
// The folder is trusted and its hooks approved (`loupe run --trust`'s approval), so they run in the
// OS sandbox as a repository's hooks do.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentHarness, call, toolMessages, type AgentHarness } from '../agent/agentHarness';
import { testTrust, type TestTrust } from '../support/trust';
import { installScripts, projectScript, writeClaudeSettings } from './support';

let h: AgentHarness | undefined;
let trust: TestTrust | undefined;
afterEach(async () => {
  await h?.services.dispose();
  await h?.cleanup();
  trust?.cleanup();
  h = undefined;
  trust = undefined;
});

async function repoWithHooks(): Promise<AgentHarness> {
  trust = testTrust();
  const harness = await agentHarness({ git: true, withHooks: true, user: trust.store, files: { 'test.sh': 'grep -q fixed status.txt\n', 'status.txt': 'broken\n', 'data.json': '{"b": 1, "a": 2}\n' } });
  await installScripts(harness.root, ['bash_validator.py', 'format_after_edit.py', 'stop_test_gate.py']);
  await writeClaudeSettings(path.join(harness.root, '.claude/settings.json'), {
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: projectScript('bash_validator.py') }] }],
    PostToolUse: [{ matcher: 'Edit|Write|MultiEdit', hooks: [{ type: 'command', command: projectScript('format_after_edit.py') }] }],
    Stop: [{ hooks: [{ type: 'command', command: projectScript('stop_test_gate.py') }] }],
  });
  await trust.trust(harness.root);
  harness.services.hooks.approveConfigured();
  return harness;
}

describe("Claude Code's example hooks in .claude/settings.json", () => {
  it('the validator blocks `grep` and the model reads its reason; `rg` runs', async () => {
    h = await repoWithHooks();
    h.llm.enqueue(
      { toolCalls: [call('g1', 'bash', { command: 'grep -r port src', description: 'find port' })] },
      { toolCalls: [call('g2', 'bash', { command: 'echo fixed > status.txt', description: 'fix status' })] },
      { content: 'done' },
    );
    const r = await h.agent.run('find the port');
    expect(r.status).toBe('done');
    const first = h.of('tool_call_finished').find((e) => e.call_id === 'g1')!;
    expect(first.ok).toBe(false);
    expect(first.error).toMatchObject({ code: 'PERMISSION_DENIED', details: { denied_by: 'hook', source: '.claude/settings.json' } });
    // The model's next request carries the validator's own words.
    expect(toolMessages(h.llm.completions[1].body).g1).toContain("Use 'rg' (ripgrep) instead of 'grep'");
    expect(h.of('hook').find((e) => e.call_id === 'g1')).toMatchObject({ event: 'PreToolUse', decision: 'deny', source: '.claude/settings.json', hook: projectScript('bash_validator.py') });
    // The next command passes the validator and runs.
    expect(h.of('tool_call_finished').find((e) => e.call_id === 'g2')!.ok).toBe(true);
    expect(await readFile(path.join(h.root, 'status.txt'), 'utf8')).toBe('fixed\n');
  }, 60_000);

  it("the formatter rewrites what Write wrote, and its change is a modification attributed to the hook", async () => {
    h = await repoWithHooks();
    await writeFile(path.join(h.root, 'status.txt'), 'fixed\n');
    h.llm.enqueue({ toolCalls: [call('w1', 'write_file', { path: 'conf.json', content: '{"z": 1, "y": {"x": 2}}' })] }, { content: 'written' });
    expect((await h.agent.run('write the config')).status).toBe('done');
    expect(await readFile(path.join(h.root, 'conf.json'), 'utf8')).toBe('{\n  "y": {\n    "x": 2\n  },\n  "z": 1\n}\n');
    const log = (await readFile(path.join(h.root, '.loupe/modifications.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const byHook = log.filter((e) => e.tool === 'hook');
    expect(byHook).toHaveLength(1);
    expect(byHook[0]).toMatchObject({ file: 'conf.json', operation: 'overwrite', group_kind: 'command', command: projectScript('format_after_edit.py') });
    expect(String(byHook[0].reason)).toContain('PostToolUse hook from .claude/settings.json after write_file');
    // Reversible like any modification: the hook's group is undone in the timeline.
    expect(log.find((e) => e.tool === 'write_file')).toMatchObject({ file: 'conf.json', operation: 'create' });
  }, 60_000);

  it('the Stop test gate sends the model back while the tests fail, then lets it stop', async () => {
    h = await repoWithHooks();
    h.llm.enqueue(
      { content: 'All done.' },
      { toolCalls: [call('f1', 'bash', { command: 'echo fixed > status.txt', description: 'fix' })] },
      { content: 'Fixed, tests pass.' },
    );
    const r = await h.agent.run('fix the tests');
    expect(r).toMatchObject({ status: 'done', text: 'Fixed, tests pass.' });
    // The model was told why it could not stop, in the gate's words.
    const second = h.llm.completions[1].body.messages!.at(-1)!;
    expect(second).toMatchObject({ role: 'user' });
    expect(String(second.content)).toContain('The tests fail; fix them before stopping');
    expect(h.of('hook').filter((e) => e.event === 'Stop').map((e) => e.decision)).toEqual(['block']);
    expect(h.llm.completions).toHaveLength(3);
  }, 60_000);
});
