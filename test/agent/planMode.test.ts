// Plan mode through the agent loop, the real tools and the real sandbox: reads and read-only
// commands run, every write and every command that may write is refused by the permission layer
// with a refusal the model reads, nothing in the folder or the repository changes, and the
// answer is kept as the plan. Steering and stopping through the same loop.
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { rgPath } from '@vscode/ripgrep';
import { writeFileSync } from 'node:fs';
import { z } from 'zod';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createToolRegistry } from '../../src/main/agent/tools/registry';
import { defineTool } from '../../src/main/agent/tools/types';
import { probeSandbox } from '../../src/main/services/sandbox/probe';
import { git } from '../support/tmp';
import { agentHarness, call, toolMessages, type AgentHarness } from './agentHarness';

const availability = await probeSandbox();
if (!availability.available) console.warn(`plan-mode commands skipped: no sandbox (${availability.reason})`);
const withSandbox = availability.available ? it : it.skip;

// `rg` as the person's shell would have it: the ripgrep Loupe ships, on PATH.
const PATH = process.env.PATH;
beforeAll(() => {
  process.env.PATH = `${path.dirname(rgPath)}:${PATH}`;
});
afterAll(() => {
  process.env.PATH = PATH;
});

let h: AgentHarness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const FILES = { 'a.txt': 'hello\n', 'package.json': '{"name":"x","dependencies":{"left-pad":"1.3.0"}}\n' };
const PLAN = '# Plan\n\n1. Change `hello` to `hi` in a.txt.\n2. Check with `cat a.txt`.\n';

describe('plan mode', () => {
  withSandbox('reads run; edits, writes and commands that may write are refused by the mode; the answer is saved as the plan', async () => {
    const plans: { correlation: string; text: string }[] = [];
    h = await agentHarness({
      git: true,
      files: FILES,
      savePlan: async (correlation, text) => {
        plans.push({ correlation, text });
        return `.loupe/plans/x/${correlation}.md`;
      },
    });
    git(h.root, 'add', '-A');
    git(h.root, 'commit', '-qm', 'init');
    const head = git(h.root, 'rev-parse', 'HEAD');
    const refused = ['rm a.txt', "sed -i 's/hello/bye/' a.txt", 'git commit --allow-empty -m x', 'npm install'];
    const allowed = ['ls', 'git log --oneline', 'rg hello'];
    h.llm.enqueue(
      {
        toolCalls: [
          call('r1', 'read_file', { path: 'a.txt' }),
          call('e1', 'edit_file', { path: 'a.txt', old_str: 'hello', new_str: 'bye' }),
          call('w1', 'write_file', { path: 'b.txt', content: 'new\n' }),
          call('k1', 'code_rollback', { modification_id: 'mod-20260101-000000-001' }),
          ...refused.map((command, i) => call(`x${i}`, 'bash', { command, description: 'try' })),
          ...allowed.map((command, i) => call(`y${i}`, 'bash', { command, description: 'look' })),
        ],
      },
      { content: PLAN },
    );
    const r = await h.agent.run('plan the greeting change', { mode: 'plan' });
    expect(r.status).toBe('done');
    const answers = toolMessages(h.llm.completions[1].body);
    expect(answers.r1).toContain('hello');
    for (const id of ['e1', 'w1', 'k1', ...refused.map((_, i) => `x${i}`)]) {
      expect(answers[id], id).toMatch(/PERMISSION_DENIED.*Refused by plan mode/s);
      expect(answers[id], id).toMatch(/answering with the plan/);
    }
    expect(answers.y0).toContain('a.txt');
    expect(answers.y1).toContain('init');
    expect(answers.y2).toContain('a.txt:hello');
    const finishedBash = h.of('tool_call_finished').filter((e) => e.tool === 'bash');
    expect(finishedBash.filter((e) => e.ok).map((e) => (e.data as { exit_code: number }).exit_code)).toEqual([0, 0, 0]);
    expect(finishedBash.filter((e) => !e.ok).every((e) => (e.error?.details as { denied_by?: string })?.denied_by === 'mode')).toBe(true);
    // The folder and the repository are as they were.
    expect(await readFile(path.join(h.root, 'a.txt'), 'utf8')).toBe('hello\n');
    expect(git(h.root, 'status', '--porcelain', '--untracked-files=all').split('\n').filter((l) => l && !l.includes('.loupe/'))).toEqual([]);
    expect(git(h.root, 'rev-parse', 'HEAD')).toBe(head);
    expect(execFileSync('ls', [h.root], { encoding: 'utf8' }).split('\n').filter(Boolean).sort()).toEqual(['a.txt', 'package.json']);
    // The model was told it plans; the answer is the plan, kept and announced.
    expect(String(h.llm.completions[0].body.messages?.[0].content)).toMatch(/# Plan mode/);
    expect(plans).toEqual([{ correlation: r.correlationId, text: PLAN }]);
    expect(h.of('plan')).toEqual([expect.objectContaining({ path: `.loupe/plans/x/${r.correlationId}.md`, text: PLAN })]);
    expect(h.of('request_started')[0]).toMatchObject({ mode: 'plan' });
  });

  withSandbox('no path writes: background processes, tests, process and code tools, a tool from elsewhere, any spelling', async () => {
    // A tool Loupe does not know by name (an MCP server's, say) that says it writes, and one that says it runs something.
    let ran = 0;
    const outsider = (name: string, effect: 'write' | 'execute') =>
      defineTool({ name, title: name, effect, permission: null, correlated: false, idempotent: false, openWorld: true, description: 'x', schema: z.object({}), outputSchema: z.unknown(), summary: () => name, async run(_a, ctx) {
        ran++;
        writeFileSync(path.join(ctx.root, `${name}.txt`), 'x');
        return { ok: true, output: 'wrote' };
      } });
    const registry = createToolRegistry().register(outsider('mcp__db__insert', 'write')).register(outsider('mcp__deploy__run', 'execute'));
    h = await agentHarness({ git: true, files: FILES, registry, savePlan: async (c) => `.loupe/plans/x/${c}.md` });
    h.queue.setResponder(async () => ({ answer: 'once' }));
    git(h.root, 'add', '-A');
    git(h.root, 'commit', '-qm', 'init');
    const head = git(h.root, 'rev-parse', 'HEAD');
    const branches = git(h.root, 'branch');
    const background = ['touch bg.txt', 'sh -c "sleep 1; touch late.txt"', 'node -e "require(\'fs\').writeFileSync(\'n.txt\',\'x\')"', 'ls > listing.txt'];
    const spellings = ['echo x >> a.txt', 'cat a.txt | tee b.txt', 'python3 -c "open(\'p.txt\',\'w\')"', 'perl -pi -e s/hello/x/ a.txt', 'git checkout -b z', 'git stash', 'find . -name a.txt -delete', 'xargs rm <<< a.txt', '/usr/bin/time -o t.txt ls', 'command time -o t.txt ls', "env -S'touch e.txt'", 'RIPGREP_CONFIG_PATH=cfg rg x', 'cp a.txt c.txt', 'exec >o.txt; ls'];
    h.llm.enqueue(
      {
        toolCalls: [
          ...background.map((command, i) => call(`bg${i}`, 'bash', { command, description: 'bg', run_in_background: true })),
          ...spellings.map((command, i) => call(`sp${i}`, 'bash', { command, description: 'try', sandbox: false })),
          call('t1', 'run_tests', { test_command: 'touch t.txt' }),
          call('t2', 'run_tests', { test_command: 'npx vitest run' }),
          call('pk', 'process_kill', { id: 'proc-1' }),
          call('cm', 'code_modify', { file_path: 'a.txt', operation: 'delete', line_range: [1, 1] }),
          call('m1', 'mcp__db__insert', {}),
          call('m2', 'mcp__deploy__run', {}),
        ],
      },
      { content: PLAN },
    );
    const r = await h.agent.run('plan', { mode: 'plan' });
    expect(r.status).toBe('done');
    const answers = toolMessages(h.llm.completions[1].body);
    const ids = [...background.map((_, i) => `bg${i}`), ...spellings.map((_, i) => `sp${i}`), 't1', 't2', 'pk', 'cm', 'm1', 'm2'];
    for (const id of ids) expect(answers[id], id).toMatch(/Refused by plan mode/);
    expect(ran).toBe(0);
    expect(h.services.processes.list()).toEqual([]);
    expect(await readFile(path.join(h.root, 'a.txt'), 'utf8')).toBe('hello\n');
    expect(git(h.root, 'status', '--porcelain', '--untracked-files=all').split('\n').filter((l) => l && !l.includes('.loupe/'))).toEqual([]);
    expect(git(h.root, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(h.root, 'branch')).toBe(branches);
    expect(git(h.root, 'stash', 'list')).toBe('');
  });

  it('the same calls in act mode are not refused by any mode', async () => {
    h = await agentHarness({ files: FILES });
    h.llm.enqueue({ toolCalls: [call('r1', 'read_file', { path: 'a.txt' }), call('e1', 'edit_file', { path: 'a.txt', old_str: 'hello', new_str: 'bye' })] }, { content: 'Done.' });
    const r = await h.agent.run('change it');
    expect(r.status).toBe('done');
    expect(await readFile(path.join(h.root, 'a.txt'), 'utf8')).toBe('bye\n');
    expect(h.of('plan')).toEqual([]);
  });
});

describe('steering', () => {
  it('a message sent now reaches the model at the next tool boundary, after the results', async () => {
    h = await agentHarness({ files: FILES });
    h.llm.enqueue({ toolCalls: [call('r1', 'read_file', { path: 'a.txt' })] }, { toolCalls: [call('r2', 'read_file', { path: 'package.json' })] }, { content: 'Done.' });
    const waiting = ['Also check package.json.'];
    let taken = 0;
    const r = await h.agent.run('look at a.txt', { steering: { take: () => (taken++ === 0 ? waiting.splice(0) : []) } });
    expect(r.status).toBe('done');
    const second = h.llm.completions[1].body.messages!;
    expect(second.slice(-3).map((m) => m.role)).toEqual(['assistant', 'tool', 'user']);
    expect(second.at(-1)).toMatchObject({ role: 'user', content: 'Also check package.json.' });
    expect(h.of('steer')).toEqual([expect.objectContaining({ text: 'Also check package.json.' })]);
    // Taken once, at the boundary; the first request went out without it.
    expect(h.llm.completions[0].body.messages!.some((m) => m.content === 'Also check package.json.')).toBe(false);
  });
});

describe('stop', () => {
  it('during a streamed answer: the text so far is kept and the stop says so', async () => {
    h = await agentHarness();
    h.llm.enqueue({ content: 'The first part of a long answer that never finishes', stallAfterFrames: 6 });
    const stop = new AbortController();
    let chars = 0;
    h.agent.events.on((e) => {
      if (e.type === 'text_delta' && (chars += e.text.length) > 10) stop.abort();
    });
    const r = await h.agent.run('talk', { signal: stop.signal });
    expect(r.status).toBe('aborted');
    const kept = h.agent.messages.at(-1)!;
    expect(kept).toMatchObject({ role: 'assistant' });
    expect(h.of('error')[0].message).toBe(`Stopped by the user. The answer so far (${String(kept.content).length} characters) is kept.`);
  });

  it('during a command: the command is cancelled, the call not yet run is not run, and the stop names both', async () => {
    h = await agentHarness({ files: FILES });
    h.queue.setResponder(async () => ({ answer: 'once' }));
    h.llm.enqueue({ toolCalls: [call('r1', 'read_file', { path: 'a.txt' }), call('b1', 'bash', { command: 'sleep 30', description: 'wait' }), call('e1', 'edit_file', { path: 'a.txt', old_str: 'hello', new_str: 'x' })] });
    const stop = new AbortController();
    h.agent.events.on((e) => e.type === 'tool_call_started' && e.tool === 'bash' && setTimeout(() => stop.abort(), 300));
    const r = await h.agent.run('wait', { signal: stop.signal });
    expect(r.status).toBe('aborted');
    const message = h.of('error')[0].message;
    expect(message).toMatch(/^Stopped by the user\. Cancelled: `bash sleep 30`/);
    expect(message).toMatch(/Not run: `edit_file a\.txt`\./);
    expect(message).not.toMatch(/read_file/);
    expect(await readFile(path.join(h.root, 'a.txt'), 'utf8')).toBe('hello\n');
  });
});
