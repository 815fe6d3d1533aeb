// What a person meets in an hour of daily use: a reload in the middle of a request, sending
// while scrolled up, committing approved changes, deleting a conversation and a command that
// fails. Each test here failed against the build before these were fixed. Needs `npm run build`.
import { execFileSync } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { userPrompt, type RecordedRequest, type ScriptedReply } from '../test/support/scriptedLlm';
import { sayAndWait, startAgentProject, type AgentProject } from './support/agentProject';

let agent: AgentProject;
const SHOTS = path.resolve('test-results', 'daily-use');
const LONG = Array.from({ length: 40 }, (_, i) => `Line ${i + 1} of a long answer.`).join('\n\n');

function script(req: RecordedRequest): ScriptedReply {
  const messages = req.body.messages ?? [];
  const last = messages[messages.length - 1];
  const prompt = userPrompt(req);
  if (last?.role === 'tool') {
    const lastCall = [...messages].reverse().find((m) => m.role === 'assistant' && m.tool_calls?.length)?.tool_calls?.[0]?.function.name;
    if (lastCall === 'read_file' && prompt.includes('edit b')) return { toolCalls: [{ name: 'edit_file', arguments: JSON.stringify({ path: 'src/b.ts', old_str: 'old line', new_str: 'new line', reason: 'Renew b' }) }] };
    if (lastCall === 'read_file') return { toolCalls: [{ name: 'edit_file', arguments: JSON.stringify({ path: 'src/a.ts', old_str: '= 1', new_str: '= 2', reason: 'Bump a' }) }] };
    return { content: `Done with: ${prompt}` };
  }
  if (prompt.includes('approve me')) return { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'echo approved-run', description: 'Print a word' }) }] };
  if (prompt.includes('count')) return { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'seq 1 400', description: 'Count' }) }] };
  if (prompt.includes('only me')) return { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'printf only-me', description: 'Print a word' }) }] };
  if (prompt.includes('missing')) return { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'ls no-such-dir', description: 'List a folder that is not there' }) }] };
  if (prompt.includes('edit')) return { toolCalls: [{ name: 'read_file', arguments: JSON.stringify({ path: prompt.includes('edit b') ? 'src/b.ts' : 'src/a.ts' }) }] };
  if (prompt.includes('long')) return { content: LONG };
  return { content: `You said: ${prompt}` };
}

test.beforeAll(async () => {
  agent = await startAgentProject('daily-project', { 'src/a.ts': 'export const a = 1;\n', 'src/b.ts': 'keep\nold line\nkeep too\n' }, script, {
    // Commands ask (no sandbox), except `ls`, which a user rule allows.
    settings: { sandbox: 'off', permissions: [{ kind: 'bash', pattern: 'ls *', action: 'allow' }, { kind: 'bash', pattern: 'seq *', action: 'allow' }] },
  });
  // "Commit approved" commits as whoever the repository says.
  for (const [key, value] of [['user.email', 'daily@example.com'], ['user.name', 'Daily']]) execFileSync('git', ['config', key, value], { cwd: agent.project });
  await mkdir(SHOTS, { recursive: true });
});

test.afterAll(async () => {
  await agent?.stop();
});

async function openAgent(page: Page) {
  await page.goto(agent.served.url);
  await expect(page.getByTestId('workspace-root')).toContainText('daily-project');
  await page.getByTestId('agent-tab').click();
  await expect(page.getByTestId('chat-input')).toBeVisible();
}

test('a reload during a request reopens the conversation, live, with Stop', async ({ page }) => {
  await openAgent(page);
  await page.getByTestId('chat-input').fill('approve me after the reload');
  await page.getByTestId('chat-input').press('Enter');
  await expect(page.getByTestId('approval-card')).toBeVisible();
  // The card says what the model meant the command for.
  await expect(page.getByTestId('approval-description')).toHaveText('Print a word');

  await page.reload();
  await expect(page.getByTestId('workspace-root')).toContainText('daily-project');
  await expect(page.getByTestId('agent-tab')).toHaveAttribute('aria-selected', 'true');
  await expect(page.locator('[data-testid="chat-message"][data-role="user"]')).toHaveText('approve me after the reload');
  await expect(page.getByTestId('chat-stop')).toBeVisible();
  await expect(page.locator('[data-testid="tool-call"][data-tool="bash"]')).toHaveClass(/tool-waiting/);
  await page.screenshot({ path: path.join(SHOTS, 'reloaded-mid-request.png') });

  // Live: what happens next arrives in the reopened conversation.
  await page.getByTestId('approval-allow-once').click();
  await expect(page.locator('[data-testid="chat-message"][data-role="assistant"]').last()).toHaveText('Done with: approve me after the reload');
  await expect(page.getByTestId('chat-send')).toBeVisible();
});

test('sending while scrolled up shows the new message; a jump button appears whenever not at the end', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 700 });
  await openAgent(page);
  await page.getByTestId('chat-new-session').click();
  await sayAndWait(page, 'something long');
  await sayAndWait(page, 'something long again');
  const list = page.locator('.chat-list');
  await expect(page.getByTestId('jump-to-latest')).toBeHidden();
  await list.evaluate((el) => (el.scrollTop = 0));
  await expect(page.getByTestId('jump-to-latest')).toBeVisible();
  await page.screenshot({ path: path.join(SHOTS, 'jump-to-latest.png') });

  await sayAndWait(page, 'where did it go');
  await expect(page.locator('[data-testid="chat-message"][data-role="user"]').last()).toBeInViewport();
  await expect(page.locator('[data-testid="chat-message"][data-role="assistant"]').last()).toBeInViewport();
  await expect(page.getByTestId('jump-to-latest')).toBeHidden();

  await list.evaluate((el) => (el.scrollTop = 0));
  await page.getByTestId('jump-to-latest').click();
  await expect(page.locator('[data-testid="chat-message"][data-role="assistant"]').last()).toBeInViewport();
  await expect(page.getByTestId('jump-to-latest')).toBeHidden();
});

test('after a commit the commit button has nothing left to count and the rows say Committed', async ({ page }) => {
  await openAgent(page);
  await sayAndWait(page, 'edit a');
  await page.getByTestId('review-tab').click();
  const entry = page.getByTestId('timeline-entry').filter({ hasText: 'a.ts' }).first();
  await entry.click();
  await page.getByTestId('review-approve').click();
  const button = page.getByTestId('review-commit-approved');
  await expect(button).toBeEnabled();
  await expect(button).toContainText('1');
  await button.click();
  await page.getByTestId('review-commit-submit').click();
  await expect(page.getByTestId('review-commit-result')).toBeVisible();
  await expect(button).toBeDisabled();
  await expect(button).not.toContainText('1');
  await expect(entry.getByTestId('timeline-status')).toHaveText('Committed');
  await expect(button).toHaveAttribute('title', /Every approved modification is committed/);
  await page.screenshot({ path: path.join(SHOTS, 'after-commit.png') });
});

test('deleting a conversation asks first; Cancel keeps it', async ({ page }) => {
  await openAgent(page);
  await page.getByTestId('chat-new-session').click();
  await sayAndWait(page, 'keep or delete me');
  const select = page.getByTestId('chat-session');
  const id = await select.inputValue();
  await page.getByTestId('session-delete').click();
  await expect(page.getByTestId('session-delete-confirm')).toBeVisible();
  await expect(select.locator(`option[value="${id}"]`)).toHaveCount(1);
  await page.screenshot({ path: path.join(SHOTS, 'delete-confirm.png') });
  await page.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByTestId('session-delete-confirm')).toBeHidden();
  await expect(select).toHaveValue(id);

  await page.getByTestId('session-delete').click();
  await page.getByTestId('session-delete-confirm').click();
  await expect(select.locator(`option[value="${id}"]`)).toHaveCount(0);
});

test('a command that exits non-zero is shown failed, with its exit code', async ({ page }) => {
  await openAgent(page);
  await sayAndWait(page, 'list the missing folder');
  const card = page.locator('[data-testid="tool-call"][data-tool="bash"]').last();
  await expect(card).toHaveAttribute('data-status', 'failed');
  await expect(card).toHaveAttribute('data-exit-code', '2');
  await expect(card.locator('.tool-state')).toContainText('exit 2');
  await page.screenshot({ path: path.join(SHOTS, 'failed-command.png') });
});

test('a chat without edits leaves git clean: .loupe/ is excluded the first time Loupe writes there', async ({ page }) => {
  // A folder of its own: nothing has written .loupe/ there yet.
  const quiet = await startAgentProject('quiet-project', { 'a.txt': 'a\n' }, () => ({ content: 'Just words.' }));
  try {
    await page.goto(quiet.served.url);
    await expect(page.getByTestId('workspace-root')).toContainText('quiet-project');
    await page.getByTestId('agent-tab').click();
    await sayAndWait(page, 'just talk');
    await expect(page.locator('.statusbar')).toContainText('git: clean');
    // Still clean once the saved chat is surely on disk (listed by the host from .loupe/sessions).
    await page.reload();
    await page.getByTestId('agent-tab').click();
    await expect(page.getByTestId('chat-session').locator('option', { hasText: 'just talk' })).toHaveCount(1);
    await expect(page.locator('.statusbar')).toContainText('git: clean');
  } finally {
    await quiet.stop();
  }
});

test('an edit card shows the removed and the added lines; a click opens the full diff in the centre, the chat stays', async ({ page }) => {
  await openAgent(page);
  await sayAndWait(page, 'edit b please');
  const card = page.locator('[data-testid="tool-call"][data-tool="edit_file"]').last();
  const compact = card.getByTestId('tool-call-diff');
  await expect(compact.locator('[data-sign="-"]')).toHaveText('− old line');
  await expect(compact.locator('[data-sign="+"]')).toHaveText('+ new line');
  await expect(compact).toContainText('+1 −1');
  await page.screenshot({ path: path.join(SHOTS, 'edit-card.png') });
  await compact.click();
  const diff = page.getByTestId('diff-view');
  await expect(diff).toHaveAttribute('data-state', 'ready');
  await expect(diff).toHaveAttribute('data-file', 'src/b.ts');
  await expect(diff.locator('.editor.modified')).toContainText('new line');
  await expect(page.getByTestId('agent-tab')).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('chat-input')).toBeVisible();
});

test('ArrowUp in an empty chat input brings back the last prompt', async ({ page }) => {
  await openAgent(page);
  await page.getByTestId('chat-new-session').click();
  await sayAndWait(page, 'say it once more');
  const input = page.getByTestId('chat-input');
  await input.press('ArrowUp');
  await expect(input).toHaveValue('say it once more');
  // Not when something is typed: then ArrowUp moves the caret as usual.
  await input.fill('draft');
  await input.press('ArrowUp');
  await expect(input).toHaveValue('draft');
});

test('"Allow always" can be kept for me only: my settings, this folder, nothing in the shared config', async ({ page }) => {
  await openAgent(page);
  await page.getByTestId('chat-new-session').click();
  await page.getByTestId('chat-input').fill('print only me');
  await page.getByTestId('chat-input').press('Enter');
  const card = page.getByTestId('approval-card');
  await card.getByTestId('approval-allow-always').click();
  await card.getByTestId('approval-always-scope-user').check();
  await page.screenshot({ path: path.join(SHOTS, 'allow-always-scope.png') });
  await card.getByTestId('approval-allow-always').click();
  await expect(page.getByTestId('chat-send')).toBeVisible();

  const settings = JSON.parse(await readFile(path.join(agent.served.home, 'settings.json'), 'utf8'));
  expect(settings.folder_permissions[agent.project]).toEqual([{ kind: 'bash', pattern: 'printf *', action: 'allow' }]);
  const shared = await readFile(path.join(agent.project, '.loupe/config.json'), 'utf8').catch(() => '{}');
  expect(shared).not.toContain('printf');
  // The rule holds: the same command runs without asking.
  await sayAndWait(page, 'print only me again');
  await expect(page.locator('[data-testid="tool-call"][data-tool="bash"]').last()).toHaveAttribute('data-status', 'done');
  await expect(page.getByTestId('approval-card')).toHaveCount(0);
});

test('a reload logs no 401 for the page itself', async ({ page }) => {
  await openAgent(page);
  const refused: string[] = [];
  page.on('response', (r) => {
    if (r.status() === 401) refused.push(r.url());
  });
  await page.reload();
  await expect(page.getByTestId('workspace-root')).toContainText('daily-project');
  expect(refused).toEqual([]);
});

test('an empty session shows hints; long command output opens on its tail', async ({ page }) => {
  await openAgent(page);
  await page.getByTestId('chat-new-session').click();
  await expect(page.getByTestId('chat-hints')).toBeVisible();
  await sayAndWait(page, 'count to four hundred');
  await expect(page.getByTestId('chat-hints')).toHaveCount(0);
  const output = page.locator('[data-testid="tool-call"][data-tool="bash"]').last().getByTestId('tool-call-output');
  await expect(output).toContainText('400');
  await expect.poll(() => output.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight)).toBeLessThan(5);
  expect(await output.evaluate((el) => el.scrollTop)).toBeGreaterThan(0);
});
