// `loupe run` with subagents: `--json` carries `agent_id` and `parent_session_id` on every event of
// a child, the lines say each child's start, calls and end, and a child's edit is a modification
// of the run's request. Needs `npm run build` first.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runLoupe, useCliFixture } from '../support/cli';
import { byConversation } from '../support/conversations';
import { git, writeTree } from '../support/tmp';
import { call } from './harness';

const fx = useCliFixture('loupe-run-agents-');

async function repo(name: string): Promise<string> {
  const dir = path.join(fx.sandbox, name);
  await writeTree(dir, { 'a.txt': 'hello\n' });
  git(dir, 'init', '-q');
  return dir;
}

const script = () =>
  byConversation([
    { when: 'delegate the fix', replies: [{ toolCalls: [call('a1', 'agent', { description: 'Fix the greeting', prompt: 'FIXER: change hello to bye in a.txt' })] }, { content: 'The agent fixed it.' }] },
    {
      when: 'FIXER:',
      replies: [{ toolCalls: [call('r1', 'read_file', { path: 'a.txt' })] }, { toolCalls: [call('e1', 'edit_file', { path: 'a.txt', old_str: 'hello', new_str: 'bye' })] }, { content: 'Changed a.txt.' }],
    },
  ]).respond;

const loupe = (args: string[]) =>
  // A stuck run is killed after 90 s: two models' turns and a child's beside a full test run took over 30.
  runLoupe(['run', ...args], { killAfterMs: 90_000, env: { HOME: path.join(fx.sandbox, 'home'), LOUPE_HOME: path.join(fx.sandbox, 'loupe-home'), LOUPE_KEYCHAIN: 'off', LOUPE_MODEL: 'scripted', OPENAI_BASE_URL: fx.llm.baseURL, OPENAI_API_KEY: 'k' } });

describe('loupe run with subagents', () => {
  it('--json: a child’s events carry agent_id and parent_session_id; its edit is the request’s', async () => {
    const dir = await repo('json');
    fx.llm.respondWith(script());
    const r = await loupe(['--cwd', dir, '--yes', '--json', 'delegate the fix']);
    expect(r.code).toBe(0);
    const events = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l));
    const parentStart = events.find((e) => e.type === 'request_started' && !e.agent_id);
    const started = events.find((e) => e.type === 'subagent_started');
    expect(started).toMatchObject({ agent_id: expect.stringMatching(/^ses-/), parent_session_id: parentStart.session_id, description: 'Fix the greeting', agent_type: 'general', correlation_id: parentStart.correlation_id });
    const child = events.filter((e) => e.agent_id === started.agent_id);
    expect(child.map((e) => e.type)).toEqual(expect.arrayContaining(['subagent_started', 'request_started', 'tool_call_started', 'tool_call_finished', 'usage', 'subagent_finished']));
    expect(child.every((e) => e.parent_session_id === parentStart.session_id && e.correlation_id === parentStart.correlation_id)).toBe(true);
    // The parent's own events carry neither.
    expect(events.filter((e) => !e.agent_id).every((e) => e.parent_session_id === undefined)).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: 'request_finished', status: 'done', text: 'The agent fixed it.' });
    expect(await readFile(path.join(dir, 'a.txt'), 'utf8')).toBe('bye\n');
    const log = (await readFile(path.join(dir, '.loupe/modifications.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
    expect(log).toMatchObject([{ file: 'a.txt', agent_id: started.agent_id, session_id: parentStart.session_id, correlation_id: parentStart.correlation_id }]);
  });

  it('the lines say the child’s start, its calls and its end', async () => {
    const dir = await repo('human');
    fx.llm.respondWith(script());
    const r = await loupe(['--cwd', dir, '--yes', 'delegate the fix']);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines).toEqual(expect.arrayContaining(['  ⇢ general agent: Fix the greeting', '    [Fix the greeting] → read_file a.txt', '    [Fix the greeting] → edit_file a.txt']));
    expect(lines.find((l) => l.startsWith('  ⇠ Fix the greeting: done'))).toMatch(/3 turns, [\d,]+ tokens; changed a\.txt/);
    expect(r.stdout).toContain('The agent fixed it.');
    // The child's own words reach the terminal only as its result, on the parent's agent line.
    expect(lines.filter((l) => l.includes('Changed a.txt.'))).toEqual([expect.stringMatching(/^ {2}✓ agent: Agent ses-\w+ \(general: Fix the greeting\) done after 3 turns/)]);
  });
});
