// The timeline names each request by its prompt, shows an undo and a redo as one step each, and
// the diff's header says what a modification was in words. Needs `npm run build` first.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { userPrompt, type RecordedRequest, type ScriptedReply } from '../test/support/scriptedLlm';
import { sayAndWait, startAgentProject, userMessage, type AgentProject } from './support/agentProject';

const SHOTS = path.resolve('test-results', 'timeline-steps');

function script(req: RecordedRequest): ScriptedReply {
  const messages = req.body.messages ?? [];
  if (messages[messages.length - 1]?.role === 'tool') return { content: 'Done.' };
  if (userPrompt(req).includes('tidy up the notes')) {
    return {
      toolCalls: [
        { name: 'write_file', arguments: JSON.stringify({ path: 'a.txt', content: 'alpha\n' }) },
        { name: 'write_file', arguments: JSON.stringify({ path: 'b.txt', content: 'beta\n' }) },
      ],
    };
  }
  return { content: 'Hello.' };
}

for (const [width, height] of [
  [1024, 700],
  [1920, 1080],
] as const) {
  test.describe(`${width}x${height}`, () => {
    let fx: AgentProject;

    test.beforeAll(async () => {
      fx = await startAgentProject('steps', { 'README.md': '# steps\n' }, script);
      await mkdir(SHOTS, { recursive: true });
    });

    test.afterAll(async () => {
      await fx?.stop();
    });

    test('rows name the request by its prompt; an undo and a redo are one row each; the diff header says it in words', async ({ page }) => {
      test.setTimeout(150_000);
      await page.setViewportSize({ width, height });
      await page.goto(fx.served.url);
      await expect(page.getByTestId('workspace-root')).toContainText('steps');
      await page.getByTestId('agent-tab').click();
      await sayAndWait(page, 'tidy up the notes\nand keep it short');

      await page.getByTestId('review-tab').click();
      const written = page.locator('[data-testid="timeline-entry"]:not([data-group-kind])');
      await expect(written).toHaveCount(2);
      for (const row of await written.all()) await expect(row.getByTestId('timeline-request')).toHaveText('tidy up the notes');
      await page.locator('[data-testid="timeline-entry"][data-file="a.txt"]').click();
      await expect(page.getByTestId('diff-words')).toHaveText('Created by write_file for “tidy up the notes”');

      // Undo the request: one step in the timeline, naming what it undid.
      await page.getByTestId('agent-tab').click();
      await userMessage(page, 'tidy up the notes').hover();
      await userMessage(page, 'tidy up the notes').getByTestId('message-undo').click();
      await page.getByTestId('undo-preview').getByTestId('undo-confirm').click();
      await expect(page.getByTestId('undo-notice')).toContainText('Undid');
      await page.getByTestId('review-tab').click();
      const undo = page.locator('[data-testid="timeline-entry"][data-group-kind="undo"]');
      await expect(undo).toHaveCount(1);
      await expect(undo).toHaveAttribute('data-step-files', '2');
      await expect(undo.getByTestId('timeline-reason')).toHaveText('Undid “tidy up the notes”');
      await expect(undo).toContainText('2 files');
      await page.screenshot({ path: path.join(SHOTS, `undo-${width}.png`) });

      // Its files, one by one, when the step is opened; each diff says what it was.
      await undo.click();
      await expect(page.locator('[data-testid="timeline-entry"][data-group-kind="undo"]')).toHaveCount(2);
      await page.locator('[data-testid="timeline-entry"][data-group-kind="undo"][data-file="b.txt"]').click();
      await expect(page.getByTestId('diff-words')).toHaveText('Undo of “tidy up the notes”');
      await page.screenshot({ path: path.join(SHOTS, `undo-files-${width}.png`) });
      await page.getByRole('button', { name: 'Clear filters' }).click();

      // Redo: one more step.
      await page.getByTestId('agent-tab').click();
      await userMessage(page, 'tidy up the notes').getByTestId('message-redo').click();
      // A redo shows what it will write first, as an undo does.
      const preview = page.getByTestId('undo-preview');
      await expect(preview).toHaveAttribute('data-kind', 'redo');
      await preview.getByTestId('undo-confirm').click();
      await expect(page.getByTestId('undo-notice')).toContainText('Redid');
      await page.getByTestId('review-tab').click();
      const redo = page.locator('[data-testid="timeline-entry"][data-group-kind="redo"]');
      await expect(redo).toHaveCount(1);
      await expect(redo.getByTestId('timeline-reason')).toHaveText('Redid “tidy up the notes”');
      await expect(page.getByTestId('timeline-entry')).toHaveCount(4);
      await page.screenshot({ path: path.join(SHOTS, `redo-${width}.png`) });

      // After a reload the names come from the saved session.
      await page.reload();
      await page.getByTestId('review-tab').click();
      await expect(page.locator('[data-testid="timeline-entry"][data-file="a.txt"]:not([data-group-kind])').getByTestId('timeline-request')).toHaveText('tidy up the notes');
      await expect(page.locator('[data-testid="timeline-entry"][data-group-kind="undo"]').getByTestId('timeline-reason')).toHaveText('Undid “tidy up the notes”');
    });
  });
}
