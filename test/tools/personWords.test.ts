// Text written for the model stays with the model (docs/architecture.md, "A tool call, from the
// model to the disk"): wherever a tool's result or error tells the model which tool to call or
// which argument to change, the person's words (`for_person`) carry the same facts without it.
// Each case below makes a real tool say such advice to the model, then checks the person's text
// names no tool of the registry and no argument meant for the model.
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolRegistry } from '../../src/main/agent/tools/registry';
import type { ToolResult } from '../../src/main/agent/tools/types';
import { harness, type Harness } from '../support/toolHarness';

const registry = createToolRegistry();
// Names that are also ordinary words to the person (a program, a permission kind: bash, grep,
// webfetch) may appear in rules and commands; the others name only the model's tools.
const TOOL_NAMES = registry.list().map((t) => t.name).filter((n) => n.includes('_'));
/** Words only the model acts on: its tools' names and their arguments. */
const FOR_THE_MODEL = new RegExp(`\\b(${[...TOOL_NAMES, 'old_str', 'new_str', 'expected_replacements', 'replace_all', 'offset=', 'run_in_background'].join('|')})\\b`);

const person = (r: ToolResult) => ({ text: r.for_person ?? r.output, error: r.error ? (r.error.for_person ?? r.error.message) : '' });
const model = (r: ToolResult) => `${r.output}\n${r.error?.message ?? ''}`;

let h: Harness;
beforeEach(async () => {
  h = await harness({ git: true, sandbox: 'off' });
});
afterEach(async () => {
  await h.cleanup();
});

/** The model is told what to call; the person reads the facts alone. */
function expectSplit(r: ToolResult, fact: RegExp | string) {
  expect(model(r)).toMatch(FOR_THE_MODEL);
  const p = person(r);
  expect(`${p.text}\n${p.error}`).not.toMatch(FOR_THE_MODEL);
  expect(`${p.text}\n${p.error}`).toMatch(fact);
}

describe('what a tool card says to the person', () => {
  it('errors that tell the model what to call: the fact, for the person', async () => {
    await h.write('a.ts', 'one\ntwo\ntwo\n');
    await h.write('dir/x.ts', 'x\n');
    expectSplit(await h.call('edit_file', { path: 'a.ts', old_str: 'one', new_str: 'uno' }), 'The agent had not read a.ts');
    await h.call('read_file', { path: 'a.ts' });
    expectSplit(await h.call('edit_file', { path: 'a.ts', old_str: 'three', new_str: 'tres' }), 'The text to replace was not found in a.ts');
    expectSplit(await h.call('edit_file', { path: 'a.ts', old_str: 'two', new_str: 'dos' }), /occurs 2 times in a\.ts \(lines 2, 3\), not 1/);
    expectSplit(await h.call('edit_file', { path: 'a.ts', old_str: 'one', new_str: 'one' }), 'Nothing to change in a.ts');
    expectSplit(await h.call('edit_file', { path: 'b.ts', old_str: 'x', new_str: 'y' }), 'b.ts does not exist');
    expectSplit(await h.call('edit_file', { path: 'a.ts', old_str: '', new_str: 'new' }), 'a.ts already exists');
    expectSplit(await h.call('write_file', { path: 'dir', content: 'x' }), 'dir is a folder, not a file');
    expectSplit(await h.call('code_rollback', { modification_id: 'mod-20200101-000000-001' }), "No modification mod-20200101-000000-001 in this workspace's log");
    expectSplit(await h.call('process_output', { id: 'proc-9' }), 'No background process proc-9');
  });

  it('results that tell the model what to call next: the facts, for the person', async () => {
    await h.write('long.txt', Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n'));
    expectSplit(await h.call('read_file', { path: 'long.txt', offset: 1, limit: 10 }), 'Showing lines 1-10 of 30');
    // Without a sandbox a command asks, and nobody answers here: rules allow these.
    await h.write('.loupe/config.json', JSON.stringify({ permissions: [{ kind: 'bash', pattern: 'echo *', action: 'allow' }, { kind: 'bash', pattern: 'sleep *', action: 'allow' }] }));
    await h.trust();
    const made = await h.call('bash', { command: 'echo made > made2.txt', description: 'make a file' });
    expectSplit(made, /Files changed by this command, recorded as modifications \(group cmd-[^,]+, undone from the timeline\): created made2\.txt/);
    const group = (made.data!.changes as { group_id: string }).group_id;
    expectSplit(await h.call('code_rollback', { modification_id: group }), /This is group [^,]+, in the timeline: rolling it back there redoes it/);
    expectSplit(await h.call('process_list', {}), 'No background processes.');
    const bg = await h.call('bash', { command: 'sleep 30', description: 'wait', run_in_background: true });
    expectSplit(bg, 'shown live in the Processes pane');
    const id = bg.data!.process_id as string;
    expectSplit(await h.call('process_wait', { id, wait_for: { regex: 'never', timeout: 50 } }), /not yet\. It is still running \(the Processes pane shows it\)/);
    await h.call('process_kill', { id });
  });

  it('refusals: by a rule, by plan mode, by nobody there to ask', async () => {
    await h.write('.loupe/config.json', JSON.stringify({ permissions: [{ kind: 'bash', pattern: 'rm *', action: 'deny' }] }));
    await h.trust();
    const ruled = await h.call('bash', { command: 'rm -rf build', description: 'clean' });
    expect(ruled.error?.message).toContain('Do not try to get around it');
    expect(person(ruled).error).toMatch(/^Denied by the rule .*\.$/);
    expect(person(ruled).error).not.toContain('Do not try');
    expect(person(ruled).text).toBe('');

    await h.write('p.ts', 'p\n');
    await createToolRegistry().call('read_file', { path: 'p.ts' }, h.ctx);
    const planned = await createToolRegistry().call('write_file', { path: 'p.ts', content: 'q\n' }, { ...h.ctx, permissions: h.ctx.permissions.inMode('plan') });
    expect(planned.error?.message).toMatch(/Refused by plan mode: .* Put it in your plan/);
    expect(person(planned).error).toBe('Not run in plan mode: it changes files.');

    const asked = await h.call('bash', { command: `touch ${path.join('sub', 'f')}`, description: 'touch' });
    expect(asked.error?.details?.denied_by).toBe('unattended');
    expect(person(asked).error).not.toMatch(FOR_THE_MODEL);
  });
});
