// Sessions side by side, end to end in Chromium against `loupe serve`: two sessions in worktrees
// of one repository work at once (each waiting on a command approval, each card naming its
// session), one is reviewed against its base in the diff view and applied to the main folder,
// whose timeline then shows the group; the other, which changed the same lines, is refused with
// its conflict shown and the main folder left as it was.
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { userPrompt, type RecordedRequest, type ScriptedReply } from '../test/support/scriptedLlm';
import { startAgentProject, type AgentProject } from './support/agentProject';

let agent: AgentProject;
const SHOTS = path.resolve('test-results', 'worktree-sessions');
const ORIGINAL = 'export const greeting = "hello";\n';

/** "greet WORD" runs one command (it asks: the sandbox is off) writing WORD into src/greet.ts, then says done. */
function script(req: RecordedRequest): ScriptedReply {
  const messages = req.body.messages ?? [];
  if (messages.at(-1)?.role === 'tool') return { content: 'Done: the greeting is written.' };
  const word = userPrompt(req).replace(/^greet /, '');
  return { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: `printf 'export const greeting = "${word}";\\n' > src/greet.ts`, description: `greet ${word}` }) }] };
}

const row = (page: Page, name: string) => page.locator(`[data-testid="session-row"][data-worktree="${name}"]`);

/** New session in worktree `name`, and its first request. */
async function startSession(page: Page, name: string, prompt: string): Promise<string> {
  await page.getByTestId('new-worktree-session').click();
  await page.getByTestId('new-worktree-name').fill(name);
  await page.getByTestId('new-worktree-name').press('Enter');
  await expect(row(page, name)).toHaveAttribute('aria-selected', 'true', { timeout: 60_000 });
  const id = await row(page, name).getAttribute('data-session-id');
  expect(id).toBeTruthy();
  // The chat is on that session before anything is typed.
  await expect(page.getByTestId('chat-session')).toHaveValue(id!);
  await page.getByTestId('chat-input').fill(prompt);
  await page.getByTestId('chat-input').press('Enter');
  return id!;
}

test.beforeAll(async () => {
  agent = await startAgentProject('wt-project', { 'src/greet.ts': ORIGINAL, 'README.md': '# wt\n' }, script, { settings: { sandbox: 'off' } });
  await mkdir(SHOTS, { recursive: true });
});

test.afterAll(async () => {
  await agent?.stop();
});

test('two worktree sessions work at once; one is reviewed and applied to the main folder, the other conflicts', async ({ page }) => {
  test.setTimeout(240_000);
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.goto(agent.served.url);
  await expect(page.getByTestId('workspace-root')).toContainText('wt-project');
  await expect(page.getByTestId('session-list')).toBeVisible();
  await page.getByTestId('agent-tab').click();

  const a = await startSession(page, 'fix-a', 'greet from A');
  const cardA = page.locator(`[data-testid="approval-card"][data-session-id="${a}"]`);
  await expect(cardA).toBeVisible({ timeout: 60_000 });
  const b = await startSession(page, 'fix-b', 'greet from B');
  const cardB = page.locator(`[data-testid="approval-card"][data-session-id="${b}"]`);

  // Both wait at once, each card naming its session; the sidebar says both wait for you.
  await expect(cardB).toBeVisible({ timeout: 60_000 });
  await expect(cardA).toBeVisible();
  await expect(cardA.getByTestId('approval-session')).toContainText('fix-a');
  await expect(cardA.getByTestId('approval-session')).toContainText('greet from A');
  await expect(cardB.getByTestId('approval-session')).toContainText('fix-b');
  await expect(row(page, 'fix-a')).toHaveAttribute('data-status', 'waiting');
  await expect(row(page, 'fix-b')).toHaveAttribute('data-status', 'waiting');
  await page.screenshot({ path: path.join(SHOTS, 'two-waiting-1920.png') });
  await page.setViewportSize({ width: 1024, height: 700 });
  await page.screenshot({ path: path.join(SHOTS, 'two-waiting-1024.png') });
  await page.setViewportSize({ width: 1920, height: 1080 });

  await cardA.getByTestId('approval-allow-once').click();
  await cardB.getByTestId('approval-allow-once').click();
  for (const name of ['fix-a', 'fix-b']) {
    await expect(row(page, name)).toHaveAttribute('data-status', 'done', { timeout: 60_000 });
    await expect(row(page, name).getByTestId('session-stats')).toContainText('+1', { timeout: 30_000 });
    await expect(row(page, name).getByTestId('session-stats')).toContainText('−1');
  }
  expect(await readFile(path.join(agent.project, 'src/greet.ts'), 'utf8')).toBe(ORIGINAL);

  // The review of A: its file against the base, in the diff view.
  await row(page, 'fix-a').click();
  const file = page.locator('[data-testid="worktree-file"][data-path="src/greet.ts"]');
  await expect(file).toBeVisible();
  await file.getByRole('button').click();
  const diff = page.getByTestId('diff-view');
  await expect(diff).toHaveAttribute('data-kind', 'worktree');
  await expect(diff).toHaveAttribute('data-worktree', 'fix-a');
  await expect(diff.locator('.monaco-diff-editor')).toBeVisible({ timeout: 30_000 });
  await expect(diff.locator('.editor.modified')).toContainText('from A');
  await expect(diff.getByTestId('review-hunk')).toHaveCount(1);
  await page.screenshot({ path: path.join(SHOTS, 'review-1920.png') });
  await page.setViewportSize({ width: 1024, height: 700 });
  await page.screenshot({ path: path.join(SHOTS, 'review-1024.png') });
  await page.setViewportSize({ width: 1920, height: 1080 });

  // Apply to main folder: one group of the main folder's log, shown in its timeline.
  await page.getByTestId('apply-to-main').click();
  const result = page.getByTestId('apply-result');
  await expect(result).toBeVisible({ timeout: 30_000 });
  const group = await result.getAttribute('data-group-id');
  await expect.poll(() => readFile(path.join(agent.project, 'src/greet.ts'), 'utf8')).toBe('export const greeting = "from A";\n');
  const entry = page.locator(`[data-testid="timeline-entry"][data-group-id="${group}"]`);
  await expect(entry).toHaveAttribute('data-file', 'src/greet.ts', { timeout: 30_000 });
  await expect(entry).toHaveAttribute('data-group-kind', 'worktree');
  // Its change stays in the worktree, and the review says the main folder has it.
  await expect(page.getByTestId('worktree-nothing-to-apply')).toContainText('already has this change');
  await page.screenshot({ path: path.join(SHOTS, 'applied-1920.png') });

  // B changed the same line: left out unless ticked; ticked, refused with the conflict named, the main folder unchanged.
  await row(page, 'fix-b').click();
  const conflicting = page.locator('[data-testid="worktree-file"][data-path="src/greet.ts"][data-conflict="true"]');
  await expect(conflicting).toBeVisible();
  await expect(conflicting.getByRole('checkbox')).not.toBeChecked();
  await expect(page.getByTestId('apply-to-main')).toBeDisabled();
  await conflicting.getByRole('checkbox').check();
  await page.getByTestId('apply-to-main').click();
  await expect(page.locator('[data-testid="apply-conflict"][data-path="src/greet.ts"]')).toBeVisible({ timeout: 30_000 });
  expect(await readFile(path.join(agent.project, 'src/greet.ts'), 'utf8')).toBe('export const greeting = "from A";\n');
  await page.setViewportSize({ width: 1024, height: 700 });
  await page.screenshot({ path: path.join(SHOTS, 'conflict-1024.png') });

  // Discard B: what would be lost is shown; declining keeps it.
  await page.getByTestId('discard-worktree').click();
  await expect(page.getByTestId('discard-report')).toContainText('src/greet.ts');
  await page.getByTestId('discard-cancel').click();
  await expect(page.getByTestId('discard-report')).toHaveCount(0);
  await expect(row(page, 'fix-b')).toBeVisible();
});
