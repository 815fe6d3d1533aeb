// Undo a whole request, end to end in Chromium: three requests (an edit, a command that writes
// two files, a new file), "Undo changes from here" on the second shows a preview and then takes
// back the second and the third; the timeline shows the undo's group and the command's rows with
// their diff; Redo puts everything back. A person's edit made since shows as a conflict in the
// preview and nothing changes until they choose. Needs `npm run build` first.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { startScriptedLlm, userPrompt, type RecordedRequest, type ScriptedLlm, type ScriptedReply } from '../test/support/scriptedLlm';
import { startServe, type Served } from './support/serve';

let root: string;
let project: string;
let served: Served;
let llm: ScriptedLlm;
const SHOTS = path.resolve('test-results', 'rewind');

const NOTES = 'one\ntwo\nthree\n';

function script(req: RecordedRequest): ScriptedReply {
  const messages = req.body.messages ?? [];
  const last = messages[messages.length - 1];
  const prompt = userPrompt(req);
  if (last?.role === 'tool') {
    const lastCall = [...messages].reverse().find((m) => m.role === 'assistant' && m.tool_calls?.length)?.tool_calls?.[0]?.function.name;
    if (lastCall === 'read_file') return { toolCalls: [{ name: 'edit_file', arguments: JSON.stringify({ path: 'src/app.ts', old_str: 'v1', new_str: 'v2', reason: 'Bump' }) }] };
    return { content: `Done: ${prompt}.` };
  }
  if (prompt.startsWith('first')) return { toolCalls: [{ name: 'read_file', arguments: JSON.stringify({ path: 'src/app.ts' }) }] };
  if (prompt.startsWith('second'))
    return { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: "printf 'generated\\n' > src/gen.txt && sed -i 's/two/TWO/' notes.md", description: 'Generate and fix notes' }) }] };
  if (prompt.startsWith('third')) return { toolCalls: [{ name: 'write_file', arguments: JSON.stringify({ path: 'src/third.ts', content: 'export const third = 3;\n' }) }] };
  return { content: 'Hello.' };
}

const disk = (rel: string) => readFile(path.join(project, rel), 'utf8');
const exists = (rel: string) => stat(path.join(project, rel)).then(() => true, () => false);
const userMessage = (page: Page, text: string) => page.locator('.chat-user').filter({ has: page.locator('[data-testid="chat-message"][data-role="user"]', { hasText: text }) });

async function ask(page: Page, text: string) {
  await page.getByTestId('chat-input').fill(text);
  await page.getByTestId('chat-input').press('Enter');
  await expect(page.getByTestId("chat-message").filter({ hasText: `Done: ${text}.` })).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('chat-send')).toBeVisible();
}

test.beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'loupe-e2e-rewind-')));
  project = path.join(root, 'rewind-project');
  await mkdir(path.join(project, 'src'), { recursive: true });
  await writeFile(path.join(project, 'src/app.ts'), 'export const version = "v1";\n');
  await writeFile(path.join(project, 'notes.md'), NOTES);
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=e@x', '-c', 'user.name=E', ...args], { cwd: project });
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'init');
  llm = await startScriptedLlm(script);
  served = await startServe(project, { OPENAI_BASE_URL: llm.baseURL, LOUPE_MODEL: 'scripted', OPENAI_API_KEY: 'sk-env' });
  await mkdir(SHOTS, { recursive: true });
});

test.afterAll(async () => {
  await served?.stop();
  await llm?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

test('undo from the second of three requests, with a preview; the timeline shows it; redo restores; a conflict waits for a choice', async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto(served.url);
  await expect(page.getByTestId('workspace-root')).toContainText('rewind-project');
  await page.getByTestId('agent-tab').click();
  await ask(page, 'first');
  await ask(page, 'second');
  await ask(page, 'third');
  expect(await disk('src/app.ts')).toContain('v2');
  expect(await disk('src/gen.txt')).toBe('generated\n');
  expect(await disk('notes.md')).toBe('one\nTWO\nthree\n');
  expect(await exists('src/third.ts')).toBe(true);
  // The command's card says what it changed.
  await expect(page.getByTestId('tool-call').filter({ hasText: 'printf' })).toBeVisible();

  // The preview: the second request's and the third's files, nothing changed yet.
  await userMessage(page, 'second').hover();
  await userMessage(page, 'second').getByTestId('message-undo').click();
  const preview = page.getByTestId('undo-preview');
  await expect(preview).toBeVisible();
  await expect(preview.getByTestId('undo-file')).toHaveCount(3);
  await expect(preview.locator('[data-testid="undo-file"][data-path="notes.md"]')).toContainText('+1');
  await preview.locator('[data-testid="undo-file"][data-path="notes.md"]').click();
  await expect(preview.getByTestId('undo-diff')).toContainText('TWO');
  await page.setViewportSize({ width: 1024, height: 700 });
  await page.screenshot({ path: path.join(SHOTS, 'preview-1024.png') });
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.screenshot({ path: path.join(SHOTS, 'preview-1920.png') });
  expect(await exists('src/third.ts')).toBe(true);
  await preview.getByTestId('undo-confirm').click();
  await expect(preview).toBeHidden();
  await expect(page.getByTestId('undo-notice')).toContainText('Undid 3 changes in 3 files');
  expect(await exists('src/gen.txt')).toBe(false);
  expect(await exists('src/third.ts')).toBe(false);
  expect(await disk('notes.md')).toBe(NOTES);
  expect(await disk('src/app.ts')).toContain('v2');

  // The timeline: the undo as one step over its three files, the command's rows with their diff.
  await page.getByTestId('review-tab').click();
  const undoRows = page.locator('[data-testid="timeline-entry"][data-group-kind="undo"]');
  await expect(undoRows).toHaveCount(1);
  await expect(undoRows).toHaveAttribute('data-step-files', '3');
  const commandRow = page.locator('[data-testid="timeline-entry"][data-group-kind="command"][data-file="notes.md"]');
  await expect(commandRow).toContainText("sed -i 's/two/TWO/' notes.md");
  await commandRow.click();
  await expect(page.getByTestId('diff-view')).toHaveAttribute('data-state', 'ready');
  await expect(page.getByTestId('diff-view')).toContainText('TWO');
  await expect(page.getByTestId('review-rollback-group')).toBeVisible();
  await page.screenshot({ path: path.join(SHOTS, 'timeline-1920.png') });

  // Redo: everything the undo took back is there again.
  await page.getByTestId('agent-tab').click();
  await userMessage(page, 'second').getByTestId('message-redo').click();
  await expect(preview).toHaveAttribute('data-kind', 'redo');
  await preview.getByTestId('undo-confirm').click();
  await expect(page.getByTestId('undo-notice')).toContainText('Redid');
  await expect(userMessage(page, 'second').getByTestId('message-undo')).toBeVisible();
  expect(await disk('src/gen.txt')).toBe('generated\n');
  expect(await disk('notes.md')).toBe('one\nTWO\nthree\n');
  expect(await exists('src/third.ts')).toBe(true);

  // The person edits the line the command changed: the preview says so and nothing moves.
  await writeFile(path.join(project, 'notes.md'), 'one\nTWO (mine)\nthree\n');
  await userMessage(page, 'second').getByTestId('message-undo').click();
  await expect(preview.locator('[data-testid="undo-file"][data-path="notes.md"]')).toHaveAttribute('data-conflict', 'true');
  await expect(preview.getByTestId('undo-conflicts')).toBeVisible();
  await expect(preview.getByTestId('undo-confirm')).toContainText('skip 1');
  await page.screenshot({ path: path.join(SHOTS, 'conflict-1920.png') });
  expect(await disk('notes.md')).toBe('one\nTWO (mine)\nthree\n');
  expect(await exists('src/gen.txt')).toBe(true);
  await preview.getByTestId('undo-cancel').click();
  await expect(preview).toBeHidden();
  expect(await exists('src/gen.txt')).toBe(true);
  // Chosen: undo the rest, skip the person's file, which keeps their line.
  await userMessage(page, 'second').getByTestId('message-undo').click();
  await preview.getByTestId('undo-confirm').click();
  await expect(page.getByTestId('undo-notice')).toContainText('left 1 conflicting file');
  expect(await disk('notes.md')).toBe('one\nTWO (mine)\nthree\n');
  expect(await exists('src/gen.txt')).toBe(false);
  expect(await exists('src/third.ts')).toBe(false);
});
