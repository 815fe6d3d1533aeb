// A worktree session's row tells the truth: "not started" before its first request, the lines its
// worktree changed against the base (a file in conflict with the main folder counted too), and
// what the main folder holds after an apply; a conflicting file is left out of the apply unless
// the person ticks it. Needs `npm run build` first.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { userPrompt, type RecordedRequest, type ScriptedReply } from '../test/support/scriptedLlm';
import { startAgentProject, type AgentProject } from './support/agentProject';

const SHOTS = path.resolve('test-results', 'worktree-rows');
const NOTES = 'one\ntwo\nthree\nfour\nfive\n';
// +3 −2 in notes.txt, +1 −1 in a.txt.
const REWORKED = 'one\nTWO\nTHREE\nextra\nfour\nfive\n';

/** "rework" runs one command (it asks: the sandbox is off) rewriting notes.txt and a.txt, then says done. */
function script(req: RecordedRequest): ScriptedReply {
  if (req.body.messages?.at(-1)?.role === 'tool') return { content: 'Done.' };
  if (!userPrompt(req).endsWith('rework')) return { content: 'Hello.' };
  const command = `printf '${REWORKED.replace(/\n/g, '\\n')}' > notes.txt && printf 'from the worktree\\n' > a.txt`;
  return { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command, description: 'rework the notes' }) }] };
}

const row = (page: Page, name: string) => page.locator(`[data-testid="session-row"][data-worktree="${name}"]`);

for (const [width, height] of [
  [1024, 700],
  [1920, 1080],
] as const) {
  test.describe(`${width}x${height}`, () => {
    let fx: AgentProject;

    test.beforeAll(async () => {
      fx = await startAgentProject('rows', { 'notes.txt': NOTES, 'a.txt': 'hello\n' }, script, { settings: { sandbox: 'off' } });
      await mkdir(SHOTS, { recursive: true });
    });

    test.afterAll(async () => {
      await fx?.stop();
    });

    test('not started until it runs; its lines against the base; a conflict left unticked; the row follows the apply', async ({ page }) => {
      test.setTimeout(240_000);
      await page.setViewportSize({ width, height });
      await page.goto(fx.served.url);
      await expect(page.getByTestId('workspace-root')).toContainText('rows');
      await page.getByTestId('agent-tab').click();

      await page.getByTestId('new-worktree-session').click();
      await page.getByTestId('new-worktree-name').fill('rework');
      await page.getByTestId('new-worktree-name').press('Enter');
      const r = row(page, 'rework');
      await expect(r).toHaveAttribute('aria-selected', 'true', { timeout: 60_000 });
      await expect(r).toHaveAttribute('data-status', 'new');
      await expect(r.getByTestId('session-status')).toHaveText('not started');
      await page.screenshot({ path: path.join(SHOTS, `new-${width}.png`) });

      // The main folder changes a.txt meanwhile: the worktree's change to it will conflict.
      await writeFile(path.join(fx.project, 'a.txt'), 'changed in main\n');
      await page.getByTestId('chat-input').fill('rework');
      await page.getByTestId('chat-input').press('Enter');
      await page.getByTestId('approval-allow-once').click({ timeout: 60_000 });
      await expect(r).toHaveAttribute('data-status', 'done', { timeout: 60_000 });
      const stats = r.getByTestId('session-stats');
      await expect(stats).toHaveAttribute('data-files', '2', { timeout: 30_000 });
      await expect(stats).toHaveAttribute('data-added', '4');
      await expect(stats).toHaveAttribute('data-removed', '3');
      await expect(stats).toContainText('+4');
      await expect(stats).toContainText('−3');

      // The review: the conflicting file is listed, not ticked; the other is.
      await r.click();
      const conflict = page.locator('[data-testid="worktree-file"][data-path="a.txt"][data-conflict="true"]');
      await expect(conflict).toBeVisible({ timeout: 30_000 });
      await expect(conflict.getByRole('checkbox')).not.toBeChecked();
      await expect(page.locator('[data-testid="worktree-file"][data-path="notes.txt"]').getByRole('checkbox')).toBeChecked();
      await expect(page.getByTestId('apply-to-main')).toHaveText('Apply to main folder (1 of 2)');
      await page.screenshot({ path: path.join(SHOTS, `review-${width}.png`) });

      await page.getByTestId('apply-to-main').click();
      await expect(page.getByTestId('apply-result')).toBeVisible({ timeout: 30_000 });
      await expect.poll(() => readFile(path.join(fx.project, 'notes.txt'), 'utf8')).toBe(REWORKED);
      expect(await readFile(path.join(fx.project, 'a.txt'), 'utf8')).toBe('changed in main\n');
      // The row follows: one of its two files is in the main folder now.
      await expect(stats).toHaveAttribute('data-applied', '1', { timeout: 30_000 });
      await expect(stats).toHaveAttribute('data-files', '2');
      await page.screenshot({ path: path.join(SHOTS, `applied-${width}.png`) });
    });
  });
}
