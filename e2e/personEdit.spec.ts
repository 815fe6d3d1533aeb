// The person edits a file in the viewer and saves it (Ctrl+S): the save is their own change in the
// timeline; the agent's later edit of the same file, made from a read before the save, is merged
// onto it; undoing that request leaves the person's lines byte for byte. Needs `npm run build` first.
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { userPrompt, type RecordedRequest, type ScriptedReply } from '../test/support/scriptedLlm';
import { sayAndWait, startAgentProject, userMessage, type AgentProject } from './support/agentProject';

const SHOTS = path.resolve('test-results', 'person-edit');
// CRLF on disk: the person's save keeps the file's own line endings.
const NOTES = ['one', 'two', 'three', 'four', 'five', 'six', 'seven'].map((l) => `${l}\r\n`).join('');

function script(req: RecordedRequest): ScriptedReply {
  const messages = req.body.messages ?? [];
  const last = messages[messages.length - 1];
  const prompt = userPrompt(req);
  const lastCall = [...messages].reverse().find((m) => m.role === 'assistant' && m.tool_calls?.length)?.tool_calls?.[0]?.function.name;
  // "retitle the plan": read it, then change its first line (the line the person is editing).
  if (prompt.endsWith('retitle the plan') && last?.role === 'tool' && lastCall === 'read_file') return { toolCalls: [{ name: 'edit_file', arguments: JSON.stringify({ path: 'plan.txt', old_str: 'Plan', new_str: 'The agent’s plan' }) }] };
  if (prompt.endsWith('retitle the plan') && last?.role !== 'tool') return { toolCalls: [{ name: 'read_file', arguments: JSON.stringify({ path: 'plan.txt' }) }] };
  if (last?.role === 'tool') return { content: `Done: ${prompt.split('\n').at(-1)}.` };
  if (prompt.endsWith('read the notes')) return { toolCalls: [{ name: 'read_file', arguments: JSON.stringify({ path: 'notes.txt' }) }] };
  if (prompt.endsWith('change six')) return { toolCalls: [{ name: 'edit_file', arguments: JSON.stringify({ path: 'notes.txt', old_str: 'six', new_str: 'six and a half' }) }] };
  return { content: `Done: ${prompt.split('\n').at(-1)}.` };
}

for (const [width, height] of [
  [1024, 700],
  [1920, 1080],
] as const) {
  test.describe(`${width}x${height}`, () => {
    let fx: AgentProject;
    const disk = (rel = 'notes.txt') => readFile(path.join(fx.project, rel));

    test.beforeAll(async () => {
      fx = await startAgentProject('notes', { 'notes.txt': NOTES, 'plan.txt': 'Plan\nstep one\n' }, script);
      await mkdir(SHOTS, { recursive: true });
    });

    test.afterAll(async () => {
      await fx?.stop();
    });

    test('a save in the viewer is the person’s change, and undoing the agent’s later edit keeps it byte for byte', async ({ page }) => {
      test.setTimeout(150_000);
      await page.setViewportSize({ width, height });
      await page.goto(fx.served.url);
      await expect(page.getByTestId('workspace-root')).toContainText('notes');
      await page.getByTestId('agent-tab').click();
      await sayAndWait(page, 'read the notes');

      // The person opens the file, adds a line under "two" and saves with Ctrl+S.
      await page.keyboard.press('Control+p');
      await page.getByTestId('quick-open').locator('input').fill('notes');
      await expect(page.getByTestId('quick-open-item').first()).toHaveAttribute('data-path', 'notes.txt');
      await page.getByTestId('quick-open').locator('input').press('Enter');
      const viewer = page.getByTestId('file-viewer');
      await expect(viewer).toHaveAttribute('data-path', 'notes.txt');
      await expect(viewer.getByTestId('file-save')).toBeDisabled();
      await expect(viewer.getByTestId('viewer-read-only')).toHaveCount(0);
      await viewer.locator('.view-line', { hasText: 'two' }).click();
      await page.keyboard.press('End');
      await page.keyboard.type('\nmy own line');
      await expect(viewer.getByTestId('file-tab').filter({ hasText: 'notes.txt' })).toHaveAttribute('data-dirty', 'true');
      await expect(viewer.getByTestId('file-save')).toBeEnabled();
      await page.screenshot({ path: path.join(SHOTS, `unsaved-${width}.png`) });
      await page.keyboard.press('Control+s');
      await expect(viewer.getByTestId('file-save-state')).toHaveText('Saved');
      await expect(viewer.getByTestId('file-tab').filter({ hasText: 'notes.txt' })).not.toHaveAttribute('data-dirty', 'true');
      const mine = NOTES.replace('two\r\n', 'two\r\nmy own line\r\n');
      await expect.poll(async () => (await disk()).toString('utf8')).toBe(mine);
      const personBytes = await disk();

      // The timeline names the save as the person's own.
      await page.getByTestId('review-tab').click();
      const row = page.locator('[data-testid="timeline-entry"][data-file="notes.txt"][data-tool="person"]');
      await expect(row).toHaveCount(1);
      await expect(row.getByTestId('timeline-reason')).toHaveText('Saved in the editor');
      await expect(row.getByTestId('timeline-by-person')).toHaveText('You');
      await page.screenshot({ path: path.join(SHOTS, `timeline-${width}.png`) });

      // The agent edits the same file from its read before the save: merged onto the person's text.
      await page.getByTestId('agent-tab').click();
      const before = fx.llm.completions.length;
      await sayAndWait(page, 'change six');
      expect(userPrompt(fx.llm.completions[before])).toContain('The person edited notes.txt in the editor.');
      const edited = mine.replace('six', 'six and a half');
      await expect.poll(async () => (await disk()).toString('utf8')).toBe(edited);
      // The viewer shows the agent's change beside the person's line.
      await expect(viewer.locator('.view-line', { hasText: 'six and a half' })).toBeVisible();
      await expect(viewer.getByTestId('file-tab').filter({ hasText: 'notes.txt' })).not.toHaveAttribute('data-dirty', 'true');

      // Undo the agent's request: the person's lines survive, byte for byte.
      await userMessage(page, 'change six').hover();
      await userMessage(page, 'change six').getByTestId('message-undo').click();
      await page.getByTestId('undo-preview').getByTestId('undo-confirm').click();
      await expect(page.getByTestId('undo-notice')).toContainText('Undid');
      await expect.poll(async () => (await disk()).equals(personBytes)).toBe(true);
      await expect(viewer.locator('.view-line', { hasText: 'my own line' })).toBeVisible();
      await expect(viewer.locator('.view-line', { hasText: 'six and a half' })).toHaveCount(0);
      await page.screenshot({ path: path.join(SHOTS, `undone-${width}.png`) });
    });

    test('unsaved edits survive the agent changing the same line: the save says so, and saving over it is the person’s choice', async ({ page }) => {
      test.setTimeout(150_000);
      await page.setViewportSize({ width, height });
      await page.goto(fx.served.url);
      await expect(page.getByTestId('workspace-root')).toContainText('notes');
      await page.keyboard.press('Control+p');
      await page.getByTestId('quick-open').locator('input').fill('plan');
      await expect(page.getByTestId('quick-open-item').first()).toHaveAttribute('data-path', 'plan.txt');
      await page.getByTestId('quick-open').locator('input').press('Enter');
      const viewer = page.getByTestId('file-viewer');
      await expect(viewer).toHaveAttribute('data-path', 'plan.txt');
      await viewer.locator('.view-line', { hasText: 'Plan' }).click();
      await page.keyboard.press('End');
      await page.keyboard.type(' for the week');
      await expect(viewer.getByTestId('file-save')).toBeEnabled();

      // The agent changes the same line on disk while the person's edit is unsaved: the buffer keeps it.
      await page.getByTestId('agent-tab').click();
      await sayAndWait(page, 'retitle the plan');
      await expect.poll(async () => (await disk('plan.txt')).toString('utf8')).toBe('The agent’s plan\nstep one\n');
      await expect(viewer.locator('.view-line', { hasText: 'Plan for the week' })).toBeVisible();

      await viewer.getByTestId('file-save').click();
      const problem = viewer.getByTestId('save-problem');
      await expect(problem).toHaveAttribute('data-conflict', 'true');
      await expect(problem).toContainText('Nothing was saved');
      expect((await disk('plan.txt')).toString('utf8')).toBe('The agent’s plan\nstep one\n');
      await page.screenshot({ path: path.join(SHOTS, `conflict-${width}.png`) });

      await problem.getByTestId('save-overwrite').click();
      await expect.poll(async () => (await disk('plan.txt')).toString('utf8')).toBe('Plan for the week\nstep one\n');
      await expect(viewer.getByTestId('file-save-state')).toHaveText('Saved');
      await expect(problem).toHaveCount(0);
    });
  });
}
