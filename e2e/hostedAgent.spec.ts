// Another agent inside Loupe, end to end in Chromium: the person picks OpenCode (the real program of
// the opencode-ai package, pointed at the scripted model by its own opencode.json) in the session
// bar, sends a request, allows its edit on the approval card, reviews the change it made in the
// timeline's diff, and undoes it from the chat. Needs `npm run build` first.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { startScriptedLlm, type ScriptedLlm } from '../test/support/scriptedLlm';
import { OPENCODE_BIN, OPENCODE_QUIET, call, hostOf, opencodeJson, opencodeModel } from '../test/support/hostedAgents';
import { startServe, type Served } from './support/serve';

let root: string;
let project: string;
let served: Served;
let llm: ScriptedLlm;
const SHOTS = path.resolve('test-results', 'hosted-agent');
const NOTES = '# Notes\n\nThe cache is warm.\n';

test.beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'loupe-e2e-hosted-')));
  project = path.join(root, 'hosted-project');
  await mkdir(project, { recursive: true });
  await writeFile(path.join(project, 'notes.md'), NOTES);
  await writeFile(path.join(project, '.gitignore'), 'opencode.json\n');
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=e@x', '-c', 'user.name=E', ...args], { cwd: project });
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'init');
  llm = await startScriptedLlm(
    opencodeModel(
      (ws) => [
        call('read', { filePath: path.join(ws, 'notes.md') }),
        call('edit', { filePath: path.join(ws, 'notes.md'), oldString: 'The cache is warm.', newString: 'The cache is cold after a deploy.' }),
        { content: 'I corrected the note about the cache.' },
      ],
      project,
    ),
  );
  await writeFile(path.join(project, 'opencode.json'), opencodeJson(llm.baseURL, { edit: 'ask' }));
  served = await startServe(project, {}, { settings: { agents: { opencode: { command: OPENCODE_BIN, args: ['acp'], env: OPENCODE_QUIET, network: { hosts: [hostOf(llm.baseURL)] } } } } });
  await mkdir(SHOTS, { recursive: true });
});

test.afterAll(async () => {
  await served?.stop();
  await llm?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

test('pick OpenCode, send, allow its edit, review the change, undo it', async ({ page }) => {
  test.setTimeout(240_000);
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.goto(served.url);
  await expect(page.getByTestId('workspace-root')).toContainText('hosted-project');
  await page.getByTestId('agent-tab').click();

  // The session bar offers OpenCode beside Loupe's own agent.
  await page.getByTestId('agent-picker').click();
  await expect(page.locator('[data-testid="agent-option"][data-agent="loupe"]')).toBeVisible();
  const option = page.locator('[data-testid="agent-option"][data-agent="opencode"]');
  await expect(option).toContainText('OpenCode');
  await page.setViewportSize({ width: 1024, height: 700 });
  await page.screenshot({ path: path.join(SHOTS, 'picker-1024.png') });
  await page.setViewportSize({ width: 1920, height: 1080 });
  await option.click();
  await expect(page.getByTestId('agent-picker')).toHaveAttribute('data-agent', 'opencode');

  await page.getByTestId('chat-input').fill('Fix the note about the cache.');
  await page.getByTestId('chat-input').press('Enter');

  // Its edit waits on a card in Loupe's queue, naming the agent, bound to its tool card.
  const card = page.locator('[data-testid="approval-card"][data-kind="edit"]');
  await expect(card).toBeVisible({ timeout: 180_000 });
  await expect(card).toContainText('OpenCode');
  await expect(page.locator('[data-testid="tool-call"][data-tool="acp:opencode"]').first()).toBeVisible();
  await page.screenshot({ path: path.join(SHOTS, 'card-1920.png') });
  await page.setViewportSize({ width: 1024, height: 700 });
  await page.screenshot({ path: path.join(SHOTS, 'card-1024.png') });
  await page.setViewportSize({ width: 1920, height: 1080 });
  await card.getByTestId('approval-allow-once').click();

  await expect(page.getByTestId('chat-message').filter({ hasText: 'I corrected the note about the cache.' })).toBeVisible({ timeout: 120_000 });
  await expect(page.getByTestId('chat-send')).toBeVisible();
  expect(await readFile(path.join(project, 'notes.md'), 'utf8')).toContain('cold after a deploy');
  const edit = page.locator('[data-testid="tool-call"][data-tool="acp:opencode"][data-status="done"]').filter({ hasText: 'notes.md' }).last();
  await expect(edit.getByTestId('tool-call-agent')).toHaveText('opencode');
  await page.screenshot({ path: path.join(SHOTS, 'chat-1920.png') });
  await page.setViewportSize({ width: 1024, height: 700 });
  await page.screenshot({ path: path.join(SHOTS, 'chat-1024.png') });
  await page.setViewportSize({ width: 1920, height: 1080 });

  // Review: the timeline holds its change, attributed to the agent, with the diff.
  await page.getByTestId('review-tab').click();
  const row = page.locator('[data-testid="timeline-entry"][data-file="notes.md"][data-tool="acp:opencode"]').first();
  await expect(row.getByTestId('timeline-hosted-agent')).toHaveText('opencode');
  await row.click();
  await expect(page.getByTestId('diff-view')).toHaveAttribute('data-state', 'ready');
  await expect(page.getByTestId('diff-view')).toContainText('cold after a deploy');
  await page.screenshot({ path: path.join(SHOTS, 'review-1920.png') });
  await page.setViewportSize({ width: 1024, height: 700 });
  await page.screenshot({ path: path.join(SHOTS, 'review-1024.png') });
  await page.setViewportSize({ width: 1920, height: 1080 });

  // Undo it from the chat: the request's changes go back.
  await page.getByTestId('agent-tab').click();
  const message = page.locator('.chat-user').filter({ has: page.locator('[data-testid="chat-message"][data-role="user"]', { hasText: 'Fix the note' }) });
  await message.hover();
  await message.getByTestId('message-undo').click();
  const preview = page.getByTestId('undo-preview');
  await expect(preview.locator('[data-testid="undo-file"][data-path="notes.md"]')).toBeVisible();
  await preview.getByTestId('undo-confirm').click();
  await expect(page.getByTestId('undo-notice')).toContainText('Undid 1 change');
  expect(await readFile(path.join(project, 'notes.md'), 'utf8')).toBe(NOTES);
  await expect(edit).toHaveAttribute('data-undone', 'true');
  await page.screenshot({ path: path.join(SHOTS, 'undone-1920.png') });
});
