// A cloned repository whose `.claude/settings.json` names a hook that writes a marker (and tries
// to write beside the workspace): untrusted, it never runs and nobody is asked; trusted, a card
// of kind `hook` with its exact command line comes first; declined, it never runs; approved, it
// runs inside the OS sandbox, where the write outside the workspace fails (with the sandbox off,
// the control, that write lands); its command line changed, the person is asked again.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentHarness, call, type AgentHarness } from '../agent/agentHarness';
import { testTrust, type TestTrust } from '../support/trust';
import { until } from '../support/tmp';
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

const LINE = projectScript('marker.sh');
const settings = (root: string, line = LINE) => writeClaudeSettings(path.join(root, '.claude/settings.json'), { PreToolUse: [{ matcher: 'Read', hooks: [{ type: 'command', command: line }] }] });
const marker = () => path.join(h!.root, 'HOOK_RAN.marker');
const outside = () => path.join(h!.root, '..', 'OUTSIDE.marker');

async function clone(sandbox?: 'off'): Promise<AgentHarness> {
  trust = testTrust(sandbox ? { sandbox } : {});
  const harness = await agentHarness({ git: true, withHooks: true, unattended: 'wait', user: trust.store, files: { 'a.txt': 'alpha\n' } });
  await installScripts(harness.root, ['marker.sh']);
  await settings(harness.root);
  return harness;
}

/** One request that reads a.txt (the hook's matcher), answering each hook card with `answer`. */
async function readOnce(answer?: 'deny' | 'once' | 'always'): Promise<void> {
  h!.llm.enqueue({ toolCalls: [call(`r${h!.llm.completions.length}`, 'read_file', { path: 'a.txt' })] }, { content: 'ok' });
  const running = h!.agent.run('read a.txt');
  if (answer) {
    const card = await until(() => h!.queue.list().find((c) => c.kind === 'hook'), 30_000);
    expect(card.summary).toBe(`run the repository's PreToolUse hook: ${LINE}`);
    expect(card.details).toContain('from .claude/settings.json');
    expect(existsSync(marker())).toBe(false);
    h!.queue.answer(card.id, { answer });
  }
  expect((await running).status).toBe('done');
  // The read itself went on whatever the hook's fate.
  expect(h!.of('tool_call_finished').at(-1)).toMatchObject({ tool: 'read_file', ok: true });
}

describe("a repository's hook", () => {
  it('untrusted: never runs, nobody is asked, the settings say why', async () => {
    h = await clone();
    await readOnce();
    expect(existsSync(marker())).toBe(false);
    const row = (await h.services.hooks.list())[0]!;
    expect(row).toMatchObject({ status: 'waiting', ref: { source: '.claude/settings.json', owner: 'project', line: LINE } });
    expect(row.detail).toContain('trust this folder');
  }, 60_000);

  it('trusted: a card first; declined, it never runs (and is not asked again); approved, it runs in the sandbox', async () => {
    h = await clone();
    await trust!.trust(h.root);
    await readOnce('deny');
    expect(existsSync(marker())).toBe(false);
    // Declined holds while Loupe runs: the next read asks nothing and runs nothing.
    await readOnce();
    expect(existsSync(marker())).toBe(false);
    expect((await h.services.hooks.list())[0]).toMatchObject({ status: 'waiting', detail: expect.stringContaining('you declined') });

    await h.services.hooks.approve((await h.services.hooks.list())[0]!.id);
    await readOnce();
    expect(existsSync(marker())).toBe(true);
    // Inside the sandbox the workspace is writable and its parent is not.
    expect(existsSync(outside())).toBe(false);
    expect((await h.services.hooks.list())[0]).toMatchObject({ status: 'approved', sandboxed: true, last: { event: 'PreToolUse', decision: 'none' } });
  }, 60_000);

  it('approved always on its card: runs now and next time; a changed command line asks again', async () => {
    h = await clone();
    await trust!.trust(h.root);
    await readOnce('always');
    expect(existsSync(marker())).toBe(true);
    await readOnce();
    const changed = `${LINE} --again`;
    await settings(h.root, changed);
    await trust!.trust(h.root);
    h.llm.enqueue({ toolCalls: [call('rx', 'read_file', { path: 'a.txt' })] }, { content: 'ok' });
    const running = h.agent.run('read a.txt');
    const card = await until(() => h!.queue.list().find((c) => c.kind === 'hook'), 30_000);
    expect(card.summary).toBe(`run the repository's PreToolUse hook: ${changed}`);
    h.queue.answer(card.id, { answer: 'deny' });
    expect((await running).status).toBe('done');
  }, 60_000);

  it('control: with the sandbox off the same approved hook writes outside the workspace', async () => {
    h = await clone('off');
    await trust!.trust(h.root);
    await readOnce('once');
    expect(existsSync(marker())).toBe(true);
    expect(existsSync(outside())).toBe(true);
  }, 60_000);
});
