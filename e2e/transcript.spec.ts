// A reloaded chat is the live one: `loupe serve` with the scripted model runs a request whose
// calls fail and edit; after a page reload the reopened session draws the same transcript (its
// DOM compared), the failed call still reads failed with its error, and the edit card still
// opens its diff. A rollback that conflicts lists the blocking modification from the error's
// details. Needs `npm run build` first.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { userPrompt, type RecordedRequest, type ScriptedReply } from '../test/support/scriptedLlm';
import { sayAndWait as say, startAgentProject, type AgentProject } from './support/agentProject';

let app: AgentProject;
const SHOTS = path.resolve('test-results', 'transcript');

/** The model: by the request's prompt and how many tool answers it has had. */
function script(req: RecordedRequest): ScriptedReply {
  const answered = (req.body.messages ?? []).filter((m) => m.role === 'tool').length;
  const read = (p: string) => ({ name: 'read_file', arguments: JSON.stringify({ path: p }) });
  const edit = (from: string, to: string) => ({ name: 'edit_file', arguments: JSON.stringify({ path: 'src/conflict.ts', old_str: from, new_str: to, reason: `Say ${to}` }) });
  if (userPrompt(req).includes('two commands')) {
    const bash = (word: string) => ({ name: 'bash', arguments: JSON.stringify({ command: `echo ${word}`, description: word }) });
    return answered === 0 ? { toolCalls: [bash('first'), bash('second')] } : { content: 'Both ran.' };
  }
  if (userPrompt(req).includes('twice')) {
    const steps: ScriptedReply[] = [{ toolCalls: [read('src/conflict.ts')] }, { toolCalls: [edit('one', 'two')] }, { toolCalls: [edit('two', 'three')] }];
    return steps[answered] ?? { content: 'Edited twice.' };
  }
  const steps: ScriptedReply[] = [
    { toolCalls: [read('src/missing.ts'), read('src/greet.ts')] },
    { toolCalls: [{ name: 'edit_file', arguments: JSON.stringify({ path: 'src/greet.ts', old_str: '"hello"', new_str: '"goodbye"', reason: 'Say goodbye' }) }] },
  ];
  return steps[answered === 0 ? 0 : answered === 2 ? 1 : 2] ?? { content: 'Edited; the missing file could not be read.' };
}

async function openAgent(page: Page) {
  await expect(page.getByTestId('workspace-root')).toContainText('transcript-project');
  await page.getByTestId('agent-tab').click();
  await expect(page.getByTestId('chat-input')).toBeVisible();
}

/** The transcript's markup as drawn. React keys and store ids never reach the DOM, so nothing needs normalising. */
const transcript = (page: Page) => page.locator('[data-testid="chat"] .chat-list').evaluate((el) => el.outerHTML);

test.beforeAll(async () => {
  app = await startAgentProject('transcript-project', { 'src/greet.ts': 'export const greeting = "hello";\n', 'src/conflict.ts': 'export const word = "one";\n' }, script, { settings: { sandbox: 'off' } });
  await mkdir(SHOTS, { recursive: true });
});

test.afterAll(async () => {
  await app?.stop();
});

test('after a reload the session draws what was drawn live: failed calls, errors, Open diff', async ({ page }) => {
  await page.goto(app.served.url);
  await openAgent(page);
  await say(page, 'read two files and edit the greeting');
  await expect(page.locator('[data-testid="chat-message"][data-role="assistant"]').last()).toContainText('could not be read');
  const failed = page.locator('[data-testid="tool-call"][data-status="error"]');
  await expect(failed).toHaveCount(1);
  await expect(failed).toContainText('FILE_NOT_FOUND');
  // The request changed a file: it offers its undo (once the timeline has its modification).
  await expect(page.getByTestId('message-undo')).toHaveCount(1);
  const live = await transcript(page);
  const session = await page.getByTestId('chat-session').inputValue();
  expect(session).toMatch(/^ses-/);

  await page.reload();
  await openAgent(page);
  await page.getByTestId('chat-session').selectOption(session);
  const edit = page.locator('[data-testid="tool-call"][data-tool="edit_file"]');
  await expect(edit).toHaveAttribute('data-status', 'done');
  await expect(page.getByTestId('message-undo')).toHaveCount(1);
  expect(await transcript(page)).toBe(live);

  // Still failed, with its error; the successful read still done.
  await expect(failed).toHaveCount(1);
  await expect(failed).toHaveAttribute('data-tool', 'read_file');
  await expect(failed.locator('.tool-state')).toContainText('failed');
  await expect(failed.getByTestId('tool-call-error')).toContainText('FILE_NOT_FOUND');
  await expect(page.locator('[data-testid="tool-call"][data-status="done"]')).toHaveCount(2);
  await page.screenshot({ path: path.join(SHOTS, 'reloaded-transcript.png') });

  // The edit card still links to its modification, and the link opens the diff.
  await edit.getByTestId('tool-call-modification').click();
  await expect(page.getByTestId('review-tab')).toHaveAttribute('aria-selected', 'true');
  const diff = page.getByTestId('diff-view');
  await expect(diff).toHaveAttribute('data-state', 'ready');
  await expect(diff).toHaveAttribute('data-file', 'src/greet.ts');
  await expect(diff.locator('.editor.modified')).toContainText('goodbye');
});

test('a conflicting rollback in the review pane lists the blocking modification', async ({ page }) => {
  await page.goto(app.served.url);
  await openAgent(page);
  await say(page, 'edit the word twice');
  await expect(page.locator('[data-testid="chat-message"][data-role="assistant"]').last()).toContainText('Edited twice.');
  await page.getByTestId('review-tab').click();
  await page.getByTestId('timeline-filter-file').fill('conflict.ts');
  const entries = page.getByTestId('timeline-entry');
  await expect(entries).toHaveCount(2);
  // Newest first: the second edit blocks rolling back the first.
  const [later, first] = [await entries.nth(0).getAttribute('data-modification-id'), await entries.nth(1).getAttribute('data-modification-id')];
  await entries.nth(1).click();
  await expect(page.getByTestId('diff-view')).toHaveAttribute('data-modification-id', first!);
  await page.getByTestId('review-rollback').click();
  const conflict = page.getByTestId('review-conflict');
  await expect(conflict).toBeVisible();
  await expect(conflict.getByTestId('review-conflict-link')).toHaveCount(1);
  await expect(conflict.getByTestId('review-conflict-link')).toHaveAttribute('data-modification-id', later!);
  await page.screenshot({ path: path.join(SHOTS, 'rollback-conflict.png') });
});

test('an approval marks the one card whose call asked, not every running call of that tool', async ({ page }) => {
  await page.goto(app.served.url);
  await openAgent(page);
  await page.getByTestId('chat-input').fill('run two commands');
  await page.getByTestId('chat-input').press('Enter');
  const cards = page.locator('[data-testid="tool-call"][data-tool="bash"]');
  const approval = page.getByTestId('approval-card');
  await expect(approval.getByTestId('approval-subject')).toHaveText('echo first');
  await expect(cards).toHaveCount(2);
  await expect(cards.nth(0)).toHaveClass(/tool-waiting/);
  await expect(cards.nth(0).locator('.tool-state')).toHaveText('waiting for approval');
  // The second call is queued behind the first, not waiting on this question.
  await expect(cards.nth(1)).not.toHaveClass(/tool-waiting/);
  await page.screenshot({ path: path.join(SHOTS, 'approval-by-call.png') });
  await approval.getByTestId('approval-allow-once').click();
  await expect(approval.getByTestId('approval-subject')).toHaveText('echo second');
  await expect(cards.nth(1)).toHaveClass(/tool-waiting/);
  await expect(cards.nth(0)).toHaveAttribute('data-status', 'done');
  await approval.getByTestId('approval-allow-once').click();
  await expect(cards.nth(1)).toHaveAttribute('data-status', 'done');
  await expect(page.locator('[data-testid="chat-message"][data-role="assistant"]').last()).toContainText('Both ran.');
});
