// Steering the conversation, end to end in Chromium against the scripted server: edit and resend
// forks and the old branch can be shown again; a message typed while the agent works is queued
// (editable, removable) and "Send now" gives it to the model at the next tool boundary; Stop
// during a streamed answer keeps the text and says what was cancelled; plan mode refuses writes
// (the folder stays as it was), shows the plan, and "Execute plan" runs it. Needs `npm run build`.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { rgPath } from '@vscode/ripgrep';
import { startScriptedLlm, userPrompt, type RecordedRequest, type ScriptedLlm, type ScriptedReply } from '../test/support/scriptedLlm';
import { startServe, type Served } from './support/serve';

let root: string;
let project: string;
let served: Served;
let llm: ScriptedLlm;
const SHOTS = path.resolve('test-results', 'steer');
const APP = 'export const add = (a, b) => a - b;\n';
const REFUSED = ['rm src/app.js', "sed -i 's/a - b/a + b/' src/app.js", 'git commit --allow-empty -m x', 'npm install'];
const ALLOWED = ['ls src', 'git log --oneline', 'rg "a - b"'];
const PLAN = '## Plan\n\n1. In `src/app.js`, return `a + b`.\n2. Check with `node -e`.';

/** Released by the test: the first turn of "steer me" waits until a message is queued and sent now. */
let release: () => void = () => {};
let held = new Promise<void>((r) => (release = r));

const messagesOf = (req: RecordedRequest) => req.body.messages ?? [];
const lastOf = (req: RecordedRequest) => messagesOf(req).at(-1);

async function script(req: RecordedRequest): Promise<ScriptedReply> {
  const prompt = userPrompt(req);
  const last = lastOf(req);
  const afterTool = last?.role === 'tool';
  // A steering message is the last user message of its request: the request is known by its first words.
  if (messagesOf(req).some((m) => m.role === 'user' && m.content === 'steer me')) {
    if (!messagesOf(req).some((m) => m.role === 'tool')) {
      await held;
      return { toolCalls: [{ name: 'read_file', arguments: JSON.stringify({ path: 'src/app.js' }) }] };
    }
    return { content: last?.role === 'user' ? `Steered by: ${String(last.content)}` : 'Not steered.' };
  }
  if (prompt.startsWith('talk long')) return { content: 'The first part of a long answer that never finishes because the person stops it', stallAfterFrames: 8 };
  if (prompt.startsWith('plan the fix')) {
    if (!afterTool)
      return {
        toolCalls: [
          { name: 'read_file', arguments: JSON.stringify({ path: 'src/app.js' }) },
          { name: 'edit_file', arguments: JSON.stringify({ path: 'src/app.js', old_str: 'a - b', new_str: 'a + b' }) },
          { name: 'write_file', arguments: JSON.stringify({ path: 'notes.md', content: 'x\n' }) },
          ...REFUSED.map((command) => ({ name: 'bash', arguments: JSON.stringify({ command, description: 'try' }) })),
          ...ALLOWED.map((command) => ({ name: 'bash', arguments: JSON.stringify({ command, description: 'look' }) })),
        ],
      };
    return { content: PLAN };
  }
  if (prompt.startsWith('Execute the plan.')) {
    if (!afterTool) return { toolCalls: [{ name: 'edit_file', arguments: JSON.stringify({ path: 'src/app.js', old_str: 'a - b', new_str: 'a + b', reason: 'Fix add' }) }] };
    return { content: 'Plan carried out.' };
  }
  return { content: `Answer: ${prompt}.` };
}

const disk = (rel: string) => readFile(path.join(project, rel), 'utf8');
const userMessages = (page: Page) => page.locator('[data-testid="chat-message"][data-role="user"]');
const userMessage = (page: Page, text: string) => page.locator('.chat-user').filter({ has: page.locator('[data-testid="chat-message"][data-role="user"]', { hasText: text }) });
const idle = (page: Page) => expect(page.getByTestId('chat-send')).toBeVisible({ timeout: 30_000 });

async function ask(page: Page, text: string, answer = `Answer: ${text}.`) {
  await page.getByTestId('chat-input').fill(text);
  await page.getByTestId('chat-input').press('Enter');
  await expect(page.getByTestId('chat-message').filter({ hasText: answer })).toBeVisible({ timeout: 30_000 });
  await idle(page);
}

async function shoot(page: Page, name: string) {
  for (const [w, h] of [
    [1024, 700],
    [1920, 1080],
  ]) {
    await page.setViewportSize({ width: w, height: h });
    await page.screenshot({ path: path.join(SHOTS, `${name}-${w}x${h}.png`) });
  }
}

test.beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'loupe-e2e-steer-')));
  project = path.join(root, 'steer-project');
  await mkdir(path.join(project, 'src'), { recursive: true });
  await writeFile(path.join(project, 'src/app.js'), APP);
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=e@x', '-c', 'user.name=E', ...args], { cwd: project });
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'init');
  llm = await startScriptedLlm(script);
  // `rg` as a person's shell has it: the ripgrep Loupe ships.
  served = await startServe(project, { OPENAI_BASE_URL: llm.baseURL, LOUPE_MODEL: 'scripted', OPENAI_API_KEY: 'sk-env', PATH: `${path.dirname(rgPath)}:${process.env.PATH}` });
  await mkdir(SHOTS, { recursive: true });
});

test.afterAll(async () => {
  release();
  await served?.stop();
  await llm?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

async function open(page: Page) {
  await page.goto(served.url);
  await expect(page.getByTestId('workspace-root')).toContainText('steer-project');
  await page.getByTestId('agent-tab').click();
}

test('edit and resend forks the conversation; the old branch can be shown again, by keyboard too', async ({ page }) => {
  test.setTimeout(120_000);
  await open(page);
  await ask(page, 'first draft');
  await ask(page, 'a follow-up');
  // Edit the first message: the conversation forks before it.
  await userMessage(page, 'first draft').hover();
  await userMessage(page, 'first draft').getByTestId('message-edit').click();
  // The fork offers that request's undo first: its preview, which changes nothing until chosen.
  await page.getByTestId('message-edit-undo').click();
  await expect(page.getByTestId('undo-preview')).toBeVisible();
  await page.getByTestId('undo-cancel').click();
  await expect(page.getByTestId('undo-preview')).toBeHidden();
  const input = page.getByTestId('message-edit-input');
  await input.fill('second draft');
  await shoot(page, 'edit');
  await input.press('Enter');
  await expect(page.getByTestId('chat-message').filter({ hasText: 'Answer: second draft.' })).toBeVisible({ timeout: 30_000 });
  await idle(page);
  // The server got the edited message with nothing of the old branch before it.
  const last = llm.requests.at(-1)!;
  expect(messagesOf(last).filter((m) => m.role !== 'system').map((m) => m.content)).toEqual(['second draft']);
  await expect(userMessages(page)).toHaveText(['second draft']);
  const sw = userMessage(page, 'second draft').getByTestId('branch-switch');
  await expect(sw).toContainText('2/2');
  await shoot(page, 'forked');
  // Back to the old branch, whole: its follow-up and answers.
  await sw.getByRole('button', { name: 'Previous version' }).click();
  await expect(userMessages(page)).toHaveText(['first draft', 'a follow-up']);
  await expect(page.getByTestId('chat-message').filter({ hasText: 'Answer: a follow-up.' })).toBeVisible();
  await expect(userMessage(page, 'first draft').getByTestId('branch-switch')).toContainText('1/2');
  // And forward again with the keyboard.
  await userMessage(page, 'first draft').getByRole('button', { name: 'Next version' }).focus();
  await page.keyboard.press('Enter');
  await expect(userMessages(page)).toHaveText(['second draft']);
  // A reload shows the branch last chosen.
  await page.reload();
  await page.getByTestId('agent-tab').click();
  await expect(userMessages(page)).toHaveText(['second draft']);
});

test('a message typed while the agent works is queued, editable and removable; Send now gives it to the model at the next tool boundary', async ({ page }) => {
  test.setTimeout(120_000);
  await open(page);
  await page.getByTestId('chat-new-session').click();
  await page.getByTestId('chat-input').fill('steer me');
  await page.getByTestId('chat-input').press('Enter');
  await expect(page.getByTestId('chat-stop')).toBeVisible();
  // Typed while it works: queued, shown pending, not sent.
  await page.getByTestId('chat-input').fill('also check the tests');
  await page.getByTestId('chat-input').press('Enter');
  await page.getByTestId('chat-input').fill('a message to drop');
  await page.getByTestId('chat-queue').click();
  const queued = page.getByTestId('queued-message');
  await expect(queued).toHaveCount(2);
  await expect(queued.first()).toContainText('also check the tests');
  // Edited in place…
  await queued.first().getByRole('button', { name: /also check the tests/ }).click();
  await page.getByTestId('queued-edit').fill('also check the subtraction');
  await page.getByTestId('queued-edit').press('Enter');
  await expect(queued.first()).toContainText('also check the subtraction');
  // …and removed.
  await queued.nth(1).getByTestId('queued-remove').click();
  await expect(queued).toHaveCount(1);
  await queued.first().getByTestId('send-now').click();
  await expect(queued.first()).toHaveAttribute('data-steer', 'true');
  await shoot(page, 'queued');
  const before = llm.requests.length;
  release();
  await expect(page.getByTestId('chat-message').filter({ hasText: 'Steered by: also check the subtraction' })).toBeVisible({ timeout: 30_000 });
  await idle(page);
  // The server received it at the tool boundary: after the read's result, in the same request.
  const boundary = llm.requests[before];
  expect(messagesOf(boundary).slice(-3).map((m) => m.role)).toEqual(['assistant', 'tool', 'user']);
  expect(lastOf(boundary)).toMatchObject({ role: 'user', content: 'also check the subtraction' });
  expect(llm.requests.slice(before)).toHaveLength(1);
  await expect(queued).toHaveCount(0);
  await expect(page.locator('.chat-user.steer')).toContainText('also check the subtraction');
  held = new Promise<void>((r) => (release = r));
});

test('Stop during a streamed answer keeps the text and says what was cancelled', async ({ page }) => {
  test.setTimeout(90_000);
  await open(page);
  await page.getByTestId('chat-new-session').click();
  await page.getByTestId('chat-input').fill('talk long');
  await page.getByTestId('chat-input').press('Enter');
  const answer = page.locator('[data-testid="chat-message"][data-role="assistant"]').filter({ hasText: 'The first part' });
  await expect(answer).toBeVisible({ timeout: 30_000 });
  await page.getByTestId('chat-stop').click();
  await expect(page.getByText(/Stopped by the user\. The answer so far \(\d+ characters\) is kept\./)).toBeVisible();
  await idle(page);
  await expect(answer).toBeVisible();
  await shoot(page, 'stopped');
});

test('plan mode: reads run, writes are refused and the folder stays; the plan card executes the plan and the edit lands under its correlation', async ({ page }) => {
  test.setTimeout(150_000);
  await open(page);
  await page.getByTestId('chat-new-session').click();
  const mode = page.getByTestId('mode-switch');
  await expect(mode).toHaveAttribute('data-mode', 'act');
  await mode.focus();
  await page.keyboard.press('Enter');
  await expect(mode).toHaveAttribute('data-mode', 'plan');
  await page.getByTestId('chat-input').fill('plan the fix of add');
  await page.getByTestId('chat-input').press('Enter');
  const card = page.getByTestId('plan-card');
  await expect(card).toBeVisible({ timeout: 60_000 });
  await expect(card).toContainText('return a + b');
  await idle(page);
  // The model read the file and the history; the edit and the rm were refused by the mode.
  const afterTools = llm.requests.filter((r) => userPrompt(r).startsWith('plan the fix')).at(-1)!;
  const tools = messagesOf(afterTools).filter((m) => m.role === 'tool').map((m) => String(m.content));
  expect(tools[0]).toContain('a - b');
  // edit_file, write_file and the four writing commands, refused by the mode.
  for (const t of tools.slice(1, 7)) expect(t).toMatch(/Refused by plan mode/);
  expect(tools[7]).toContain('app.js');
  expect(tools[8]).toContain('init');
  expect(tools[9]).toContain('app.js');
  expect(await disk('src/app.js')).toBe(APP);
  expect(execFileSync('git', ['rev-list', '--count', 'HEAD'], { cwd: project, encoding: 'utf8' }).trim()).toBe('1');
  expect(execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: project, encoding: 'utf8' }).split('\n').filter((l) => l && !l.includes('.loupe/'))).toEqual([]);
  await shoot(page, 'plan');
  // Execute plan: act mode, the plan sent, the edit lands.
  await card.getByTestId('plan-execute').click();
  await expect(mode).toHaveAttribute('data-mode', 'act');
  await expect(page.getByTestId('chat-message').filter({ hasText: 'Plan carried out.' })).toBeVisible({ timeout: 60_000 });
  await idle(page);
  expect(await disk('src/app.js')).toBe('export const add = (a, b) => a + b;\n');
  const exec = llm.requests.find((r) => userPrompt(r).startsWith('Execute the plan.'))!;
  expect(userPrompt(exec)).toContain('return `a + b`');
  // The edit carries the planning request's correlation id.
  const sessions = path.join(project, '.loupe', 'sessions');
  const records = await Promise.all((await readdir(sessions)).filter((f) => f.endsWith('.json')).map(async (f) => JSON.parse(await readFile(path.join(sessions, f), 'utf8'))));
  const planned = records.flatMap((r) => r.requests).find((q: { mode?: string; prompt: string }) => q.mode === 'plan');
  const mods = (await disk('.loupe/modifications.jsonl')).trim().split('\n').map((l) => JSON.parse(l));
  expect(mods.filter((m) => m.file === 'src/app.js').map((m) => m.correlation_id)).toContain(planned.correlation_id);
  await shoot(page, 'executed');
});
