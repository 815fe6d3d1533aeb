// The system prompt as built for a real temp workspace: the tools exactly as the registry has
// them (a tool removed is never mentioned, a tool added is described), the environment as it
// is, the sandbox's facts, the model adjustments, and the instruction files within budget.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { SandboxStatusView } from '../../src/shared/contract';
import { estimateTokens } from '../../src/main/agent/loop/budget';
import { buildSystemPrompt, systemPromptSource, type EnvironmentFacts, type PromptSources, type SandboxFacts } from '../../src/main/agent/prompts/systemPrompt';
import { createToolRegistry, ToolRegistry } from '../../src/main/agent/tools/registry';
import { defineTool, success, type Tool } from '../../src/main/agent/tools/types';
import { git, tempDir, writeTree } from '../support/tmp';

let tmp: { dir: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  tmp = await tempDir('loupe-prompt-');
});
afterEach(() => tmp.cleanup());

const ALL = createToolRegistry().list();
const NOW = new Date(2026, 0, 31, 10, 0, 0);

const active: SandboxStatusView = { mode: 'auto', active: true, kind: 'bwrap', reason: null, install: null, ignored_off: false };
const sandbox = (status: SandboxStatusView = active, networkAllowed: string[] = []): (() => Promise<SandboxFacts>) => async () => ({ status, networkAllowed });

function registryOf(tools: Tool[]): ToolRegistry {
  const r = new ToolRegistry();
  for (const t of tools) r.register(t);
  return r;
}

const prompt = async (s: Partial<PromptSources> = {}, model?: string) =>
  (await buildSystemPrompt({ root: tmp.dir, registry: createToolRegistry(), sandbox: sandbox(), now: () => NOW, ...s }, model ? { model: { name: model } } : {})).text;

/** Whether `name` appears as a word of its own (not inside a path such as /bin/bash). */
// A tool named by an everyday word the prompt also uses in prose ("a coding agent") counts as
// mentioned where the prompt names it as a tool: in backticks.
const PROSE_WORDS = new Set(['agent']);
const mentions = (text: string, name: string) => (PROSE_WORDS.has(name) ? text.includes(`\`${name}\``) : new RegExp(`(?<![\\w/.-])${name}(?![\\w/-])`).test(text));

const frobnicate = defineTool({
  name: 'frobnicate_widget',
  title: 'Frobnicate a widget',
  effect: 'read',
  permission: null,
  correlated: false,
  idempotent: true,
  openWorld: false,
  summary: () => 'widget',
  outputSchema: z.object({}),
  description: 'Turn a widget inside out. Nobody knows why.',
  schema: z.object({ widget: z.string() }),
  run: async () => success('ok'),
});

describe('the tools in the system prompt', () => {
  it('names every registered tool with its facts, and nothing else that looks like a tool', async () => {
    const text = await prompt();
    const listed = [...text.matchAll(/^- `([a-z_]+)` \(/gm)].map((m) => m[1]);
    expect(listed).toEqual(ALL.map((t) => t.name));
    expect(text).toMatch(/^- `read_file` \(reads; `read` permission\): Read a text file of the workspace\./m);
    expect(text).toMatch(/^- `bash` \(runs a process; reaches beyond the workspace; `bash` permission\): /m);
    expect(text).toMatch(/^- `modification_log` \(reads; never asks\): /m);
    // What the old prompt got wrong: tests go through run_tests, and code_modify is there.
    expect(text).toMatch(/`run_tests`[^\n]*Run tests with this tool rather than a shell command/);
    expect(mentions(text, 'code_modify')).toBe(true);
  });

  it('never mentions a tool that is not registered and never omits one that is, for any set of tools', async () => {
    // The environment once (git status is a process); the rest is built per set of tools.
    const env: EnvironmentFacts = await systemPromptSource({ root: tmp.dir, registry: createToolRegistry(), sandbox: sandbox(), now: () => NOW }).environment();
    await fc.assert(
      fc.asyncProperty(fc.subarray(ALL), fc.boolean(), fc.constantFrom(undefined, 'o3-mini', 'qwen2.5-coder:7b'), async (subset, withExtra, model) => {
        const tools = withExtra ? [...subset, frobnicate as unknown as Tool] : subset;
        const source = systemPromptSource({ root: tmp.dir, registry: registryOf(tools) });
        const { text } = await source.build(env, { messages: [], ...(model ? { model: { name: model } } : {}) });
        for (const t of ALL) expect(mentions(text, t.name), `${t.name} in a prompt for ${tools.map((x) => x.name).join(',')}`).toBe(subset.includes(t));
        expect(mentions(text, 'frobnicate_widget')).toBe(withExtra);
        if (withExtra) expect(text).toContain('- `frobnicate_widget` (reads; never asks): Turn a widget inside out.');
      }),
      { numRuns: 200 },
    );
  });
});

describe('the environment in the system prompt', () => {
  it('states the OS, the shell, the root, the git branch with a one-line status and the date', async () => {
    git(tmp.dir, 'init', '-q');
    await writeTree(tmp.dir, { 'a.txt': 'a\n', 'b.txt': 'b\n' });
    git(tmp.dir, 'add', 'a.txt');
    git(tmp.dir, 'commit', '-qm', 'init');
    await writeFile(path.join(tmp.dir, 'a.txt'), 'changed\n');
    const text = await prompt();
    expect(text).toMatch(/^- OS: (Linux|macOS|Windows) \(.+\); commands run in \/\S+$/m);
    expect(text).toContain(`- Workspace root: ${tmp.dir}`);
    expect(text).toContain('- Git: branch main: 1 changed, 1 untracked');
    expect(text).toContain('- Today: 2026-01-31 (Saturday)');
    git(tmp.dir, 'checkout', '-q', '--detach');
    expect(await prompt()).toMatch(/- Git: detached HEAD at [0-9a-f]{7,}: 1 changed, 1 untracked/);
  });

  it('says when the folder is not a git repository', async () => {
    expect(await prompt()).toContain('- Git: not a git repository');
  });

  it('tells the truth about the sandbox, and what SANDBOX_BLOCKED asks of the agent', async () => {
    const on = await prompt({ sandbox: sandbox(active, ['npm install *']) });
    expect(on).toContain('- Sandbox: commands from `bash` and `run_tests` run inside an OS sandbox (bwrap): no network except for commands matching "npm install *"; writes only inside the workspace');
    expect(on).toMatch(/SANDBOX_BLOCKED was stopped by the sandbox\. Do not work around it/);
    expect(on).toContain('calling `bash` or `run_tests` again with sandbox: false (the person is asked to approve)');
    expect(await prompt({ sandbox: sandbox(active) })).toContain('(bwrap): no network; writes only inside the workspace');
    const off = await prompt({ sandbox: sandbox({ ...active, active: false, kind: null, reason: 'no bubblewrap' }) });
    expect(off).toContain('- Sandbox: none here (no bubblewrap). Commands from `bash` and `run_tests` run only when a rule allows them or the person approves.');
    expect(off).not.toContain('SANDBOX_BLOCKED');
  });

  it('stays under 2,500 tokens without instruction files, with every adjustment on', async () => {
    git(tmp.dir, 'init', '-q');
    const text = await prompt({ sandbox: sandbox(active, ['npm install *', 'pip install *']) }, 'deepseek-r1:7b');
    expect(text).toContain('# For this model');
    // Loupe's own estimate (4 characters a token), and a pessimistic 3.2 for code-heavy text.
    expect(estimateTokens(text.length)).toBeLessThan(2_500);
    expect(text.length / 3.2).toBeLessThan(2_500);
  });
});

describe('model adjustments', () => {
  it('reasoning models are told not to restate their plans; small ones get the exact call shape with a real tool', async () => {
    const reasoning = await prompt({}, 'o3-mini');
    expect(reasoning).toContain('do not restate your plan or your reasoning');
    expect(reasoning).not.toContain('tool-call interface only');
    const small = await prompt({}, 'qwen2.5-coder:7b');
    expect(small).toContain('a call to `read_file` with arguments {"path":"<path>"}');
    const plain = await prompt({}, 'gpt-4o');
    expect(plain).not.toContain('# For this model');
  });
});

describe('instruction files in the system prompt', () => {
  it('gives each file under its own heading, general first, and cuts only the largest to fit the budget, saying so', async () => {
    await writeTree(tmp.dir, {
      'AGENTS.md': `root rules\n${'r'.repeat(3000)}\n`,
      'CLAUDE.md': 'claude rules\n',
      'pkg/AGENTS.md': `pkg rules\n${'p'.repeat(3000)}\n`,
      'pkg/a.ts': 'x\n',
    });
    const view = await buildSystemPrompt(
      { root: tmp.dir, registry: createToolRegistry(), now: () => NOW, instructionsBudget: 4000 },
      { messages: [{ role: 'assistant', content: '', tool_calls: [{ id: 'c', type: 'function', function: { name: 'read_file', arguments: '{"path":"pkg/a.ts"}' } }] }] },
    );
    const at = (s: string) => view.text.indexOf(s);
    expect(at('## AGENTS.md\nroot rules')).toBeGreaterThan(at('# Instructions'));
    expect(at('## CLAUDE.md\nclaude rules')).toBeGreaterThan(at('## AGENTS.md'));
    expect(at('## pkg/AGENTS.md (for work in pkg/)\npkg rules')).toBeGreaterThan(at('## CLAUDE.md'));
    expect(view.text).toMatch(/\[… \d+ more characters of AGENTS\.md were cut to fit the 4000-character budget for instructions; read the file for the rest\.\]/);
    expect(view.files.map((f) => [f.path, f.chars < f.total_chars])).toEqual([
      ['AGENTS.md', true],
      ['CLAUDE.md', false],
      ['pkg/AGENTS.md', true],
    ]);
    expect(view.files.reduce((n, f) => n + f.chars, 0)).toBeLessThanOrEqual(4000);
  });
});
