// "Ask before every edit" (`edits.mode: "ask"` in .loupe/config.json) end to end: the agent's
// edit waits as an approval card with its −/+ lines and as Monaco's diff in the centre pane
// (Accept / Reject there answer the same question), and the file on disk is
// untouched until the person allows it; a denial leaves it as it was and reaches the model.
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { userPrompt, type RecordedRequest, type ScriptedReply } from '../test/support/scriptedLlm';
import { startAgentProject, type AgentProject } from './support/agentProject';
import type { Served } from './support/serve';

let agent: AgentProject;
let project: string;
let served: Served;

const SHOTS = path.resolve('test-results', 'approvals');
const FILES: Record<string, { path: string; old_str: string; new_str: string }> = {
  greet: { path: 'src/greet.ts', old_str: '"hello"', new_str: '"goodbye"' },
  farewell: { path: 'src/farewell.ts', old_str: '"bye"', new_str: '"see you"' },
  extra: { path: 'src/extra.ts', old_str: '= 1', new_str: '= 2' },
};

/** Reads the file the prompt names, then edits it; afterwards repeats what the tool said. */
function script(req: RecordedRequest): ScriptedReply {
  const prompt = userPrompt(req);
  const target = FILES[prompt.includes('farewell') ? 'farewell' : prompt.includes('extra') ? 'extra' : 'greet'];
  const messages = req.body.messages ?? [];
  const last = messages[messages.length - 1];
  if (last?.role !== 'tool') return { toolCalls: [{ name: 'read_file', arguments: JSON.stringify({ path: target.path }) }] };
  const lastCall = [...messages].reverse().find((m) => m.role === 'assistant' && m.tool_calls?.length)?.tool_calls?.[0]?.function.name;
  if (lastCall === 'read_file') return { toolCalls: [{ name: 'edit_file', arguments: JSON.stringify({ ...target, reason: 'Change the word' }) }] };
  return { content: `The edit tool said: ${String(last.content).split('\n')[0]}` };
}

async function ask(page: Page, text: string) {
  await page.goto(served.url);
  await expect(page.getByTestId('workspace-root')).toContainText('ask-project');
  await page.getByTestId('agent-tab').click();
  await page.getByTestId('chat-input').fill(text);
  await page.getByTestId('chat-input').press('Enter');
}

const onDisk = (rel: string) => readFile(path.join(project, rel), 'utf8');

test.beforeAll(async () => {
  agent = await startAgentProject(
    'ask-project',
    {
      'src/greet.ts': 'export const greeting = "hello";\nexport const loud = greeting.toUpperCase();\n',
      'src/farewell.ts': 'export const farewell = "bye";\n',
      'src/extra.ts': 'export const extra = 1;\n',
      '.loupe/config.json': JSON.stringify({ edits: { mode: 'ask' } }, null, 2),
    },
    script,
  );
  ({ project, served } = agent);
  await mkdir(SHOTS, { recursive: true });
});

test.afterAll(async () => {
  await agent?.stop();
});

test('an edit waits on a card showing its Monaco diff, and is written only once allowed', async ({ page }) => {
  await ask(page, 'edit the greeting');
  // The composer says which mode is on.
  await expect(page.getByTestId('chat-edits-mode')).toHaveText('Ask before edits');
  await expect(page.getByTestId('chat-edits-mode')).toHaveAttribute('aria-pressed', 'true');
  const card = page.locator('[data-testid="approval-card"][data-kind="edit"]');
  await expect(card).toBeVisible();
  await expect(card.getByTestId('approval-subject')).toHaveText('edit src/greet.ts');
  await expect(card.getByTestId('approval-why')).toContainText('edits.mode is "ask"');
  // The card keeps the change compact, the removed line and the added one...
  const compact = card.getByTestId('approval-diff');
  await expect(compact.locator('[data-sign="-"]')).toContainText('"hello"');
  await expect(compact.locator('[data-sign="+"]')).toContainText('"goodbye"');
  // ...and Monaco's diff of it opens in the centre pane, wide enough for code.
  const diff = page.getByTestId('diff-view');
  await expect(diff).toHaveAttribute('data-kind', 'approval');
  await expect(diff.locator('.monaco-diff-editor')).toBeVisible();
  await expect(diff.locator('.editor.modified')).toContainText('goodbye');
  await expect(diff.locator('.line-insert, .char-insert').first()).toBeAttached();
  await expect(diff.locator('.line-delete, .char-delete, .inline-deleted-text').first()).toBeAttached();
  const tool = page.locator('[data-testid="tool-call"][data-tool="edit_file"]');
  await expect(tool).toHaveAttribute('data-status', 'running');
  expect(await onDisk('src/greet.ts')).toContain('"hello"');
  await page.screenshot({ path: path.join(SHOTS, 'edit-approval.png') });

  // Accept in the centre answers the same question as the card's Allow once.
  await diff.getByTestId('pending-edit-accept').click();
  await expect(diff).toHaveCount(0);
  await expect(page.getByTestId('approval-card')).toHaveCount(0);
  await expect(tool).toHaveAttribute('data-status', 'done');
  await expect.poll(() => onDisk('src/greet.ts')).toContain('"goodbye"');
  await expect(page.locator('[data-testid="chat-message"][data-role="assistant"]').last()).toContainText('Edited src/greet.ts');
});

test('a denied edit leaves the file as it was and the model hears why', async ({ page }) => {
  await ask(page, 'edit the farewell');
  const card = page.locator('[data-testid="approval-card"][data-kind="edit"]');
  await expect(page.getByTestId('diff-view').locator('.monaco-diff-editor')).toBeVisible();
  await card.getByLabel('Message for the agent').fill('keep it short');
  await card.getByTestId('approval-deny').click();
  await expect(page.getByTestId('approval-card')).toHaveCount(0);
  await expect(page.locator('[data-testid="tool-call"][data-tool="edit_file"]')).toHaveAttribute('data-status', 'error');
  await expect(page.locator('[data-testid="chat-message"][data-role="assistant"]').last()).toContainText('keep it short');
  expect(await onDisk('src/farewell.ts')).toBe('export const farewell = "bye";\n');
});

test('the settings toggle turns "ask before every edit" off: the next edit is written without a card', async ({ page }) => {
  await page.goto(served.url);
  await page.getByTestId('agent-tab').click();
  await page.getByTestId('settings-open').click();
  const toggle = page.getByTestId('settings-ask-edits');
  await expect(toggle).toBeChecked();
  await page.getByTestId('settings-dialog').screenshot({ path: path.join(SHOTS, 'settings-edits-mode.png') });
  await toggle.uncheck();
  await expect.poll(async () => JSON.parse(await onDisk('.loupe/config.json')).edits).toEqual({ mode: 'review' });
  await page.keyboard.press('Escape');

  await ask(page, 'edit the farewell');
  await expect(page.locator('[data-testid="tool-call"][data-tool="edit_file"]')).toHaveAttribute('data-status', 'done');
  await expect(page.getByTestId('approval-card')).toHaveCount(0);
  expect(await onDisk('src/farewell.ts')).toBe('export const farewell = "see you";\n');
});

test('the composer pill switches the mode back to "ask" and the next edit asks again', async ({ page }) => {
  await page.goto(served.url);
  await page.getByTestId('agent-tab').click();
  const pill = page.getByTestId('chat-edits-mode');
  await expect(pill).toHaveText('Auto-apply edits');
  await pill.click();
  await expect(pill).toHaveText('Ask before edits');
  await expect.poll(async () => JSON.parse(await onDisk('.loupe/config.json')).edits).toEqual({ mode: 'ask' });
  await page.getByTestId('chat-input').fill('edit the extra');
  await page.getByTestId('chat-input').press('Enter');
  const card = page.locator('[data-testid="approval-card"][data-kind="edit"]');
  await expect(card.getByTestId('approval-subject')).toHaveText('edit src/extra.ts');
  await page.screenshot({ path: path.join(SHOTS, 'composer-pill.png') });
  // Reject in the centre pane denies it, as the card's Deny would.
  await page.getByTestId('diff-view').getByTestId('pending-edit-reject').click();
  await expect(page.getByTestId('approval-card')).toHaveCount(0);
  await expect(page.getByTestId('diff-view')).toHaveCount(0);
  expect(await onDisk('src/extra.ts')).toBe('export const extra = 1;\n');
});
