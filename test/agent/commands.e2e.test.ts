// Slash commands end to end: `loupe run "/name args"` (the built CLI) in a copy of the skills
// test repository, with a person's home of their own, against the scripted model. What the model
// receives is what each dialect makes of the file; `--json` carries `command_expanded`; a
// repository command's shell line runs only through the gate. Needs `npm run build` first.
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatEvent } from '../../src/shared/contract';
import * as pty from 'node-pty';
import { BIN, runLoupe, useCliFixture } from '../support/cli';
import { userPrompt } from '../support/scriptedLlm';
import { skillsWorld, type SkillsWorld } from '../support/skillsFixture';
import { git, until } from '../support/tmp';
import { writeUserSettings } from '../support/userSettings';

const fx = useCliFixture('loupe-commands-');
let world: SkillsWorld | null = null;
afterEach(async () => {
  await world?.cleanup();
  world = null;
});

async function repo(settings: Record<string, unknown> = {}): Promise<SkillsWorld> {
  world = await skillsWorld();
  git(world.root, 'init', '-q');
  git(world.root, 'add', '.');
  git(world.root, 'commit', '-qm', 'init');
  writeUserSettings(world.configDir, settings);
  return world;
}

async function run(w: SkillsWorld, text: string, flags: string[] = ['--deny']) {
  const r = await runLoupe(['run', '--cwd', w.root, '--json', ...flags, text], {
    env: { HOME: w.home, LOUPE_HOME: w.configDir, LOUPE_KEYCHAIN: 'off', LOUPE_MODEL: 'scripted', OPENAI_BASE_URL: fx.llm.baseURL, OPENAI_API_KEY: 'k' },
  });
  const events: ChatEvent[] = r.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  return { ...r, events, sent: fx.llm.completions.map(userPrompt) };
}

const expandedOf = (events: ChatEvent[]) => events.filter((e): e is Extract<ChatEvent, { type: 'command_expanded' }> => e.type === 'command_expanded');

describe('loupe run "/name args"', () => {
  it('expands a Claude Code command (a subfolder gives ns:name, $0 is the first argument) and says so in --json', async () => {
    const w = await repo();
    fx.llm.enqueue({ content: 'Made it.' });
    const { code, events, sent } = await run(w, '/frontend:component Button primary');
    expect(code).toBe(0);
    const [expanded] = expandedOf(events);
    const text = 'Create the component Button of kind primary (asked as: Button primary). Missing third: $2.';
    expect(expanded).toMatchObject({ type: 'command_expanded', name: 'frontend:component', source: 'repository', text });
    expect(Object.keys(expanded).sort()).toEqual(['correlation_id', 'name', 'source', 't', 'text', 'type']);
    // What the model is sent is the expansion, word for word.
    expect(sent).toEqual([text]);
    expect(events.find((e) => e.type === 'request_started')).toMatchObject({ prompt: text });
  });

  it('each dialect numbers its arguments its own way: OpenCode, Codex (the person’s), Cursor', async () => {
    const w = await repo();
    fx.llm.enqueue({ content: '1' }, { content: '2' }, { content: '3' });
    expect(expandedOf((await run(w, '/team/review src/app.ts naming and error paths')).events)[0].text).toBe('Review src/app.ts against the team checklist; focus on: naming and error paths');
    expect(expandedOf((await run(w, '/explain src/app.ts "two levels"')).events)[0]).toMatchObject({ source: 'personal', text: 'Explain src/app.ts at depth two levels to a newcomer; all: src/app.ts two levels; costs $5.' });
    expect(expandedOf((await run(w, '/tidy src/app.ts')).events)[0].text).toBe('# Tidy imports\n\nSort and group the imports of the files I name.\n\nsrc/app.ts');
  });

  it('the person’s own command wins over the repository’s of the same name', async () => {
    const w = await repo();
    fx.llm.enqueue({ content: 'ok' });
    const [e] = expandedOf((await run(w, '/commit small fix')).events);
    expect(e).toMatchObject({ name: 'commit', source: 'personal', text: 'My way of committing: small fix' });
  });

  it('`@path` attaches the file through the read rules; a denied one refuses the request before anything is sent', async () => {
    const w = await repo();
    fx.llm.enqueue({ content: 'ok' });
    const ok = await run(w, '/read-style src/app.ts');
    expect(ok.code).toBe(0);
    expect(fx.llm.completions).toHaveLength(1);
    const message = JSON.stringify(fx.llm.completions[0].body.messages);
    expect(message).toContain('<attached_file path=\\"docs/conventions.md\\">');
    expect(message).toContain('MARK-STYLE-DOC');
    fx.llm.requests.length = 0;
    writeUserSettings(w.configDir, { permissions: [{ kind: 'read', pattern: 'docs/**', action: 'deny' }] });
    const refused = await run(w, '/read-style src/app.ts');
    expect(refused.code).not.toBe(0);
    expect(refused.events.find((e) => e.type === 'error')).toMatchObject({ code: 'PERMISSION_DENIED', message: expect.stringContaining('docs/conventions.md cannot be attached: a read rule denies reading docs/conventions.md') });
    expect(fx.llm.completions).toHaveLength(0);
  });

  it('VS Code inputs: given as name=value, or refused clearly where nobody can be asked', async () => {
    const w = await repo();
    const refused = await run(w, '/react-form');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('/react-form needs formName: give it as name=value after the command, or answer when asked.');
    expect(fx.llm.completions).toHaveLength(0);
    fx.llm.enqueue({ content: 'ok' });
    const [e] = expandedOf((await run(w, '/react-form formName=Signup with a captcha')).events);
    expect(e.text).toBe(`Generate a form component named Signup in ${path.basename(w.root)}.\nUse the design notes in [the guide](../../docs/conventions.md).\n\nwith a captcha`);
  });

  it('VS Code inputs on an interactive terminal: asked for, then sent', async () => {
    const w = await repo();
    fx.llm.enqueue({ content: 'ok' });
    const env = { ...process.env, HOME: w.home, LOUPE_HOME: w.configDir, LOUPE_KEYCHAIN: 'off', LOUPE_MODEL: 'scripted', OPENAI_BASE_URL: fx.llm.baseURL, OPENAI_API_KEY: 'k' } as Record<string, string>;
    const term = pty.spawn(process.execPath, [BIN, 'run', '--cwd', w.root, '/react-form'], { cols: 200, rows: 40, cwd: w.root, env });
    let screen = '';
    term.onData((d) => (screen += d));
    const exited = new Promise<number>((resolve) => term.onExit((e) => resolve(e.exitCode)));
    await until(() => screen.includes('? formName (Name of the form): '), 15_000);
    term.write('Checkout\r');
    expect(await exited).toBe(0);
    expect(userPrompt(fx.llm.completions[0])).toBe(`Generate a form component named Checkout in ${path.basename(w.root)}.\nUse the design notes in [the guide](../../docs/conventions.md).`);
  });

  it('a built-in answers without a model: /skills lists skills and commands with their problems', async () => {
    const w = await repo();
    const r = await run(w, '/skills');
    expect(r.code).toBe(0);
    expect(fx.llm.completions).toHaveLength(0);
    const notice = r.events.find((e) => e.type === 'notice');
    const text = notice?.type === 'notice' ? notice.text : '';
    expect(text).toMatch(/Skills \(9, and 1 not used\):/);
    expect(text).toMatch(/- \/shared-name \(the repository's, \.opencode\/skills\/shared-name\/SKILL\.md\): .*\n {2}! not used: ~\/\.claude\/skills\/shared-name is/);
    expect(text).toContain('- /api-guide (the repository\'s, .claude/skills/api-guide/SKILL.md): Reference for the Widgets HTTP API');
    expect(text).toMatch(/\/colon-trap .*\n {2}! the front matter is not valid YAML/);
    expect(text).toContain('/commit (yours, ~/.claude/commands/commit.md)');
    expect(text).toContain('Built in: /undo, /plan, /compact, /clear, /skills.');
  });

  it('a skill called by its name sends its body, with where its files are', async () => {
    const w = await repo();
    fx.llm.enqueue({ content: 'ok' });
    const [e] = expandedOf((await run(w, '/pdf-tools report.pdf')).events);
    expect(e).toMatchObject({ name: 'pdf-tools', source: 'repository' });
    expect(e.text).toContain('MARK-PDF-TOOLS-BODY');
    expect(e.text).toContain('Skill folder: .github/skills/pdf-tools');
    expect(e.text).toContain('ARGUMENTS: report.pdf');
  });
});

describe("a command's allowed-tools", () => {
  it("the person's own apply to its shell lines; a repository's are ignored in an untrusted folder", async () => {
    const w = await repo({ sandbox: 'off' });
    await writeFile(path.join(w.home, '.claude/commands/status.md'), '---\nallowed-tools: Bash(git status:*)\n---\nStatus: !`git status --short`\n');
    await writeFile(path.join(w.root, '.claude/commands/repo-status.md'), '---\nallowed-tools: Bash(git status:*)\n---\nStatus: !`git status --short`\n');
    fx.llm.enqueue({ content: 'ok' });
    const mine = await run(w, '/status', ['--deny']);
    expect(mine.code).toBe(0);
    expect(mine.events.find((e) => e.type === 'tool_call_finished')).toMatchObject({ tool: 'bash', ok: true });
    expect(mine.events.find((e) => e.type === 'notice')).toMatchObject({ text: '/status: its allowed-tools apply while it is in use: allow bash "git status *".' });
    const theirs = await run(w, '/repo-status', ['--deny']);
    expect(theirs.code).toBe(1);
    expect(theirs.events.find((e) => e.type === 'notice')).toMatchObject({ text: expect.stringMatching(/^\/repo-status: its allowed-tools are ignored: it is the repository's and this folder is not trusted/) });
    expect(theirs.events.find((e) => e.type === 'tool_call_finished')).toMatchObject({ tool: 'bash', ok: false, error: { code: 'PERMISSION_DENIED' } });
  });
});

describe('the built-ins that act in the host', () => {
  it('/undo undoes the session’s last request with changes; /compact summarises the conversation', async () => {
    const w = await repo();
    fx.llm.enqueue({ toolCalls: [{ id: 'w1', name: 'write_file', arguments: JSON.stringify({ path: 'NOTES.md', content: 'made by the agent\n' }) }] }, { content: 'Wrote it.' });
    const first = await run(w, 'write the notes');
    expect(first.code).toBe(0);
    expect(existsSync(path.join(w.root, 'NOTES.md'))).toBe(true);
    const session = first.events.find((e) => e.type === 'request_started');
    const id = session?.type === 'request_started' ? session.session_id : '';
    fx.llm.enqueue({ content: 'Second answer.' });
    expect((await run(w, 'and explain them', ['--deny', '--session', id])).code).toBe(0);

    // A summary of everything before the last exchange, asked of the model once.
    fx.llm.requests.length = 0;
    fx.llm.enqueue({ content: 'SUMMARY: the agent wrote NOTES.md.' });
    const compacted = await run(w, '/compact', ['--deny', '--session', id]);
    expect(compacted.code).toBe(0);
    expect(fx.llm.completions).toHaveLength(1);
    expect(compacted.events.find((e) => e.type === 'compacted')).toMatchObject({ mode: 'summary', summary: 'SUMMARY: the agent wrote NOTES.md.' });

    const undone = await run(w, '/undo', ['--deny', '--session', id]);
    expect(undone.code).toBe(0);
    expect(undone.events.find((e) => e.type === 'notice')).toMatchObject({ text: expect.stringMatching(/^Undid the changes of “write the notes” in 1 file \(group /) });
    expect(existsSync(path.join(w.root, 'NOTES.md'))).toBe(false);
  });
});

describe("a repository command's shell line", () => {
  it('is asked before it runs, even where the sandbox would contain it: refused, nothing runs and nothing is sent', async () => {
    const w = await repo();
    const r = await run(w, '/mark', ['--deny']);
    expect(r.code).toBe(1);
    expect(existsSync(path.join(w.root, 'MARK'))).toBe(false);
    expect(fx.llm.completions).toHaveLength(0);
    const finished = r.events.find((e) => e.type === 'tool_call_finished');
    expect(finished).toMatchObject({ tool: 'bash', ok: false, error: { code: 'PERMISSION_DENIED' } });
    expect(r.events.find((e) => e.type === 'error')).toMatchObject({ code: 'PERMISSION_DENIED', message: expect.stringMatching(/^\/mark was not sent: `touch MARK && echo marked`:/) });
  });

  it('while the same line in a command of the person’s own runs in the sandbox without a question', async () => {
    const w = await repo();
    await writeFile(path.join(w.home, '.claude/commands/mymark.md'), 'Mine: !`touch MARK2 && echo mine`\n');
    fx.llm.enqueue({ content: 'done' });
    const r = await run(w, '/mymark', ['--deny']);
    expect(r.code).toBe(0);
    expect(r.events.find((e) => e.type === 'tool_call_finished')).toMatchObject({ tool: 'bash', ok: true, data: { sandboxed: true } });
    expect(existsSync(path.join(w.root, 'MARK2'))).toBe(true);
    expect(expandedOf(r.events)[0]).toMatchObject({ source: 'personal', text: 'Mine: mine' });
  });

  it('runs once allowed, as a recorded command of the request, and its output is in the prompt', async () => {
    const w = await repo();
    fx.llm.enqueue({ content: 'done' });
    const r = await run(w, '/mark', ['--yes']);
    expect(r.code).toBe(0);
    expect(existsSync(path.join(w.root, 'MARK'))).toBe(true);
    expect(r.events.find((x) => x.type === 'tool_call_finished')).toMatchObject({ tool: 'bash', ok: true });
    const [e] = expandedOf(r.events);
    expect(e.text).toBe('Before you start, the marker: marked\nThen say done.');
    expect(r.sent).toEqual([e.text]);
    // The file it made is a modification of that request, like any command's.
    const log = await readFile(path.join(w.root, '.loupe', 'modifications.jsonl'), 'utf8');
    const start = r.events.find((x) => x.type === 'request_started')!;
    expect(log).toContain('"file":"MARK"');
    expect(log).toContain(`"correlation_id":"${start.correlation_id}"`);
  });

  it("Gemini's !{…} gets the argument shell-quoted, and @{…} the file's text in place", async () => {
    const w = await repo({ sandbox: 'off' });
    git(w.root, 'commit', '-q', '--allow-empty', '-m', 'parser: faster tokens');
    fx.llm.enqueue({ content: 'ok' });
    const r = await run(w, "/git:summary parser", ['--yes']);
    expect(r.code).toBe(0);
    const started = r.events.find((e) => e.type === 'tool_call_started');
    expect(started).toMatchObject({ tool: 'bash', summary: "git log --oneline -n 3 --grep='parser'" });
    const [e] = expandedOf(r.events);
    expect(e.text).toMatch(/^Summarise the recent work on parser\.\n\nRecent commits:\n[0-9a-f]{7,} parser: faster tokens\n\nStyle notes:\nUse tabs\. Name things plainly\. MARK-STYLE-DOC/);
  });
});
