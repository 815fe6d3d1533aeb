// Notices of an undo and a redo fade after a few seconds; Redo shows a preview like undo's, and a
// redo that would overwrite the person's work since the undo says so in plain words before
// anything is written, then redoes the rest and keeps their file. Needs `npm run build` first.
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { userPrompt, type RecordedRequest, type ScriptedReply } from '../test/support/scriptedLlm';
import { sayAndWait, startAgentProject, VIEWPORTS, type AgentProject } from './support/agentProject';

const SHOTS = path.resolve('test-results', 'notices');
const NOTES = 'one\ntwo\nthree\n';
/** Past the 6 s a notice stays (src/renderer/chat/UndoNotice.tsx). */
const FADED_MS = 7000;

function script(req: RecordedRequest): ScriptedReply {
  const last = req.body.messages?.at(-1);
  if (last?.role === 'tool') return { content: 'Done.' };
  if (userPrompt(req).startsWith('generate'))
    return { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: "printf 'generated\\n' > gen.txt && sed -i 's/two/TWO/' notes.md", description: 'Generate and fix notes' }) }] };
  return { content: 'Hello.' };
}

const userMessage = (page: Page, text: string) => page.locator('.chat-user').filter({ has: page.locator('[data-testid="chat-message"][data-role="user"]', { hasText: text }) });

for (const [width, height] of VIEWPORTS) {
  test.describe(`${width}x${height}`, () => {
    let p: AgentProject;
    test.beforeAll(async () => {
      p = await startAgentProject('notices', { 'notes.md': NOTES }, script);
    });
    test.afterAll(async () => {
      await p?.stop();
    });

    test('undo and redo notices fade; a redo over the person’s edit is previewed and explained', async ({ page }) => {
      test.setTimeout(120_000);
      const disk = (rel: string) => readFile(path.join(p.project, rel), 'utf8');
      const exists = (rel: string) => stat(path.join(p.project, rel)).then(() => true, () => false);
      await page.setViewportSize({ width, height });
      // The page's clock, so that a notice's few seconds on screen pass at once.
      await page.clock.install();
      await page.goto(p.served.url);
      await page.getByTestId('agent-tab').click();
      await sayAndWait(page, 'generate the file');
      expect(await disk('notes.md')).toBe('one\nTWO\nthree\n');

      await userMessage(page, 'generate').hover();
      await userMessage(page, 'generate').getByTestId('message-undo').click();
      await page.getByTestId('undo-preview').getByTestId('undo-confirm').click();
      const notice = page.getByTestId('undo-notice');
      await expect(notice).toContainText('Undid 2 changes in 2 files');
      expect(await exists('gen.txt')).toBe(false);
      // It goes by itself (after 6 s): the message's Redo is the lasting record.
      await page.clock.fastForward(FADED_MS);
      await expect(notice).toHaveCount(0);

      // The person writes the line the undo restored; Redo would take it away.
      await writeFile(path.join(p.project, 'notes.md'), 'one\ntwo (mine)\nthree\n');
      await userMessage(page, 'generate').hover();
      await userMessage(page, 'generate').getByTestId('message-redo').click();
      const preview = page.getByTestId('undo-preview');
      await expect(preview).toHaveAttribute('data-kind', 'redo');
      await expect(preview).toContainText('Redo the undone changes');
      await expect(preview.locator('[data-testid="undo-file"][data-path="notes.md"]')).toHaveAttribute('data-conflict', 'true');
      await expect(preview.getByTestId('undo-conflicts')).toContainText('1 file was changed since the undo, by you or another program: redoing it would overwrite that work. Skip it and redo the rest');
      await preview.locator('[data-testid="undo-file"][data-path="gen.txt"]').click();
      await expect(preview.getByTestId('undo-diff')).toContainText('generated');
      await page.screenshot({ path: path.join(SHOTS, `redo-preview-${width}.png`) });
      // Nothing was written while the person reads.
      expect(await exists('gen.txt')).toBe(false);
      await expect(preview.getByTestId('undo-confirm')).toHaveText('Redo 1 file, skip 1');
      await preview.getByTestId('undo-confirm').click();
      await expect(preview).toBeHidden();
      await expect(notice).toContainText('Redid the undone changes in 1 file; left 1 conflicting file as it is.');
      await page.screenshot({ path: path.join(SHOTS, `redid-${width}.png`) });
      expect(await disk('gen.txt')).toBe('generated\n');
      expect(await disk('notes.md')).toBe('one\ntwo (mine)\nthree\n');
      await expect(userMessage(page, 'generate').getByTestId('message-undo')).toHaveCount(1);
      await page.clock.fastForward(FADED_MS);
      await expect(notice).toHaveCount(0);
    });
  });
}
