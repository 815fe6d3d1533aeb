// `loupe run --mode plan` and `--queue`, end to end: the built CLI against the scripted server
// on a real git repository, commands in the real sandbox. Needs `npm run build` first.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { rgPath } from '@vscode/ripgrep';
import { describe, expect, it } from 'vitest';
import { probeSandbox } from '../../src/main/services/sandbox/probe';
import { runLoupe, useCliFixture } from '../support/cli';
import { userPrompt } from '../support/scriptedLlm';
import { git, writeTree } from '../support/tmp';
import { call, toolMessages } from './agentHarness';

const fx = useCliFixture('loupe-run-steer-');
const availability = await probeSandbox();
if (!availability.available) console.warn(`loupe run --mode plan commands skipped: no sandbox (${availability.reason})`);
const withSandbox = availability.available ? it : it.skip;
let n = 0;

async function repo(): Promise<string> {
  const dir = path.join(fx.sandbox, `repo${++n}`);
  await writeTree(dir, { 'calc.js': 'exports.add = (a, b) => a - b;\n', 'package.json': '{"name":"calc","dependencies":{"left-pad":"1.3.0"}}\n' });
  git(dir, 'init', '-q');
  git(dir, 'add', '.');
  git(dir, 'commit', '-qm', 'init');
  return dir;
}

const loupe = (args: string[], input?: string) =>
  runLoupe(['run', ...args], {
    // `rg` as a person's shell has it: the ripgrep Loupe ships.
    env: { LOUPE_HOME: path.join(fx.sandbox, 'home'), LOUPE_KEYCHAIN: 'off', LOUPE_MODEL: 'scripted', OPENAI_BASE_URL: fx.llm.baseURL, OPENAI_API_KEY: 'k', PATH: `${path.dirname(rgPath)}:${process.env.PATH}` },
    ...(input !== undefined ? { input } : {}),
    // Ten sandboxed commands on a machine shared with other builds: a budget, not a timing.
    killAfterMs: 120_000,
  });

const PLAN = '## Plan\n\n1. In calc.js, return `a + b` instead of `a - b`.\n2. Run `node -e "require(\'./calc\')"`.';

describe('loupe run --mode plan', () => {
  withSandbox('reads and read-only commands run; edits, writes and writing commands are refused; prints the plan and writes nothing', { timeout: 150_000 }, async () => {
    const dir = await repo();
    const head = git(dir, 'rev-parse', 'HEAD');
    const refused = ['rm calc.js', "sed -i 's/a - b/a + b/' calc.js", 'git commit --allow-empty -m x', 'npm install'];
    const allowed = ['ls', 'git log --oneline', 'rg "a - b"'];
    fx.llm.enqueue(
      {
        content: 'Looking first.',
        toolCalls: [
          call('r1', 'read_file', { path: 'calc.js' }),
          call('e1', 'edit_file', { path: 'calc.js', old_str: 'a - b', new_str: 'a + b' }),
          call('w1', 'write_file', { path: 'notes.md', content: 'x\n' }),
          ...refused.map((command, i) => call(`x${i}`, 'bash', { command, description: 'try' })),
          ...allowed.map((command, i) => call(`y${i}`, 'bash', { command, description: 'look' })),
        ],
      },
      { content: PLAN },
    );
    // --yes: even with every question answered yes, the mode refuses.
    const r = await loupe(['--cwd', dir, '--yes', '--mode', 'plan', 'plan the fix of add()']);
    expect(r.stderr).not.toMatch(/INTERNAL/);
    expect(r.code).toBe(0);
    expect(r.stdout.trimEnd().endsWith(PLAN)).toBe(true);
    const answers = toolMessages(fx.llm.completions[1].body);
    expect(answers.r1).toContain('a - b');
    for (const id of ['e1', 'w1', ...refused.map((_, i) => `x${i}`)]) expect(answers[id], id).toMatch(/PERMISSION_DENIED.*Refused by plan mode/s);
    expect(answers.y0).toMatch(/calc\.js/);
    expect(answers.y1).toMatch(/init/);
    expect(answers.y2).toMatch(/calc\.js/);
    // The person reads the refusal in their words; the model read its own (above).
    expect(r.stdout).toMatch(/✗ edit_file: PERMISSION_DENIED: Not run in plan mode: it changes files/);
    expect(r.stdout).toMatch(/✓ bash: .*calc\.js/);
    // Nothing in the folder or the repository changed.
    expect(await readFile(path.join(dir, 'calc.js'), 'utf8')).toBe('exports.add = (a, b) => a - b;\n');
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(head);
    expect((await readdir(dir)).sort()).toEqual(['.git', '.loupe', 'calc.js', 'package.json']);
    // The plan is the session's artifact.
    const [sessionFile] = await readdir(path.join(dir, '.loupe/sessions'));
    const session = JSON.parse(await readFile(path.join(dir, '.loupe/sessions', sessionFile), 'utf8'));
    const rel = `.loupe/plans/${session.id}/${session.requests[0].correlation_id}.md`;
    expect(r.stderr).toContain(`(plan saved as ${rel};`);
    expect(await readFile(path.join(dir, rel), 'utf8')).toBe(`${PLAN}\n`);
    expect(session.requests[0]).toMatchObject({ mode: 'plan', status: 'done' });
  });

  it('refuses an unknown mode', { timeout: 60_000 }, async () => {
    const r = await loupe(['--cwd', await repo(), '--mode', 'yolo', 'x']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/--mode is act or plan/);
  });
});

describe('loupe run --queue', () => {
  it('sends further lines of stdin as queued messages, each after the last has ended, in one session', { timeout: 60_000 }, async () => {
    const dir = await repo();
    fx.llm.respondWith((req) => ({ content: `Answer to ${userPrompt(req)}.` }));
    try {
      const r = await loupe(['--cwd', dir, '--queue', 'first'], 'second\n\nthird\n');
      expect(r.code).toBe(0);
      expect(fx.llm.completions.map((c) => userPrompt(c))).toEqual(['first', 'second', 'third']);
      // Each saw the conversation before it.
      expect(fx.llm.completions[2].body.messages!.filter((m) => m.role !== 'system').map((m) => m.content)).toEqual(['first', 'Answer to first.', 'second', 'Answer to second.', 'third']);
      expect(r.stdout).toBe('Answer to first.\nAnswer to second.\nAnswer to third.\n');
      const [sessionFile] = await readdir(path.join(dir, '.loupe/sessions'));
      const session = JSON.parse(await readFile(path.join(dir, '.loupe/sessions', sessionFile), 'utf8'));
      expect(session.requests.map((q: { prompt: string }) => q.prompt)).toEqual(['first', 'second', 'third']);
    } finally {
      fx.llm.respondWith(null);
    }
  });

  it('without --queue, stdin is not read as messages', { timeout: 60_000 }, async () => {
    const dir = await repo();
    fx.llm.enqueue({ content: 'Only one.' });
    const r = await loupe(['--cwd', dir, 'first'], 'second\n');
    expect(r.code).toBe(0);
    expect(fx.llm.completions).toHaveLength(1);
  });
});
