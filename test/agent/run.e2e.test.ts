// `loupe run` end to end: the built CLI (`node bin/loupe.mjs run …`) against the scripted
// server, on a real temp git repo. Needs `npm run build` first.
import { readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import * as pty from 'node-pty';
import { describe, expect, it } from 'vitest';
import { BIN, runLoupe, useCliFixture, type CliResult } from '../support/cli';
import { git, until, writeTree } from '../support/tmp';
import { writeUserSettings } from '../support/userSettings';
import { call, toolMessages } from './agentHarness';

const fx = useCliFixture('loupe-run-');
let n = 0;

/** A git repo with a bug and a test that catches it. */
async function repo(): Promise<string> {
  const dir = path.join(fx.sandbox, `repo${++n}`);
  await writeTree(dir, {
    'calc.js': 'exports.add = (a, b) => a - b;\n',
    'test.js': "const assert = require('node:assert');\nassert.strictEqual(require('./calc').add(2, 3), 5);\nconsole.log('1 test passed');\n",
  });
  git(dir, 'init', '-q');
  git(dir, 'add', '.');
  git(dir, 'commit', '-qm', 'init');
  return dir;
}

/**
 * A Loupe home of its own, so the user's settings and keyring stay out of the test; "off" is a
 * home whose settings turn the sandbox off, for the tests about the questions a command asks.
 */
function home(sandbox?: 'off'): string {
  if (!sandbox) return path.join(fx.sandbox, 'home');
  const dir = path.join(fx.sandbox, 'home-sandbox-off');
  writeUserSettings(dir, { sandbox: 'off' });
  return dir;
}

function loupe(args: string[], env: Record<string, string | undefined> = {}, sandbox?: 'off'): Promise<CliResult> {
  const own = { LOUPE_HOME: home(sandbox), LOUPE_KEYCHAIN: 'off' };
  return runLoupe(['run', ...args], { env: { ...own, LOUPE_MODEL: 'scripted', OPENAI_BASE_URL: fx.llm.baseURL, OPENAI_API_KEY: 'k', ...env } });
}

const readEditTest = () => [
  { content: 'Reading the code.', toolCalls: [call('c1', 'read_file', { path: 'calc.js' })] },
  { toolCalls: [call('c2', 'edit_file', { path: 'calc.js', old_str: 'a - b', new_str: 'a + b' })] },
  { toolCalls: [call('c3', 'bash', { command: 'node test.js', description: 'run the tests' })] },
  { content: 'Fixed add(): it subtracted. The test passes now.' },
];

describe('loupe run', () => {
  it('--yes: read → edit → test on a real repo, prints the final answer, exit 0', async () => {
    const dir = await repo();
    fx.llm.enqueue(...readEditTest());
    const r = await loupe(['--cwd', dir, '--yes', 'fix add() in calc.js'], {}, 'off');
    expect(r.stderr).not.toMatch(/LLM_ERROR|INTERNAL/);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Reading the code\.\n→ read_file calc\.js\n {2}✓ read_file: /);
    expect(r.stdout).toMatch(/→ edit_file calc\.js\n {2}✓ edit_file/);
    expect(r.stdout).toMatch(/→ bash node test\.js\n {2}✓ bash: .*1 test passed/);
    expect(r.stdout.trimEnd().endsWith('Fixed add(): it subtracted. The test passes now.')).toBe(true);
    expect(r.stderr).toContain('(allowed by --yes: node test.js)');
    expect(await readFile(path.join(dir, 'calc.js'), 'utf8')).toBe('exports.add = (a, b) => a + b;\n');
    expect(git(dir, 'diff', '--cached', '--name-only').trim()).toBe('calc.js');
    expect(toolMessages(fx.llm.completions[3].body).c3).toContain('1 test passed');
    // One session file; the modification carries the request's correlation id and the session id.
    const [sessionFile] = await readdir(path.join(dir, '.loupe/sessions'));
    const session = JSON.parse(await readFile(path.join(dir, '.loupe/sessions', sessionFile), 'utf8'));
    const mod = JSON.parse((await readFile(path.join(dir, '.loupe/modifications.jsonl'), 'utf8')).split('\n')[0]);
    expect(mod).toMatchObject({ correlation_id: session.requests[0].correlation_id, session_id: session.id });
    expect(session).toMatchObject({ title: 'fix add() in calc.js', requests: [{ status: 'done' }] });
    expect(fx.llm.completions[0].body.messages?.[0].content).toContain(`Workspace root: ${dir}`);
  });

  it('--deny: refuses the unapproved command and the model is told which rule to add', async () => {
    const dir = await repo();
    fx.llm.enqueue({ toolCalls: [call('b1', 'bash', { command: 'node test.js', description: 'run the tests' })] }, { content: 'I could not run the tests.' });
    const r = await loupe(['--cwd', dir, '--deny', 'run the tests'], {}, 'off');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/ {2}✗ bash: PERMISSION_DENIED: /);
    const told = toolMessages(fx.llm.completions[1].body).b1;
    expect(told).toMatch(/PERMISSION_DENIED/);
    expect(told).toMatch(/nobody can approve it here\. To allow it, add \{"kind":"bash","pattern":"node test\.js \*","action":"allow"\}/);
  });

  it('ends its human output with the context used, the session’s tokens and the cost, from the server’s usage', async () => {
    const dir = await repo();
    const priced = path.join(fx.sandbox, 'home-priced');
    writeUserSettings(priced, { sandbox: 'off', llm: { models: { scripted: { input_usd_per_mtok: 3, output_usd_per_mtok: 15 } } } });
    fx.llm.enqueue(
      { toolCalls: [call('u1', 'read_file', { path: 'calc.js' })], usage: { prompt_tokens: 12_000, completion_tokens: 40, total_tokens: 12_040 } },
      { content: 'It subtracts.', usage: { prompt_tokens: 12_300, completion_tokens: 700, total_tokens: 13_000 } },
    );
    const r = await runLoupe(['run', '--cwd', dir, 'what does add() do?'], {
      env: { LOUPE_HOME: priced, LOUPE_KEYCHAIN: 'off', LOUPE_MODEL: 'scripted', OPENAI_BASE_URL: fx.llm.baseURL, OPENAI_API_KEY: 'k', LOUPE_CONTEXT_TOKENS: '100000' },
    });
    expect(r.code).toBe(0);
    // (24,300 × $3 + 740 × $15) / 1e6 = $0.0840
    expect(r.stderr).toContain('(context 13,000 / 100,000 tokens (13%) · session 24,300 in + 740 out · $0.08)\n');
    expect(r.stderr).not.toMatch(/estimated/);

    // The session's totals are saved with it: continued with --session, they go on counting.
    const session = r.stderr.match(/continue it with --session (ses-\S+)\)/)![1];
    fx.llm.enqueue({ content: 'Still subtracting.', usage: { prompt_tokens: 14_000, completion_tokens: 10, total_tokens: 14_010 } });
    const again = await runLoupe(['run', '--cwd', dir, '--session', session, 'and now?'], {
      env: { LOUPE_HOME: priced, LOUPE_KEYCHAIN: 'off', LOUPE_MODEL: 'scripted', OPENAI_BASE_URL: fx.llm.baseURL, OPENAI_API_KEY: 'k', LOUPE_CONTEXT_TOKENS: '100000' },
    });
    expect(again.code).toBe(0);
    // (38,300 × $3 + 750 × $15) / 1e6 = $0.126
    expect(again.stderr).toContain('(context 14,010 / 100,000 tokens (14%) · session 38,300 in + 750 out · $0.13)\n');
    // Two runs of the CLI: on this loaded machine they took 19 s of the default 20.
  }, 60_000);

  it('--json: every line of stdout is one parseable event, from request_started to request_finished', async () => {
    const dir = await repo();
    fx.llm.enqueue(...readEditTest());
    const r = await loupe(['--cwd', dir, '--yes', '--json', 'fix add()']);
    expect(r.code).toBe(0);
    const events = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(events[0]).toMatchObject({ type: 'request_started', prompt: 'fix add()', session_id: expect.stringMatching(/^ses-/) });
    expect(events.at(-1)).toMatchObject({ type: 'request_finished', status: 'done', text: 'Fixed add(): it subtracted. The test passes now.', turns: 4 });
    expect(events.every((e) => typeof e.t === 'number' && e.correlation_id === events[0].correlation_id)).toBe(true);
    expect(events.filter((e) => e.type === 'tool_call_finished').map((e) => [e.tool, e.ok])).toEqual([
      ['read_file', true],
      ['edit_file', true],
      ['bash', true],
    ]);
    expect(r.stderr).toBe('');
  });

  it('resumes a session with --session, and exits non-zero at the turn limit', async () => {
    const dir = await repo();
    fx.llm.enqueue({ content: 'first answer' });
    const first = await loupe(['--cwd', dir, '--json', 'remember the word pelican']);
    const sessionId = JSON.parse(first.stdout.split('\n')[0]).session_id as string;
    fx.llm.requests.length = 0;
    fx.llm.enqueue({ toolCalls: [call('l1', 'list_files', { pattern: '*.js' })] });
    const second = await loupe(['--cwd', dir, '--session', sessionId, 'what was the word?'], { LOUPE_MAX_TURNS: '1' });
    expect(second.code).toBe(3);
    expect(second.stderr).toMatch(/Stopped after 1 model turns without a final answer/);
    const messages = fx.llm.completions[0].body.messages!.map((m) => m.content);
    expect(messages).toEqual(expect.arrayContaining(['remember the word pelican', 'first answer', 'what was the word?']));
    const session = JSON.parse(await readFile(path.join(dir, '.loupe/sessions', `${sessionId}.json`), 'utf8'));
    expect(session.requests.map((q: { status: string }) => q.status)).toEqual(['done', 'turn_limit']);
  });

  it('without a model: exit 1 with LLM_ERROR saying how to connect one; bad usage: exit 1 with the usage', async () => {
    const dir = await repo();
    const r = await loupe(['--cwd', dir, 'hello'], { LOUPE_MODEL: undefined, OPENAI_BASE_URL: undefined });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/LLM_ERROR: No model is connected\. Set LOUPE_MODEL/);
    expect(fx.llm.requests).toHaveLength(0);
    const bad = await loupe(['--yes', '--deny', 'x']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--yes and --deny exclude each other\. Usage: loupe run/);
  });

  it('uses the model and API key saved in the app, with no environment variables', async () => {
    const dir = await repo();
    await writeTree(path.join(fx.sandbox, 'home'), {
      'settings.json': JSON.stringify({ llm: { base_url: fx.llm.baseURL, model: 'scripted', api_key: 'sk-saved-in-the-app' } }),
    });
    try {
      fx.llm.enqueue({ content: 'hello from the saved model' });
      const r = await loupe(['--cwd', dir, 'hello'], { LOUPE_MODEL: undefined, OPENAI_BASE_URL: undefined, OPENAI_API_KEY: undefined });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('hello from the saved model');
      expect(fx.llm.requests.at(-1)?.headers.authorization).toBe('Bearer sk-saved-in-the-app');
    } finally {
      await rm(path.join(fx.sandbox, 'home', 'settings.json'), { force: true });
    }
  });

  it('asks on the terminal when stdin is interactive: "once" runs the command', async () => {
    const dir = await repo();
    fx.llm.enqueue({ toolCalls: [call('b1', 'bash', { command: 'node test.js', description: 'run the tests' })] }, { content: 'Tests ran.' });
    const env = { ...process.env, LOUPE_HOME: home('off'), LOUPE_KEYCHAIN: 'off', LOUPE_MODEL: 'scripted', OPENAI_BASE_URL: fx.llm.baseURL, OPENAI_API_KEY: 'k' } as Record<string, string>;
    const term = pty.spawn(process.execPath, [BIN, 'run', '--cwd', dir, 'run the tests'], { cols: 200, rows: 40, cwd: dir, env });
    let screen = '';
    term.onData((d) => (screen += d));
    const exited = new Promise<number>((resolve) => term.onExit((e) => resolve(e.exitCode)));
    await until(() => screen.includes('Allow [o]nce'), 15_000);
    expect(screen).toMatch(/\? bash wants to run: node test\.js/);
    expect(screen).toContain('[a]lways (adds {"kind":"bash","pattern":"node test.js *","action":"allow"})');
    term.write('o\r');
    expect(await exited).toBe(0);
    // It ran (and failed: the bug is still there), as the model is told.
    expect(screen).toMatch(/✓ bash: .*AssertionError/);
    expect(toolMessages(fx.llm.completions[1].body).b1).toMatch(/AssertionError[\s\S]*exit/i);
  });

  it('in edits.mode "ask" an interactive run shows the diff before writing, and a denial writes nothing', async () => {
    const dir = await repo();
    await writeTree(dir, { '.loupe/config.json': JSON.stringify({ edits: { mode: 'ask' } }) });
    fx.llm.enqueue(
      { toolCalls: [call('r1', 'read_file', { path: 'calc.js' })] },
      { toolCalls: [call('e1', 'edit_file', { path: 'calc.js', old_str: 'a - b', new_str: 'a + b' })] },
      { content: 'Left it alone.' },
    );
    const env = { ...process.env, LOUPE_HOME: home(), LOUPE_KEYCHAIN: 'off', LOUPE_MODEL: 'scripted', OPENAI_BASE_URL: fx.llm.baseURL, OPENAI_API_KEY: 'k' } as Record<string, string>;
    const term = pty.spawn(process.execPath, [BIN, 'run', '--cwd', dir, 'fix add'], { cols: 200, rows: 40, cwd: dir, env });
    let screen = '';
    term.onData((d) => (screen += d));
    const exited = new Promise<number>((resolve) => term.onExit((e) => resolve(e.exitCode)));
    await until(() => screen.includes('Allow [o]nce'), 15_000);
    expect(screen).toContain('? edit_file wants to edit calc.js');
    expect(screen).toContain('  | -exports.add = (a, b) => a - b;');
    expect(screen).toContain('  | +exports.add = (a, b) => a + b;');
    term.write('d\r');
    await until(() => screen.includes('Message for the agent'), 15_000);
    term.write('not now\r');
    expect(await exited).toBe(0);
    expect(await readFile(path.join(dir, 'calc.js'), 'utf8')).toBe('exports.add = (a, b) => a - b;\n');
    expect(toolMessages(fx.llm.completions[2].body).e1).toContain('not now');
  });
});
