// The small things of daily use, each as the person meets it: a command's card is headed by the
// model's description of it; "Undo changes from here" only on requests that changed something;
// the status bar's file count follows the tree; an @ mention stays in the sentence; Attach for
// images and thumbnails of sent ones; Test connection in Settings names the model it
// asked. Needs `npm run build` first.
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { expect, test, type Page } from '@playwright/test';
import { userPrompt, type RecordedRequest, type ScriptedReply } from '../test/support/scriptedLlm';
import { sayAndWait, startAgentProject, VIEWPORTS, type AgentProject } from './support/agentProject';

const SHOTS = path.resolve('test-results', 'small-things');

function script(req: RecordedRequest): ScriptedReply {
  const last = req.body.messages?.at(-1);
  if (last?.role === 'tool') return { content: 'Done.' };
  const prompt = userPrompt(req);
  // "generate <name>": a file of that name, new each time, so each request changes something.
  const gen = /^generate (\S+)/.exec(prompt);
  if (gen) return { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: `printf 'generated\\n' > ${gen[1]} && echo wrote it`, description: 'Write the generated file' }) }] };
  if (prompt.startsWith('look')) return { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'cat notes.md', description: 'Show the notes' }) }] };
  return { content: 'Hello.' };
}

/** A `w`×`h` PNG in two colours (a picture a thumbnail can be seen to show). */
function png(w: number, h: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type), data]);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const rows = Buffer.alloc((w * 3 + 1) * h);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) rows.set(x < w / 2 ? [230, 120, 40] : [40, 120, 230], y * (w * 3 + 1) + 1 + x * 3);
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}

const userMessage = (page: Page, text: string) => page.locator('.chat-user').filter({ has: page.locator('[data-testid="chat-message"][data-role="user"]', { hasText: text }) });

for (const [width, height] of VIEWPORTS) {
  test.describe(`${width}x${height}`, () => {
    let p: AgentProject;
    test.beforeAll(async () => {
      p = await startAgentProject('small-things', { 'notes.md': 'one NOTES-CONTENT\n' }, script, { settings: { llm: { models: { scripted: { images: true } } } } });
    });
    test.afterAll(async () => {
      await p?.stop();
    });

    test('a command card is headed by what the model said it does', async ({ page }) => {
      await page.setViewportSize({ width, height });
      await page.goto(p.served.url);
      await page.getByTestId('agent-tab').click();
      await page.getByTestId('chat-new-session').click();
      await sayAndWait(page, 'look at the notes');
      await sayAndWait(page, 'generate one.txt');
      const card = page.getByTestId('tool-call').filter({ hasText: 'printf' });
      await expect(card.getByTestId('tool-call-description')).toHaveText('Write the generated file');
      await expect(card.getByTestId('tool-call-description')).toBeVisible();
      // The command it describes is the line below, whole in its title.
      await expect(card.getByTestId('tool-call-command')).toHaveAttribute('title', "printf 'generated\\n' > one.txt && echo wrote it");
      await expect(page.getByTestId('tool-call').filter({ hasText: 'cat notes.md' }).getByTestId('tool-call-description')).toHaveText('Show the notes');
      await page.screenshot({ path: path.join(SHOTS, `cards-${width}.png`) });
    });

    test('"Undo changes from here" only on requests that changed something', async ({ page }) => {
      await page.setViewportSize({ width, height });
      await page.goto(p.served.url);
      await page.getByTestId('agent-tab').click();
      await page.getByTestId('chat-new-session').click();
      await sayAndWait(page, 'hello there');
      await sayAndWait(page, 'look at the notes');
      await sayAndWait(page, 'generate two.txt');
      // The request that wrote a file offers to undo it; a greeting and a read offer nothing to undo.
      await userMessage(page, 'generate').hover();
      await expect(userMessage(page, 'generate').getByTestId('message-undo')).toBeVisible();
      await expect(userMessage(page, 'hello there').getByTestId('message-undo')).toHaveCount(0);
      await expect(userMessage(page, 'look at').getByTestId('message-undo')).toHaveCount(0);
      // Edit stays on every message.
      await expect(userMessage(page, 'hello there').getByTestId('message-edit')).toHaveCount(1);
      await page.screenshot({ path: path.join(SHOTS, `undo-only-${width}.png`) });
    });

    test('the status bar\'s file count follows the tree as files come and go', async ({ page }) => {
      await page.setViewportSize({ width, height });
      await page.goto(p.served.url);
      const status = page.getByTestId('index-status');
      await expect(status).toHaveText(/^\d+ files?$/);
      const n = Number((await status.textContent())!.split(' ')[0]);
      await writeFile(path.join(p.project, 'added-by-hand.md'), 'hi\n');
      await expect(page.locator('[data-testid="file-tree-item"][data-path="added-by-hand.md"]')).toBeVisible();
      await expect(status).toHaveText(`${n + 1} files`);
      await page.screenshot({ path: path.join(SHOTS, `file-count-${width}.png`) });
      await rm(path.join(p.project, 'added-by-hand.md'));
      await expect(page.locator('[data-testid="file-tree-item"][data-path="added-by-hand.md"]')).toHaveCount(0);
      await expect(status).toHaveText(n === 1 ? '1 file' : `${n} files`);
    });

    test('an @ mention stays in the sentence as text while its file is attached', async ({ page }) => {
      await page.setViewportSize({ width, height });
      await page.goto(p.served.url);
      await page.getByTestId('agent-tab').click();
      await page.getByTestId('chat-new-session').click();
      const input = page.getByTestId('chat-input');
      await input.click();
      await input.pressSequentially('what is in @note');
      await expect(page.getByTestId('mention-picker').getByTestId('mention-item').first()).toHaveAttribute('data-path', 'notes.md');
      await input.press('Enter');
      await expect(input).toHaveValue('what is in @notes.md ');
      await expect(page.getByTestId('attachment-chip')).toHaveAttribute('data-path', 'notes.md');
      await input.pressSequentially('today?');
      await page.screenshot({ path: path.join(SHOTS, `mention-${width}.png`) });
      const before = p.llm.completions.length;
      await input.press('Enter');
      await expect(page.locator('[data-testid="chat-message"][data-role="user"]').last()).toHaveText('what is in @notes.md today?');
      await expect(page.getByTestId('message-attachment')).toContainText('notes.md');
      await expect.poll(() => p.llm.completions.length).toBeGreaterThan(before);
      const sent = JSON.stringify(p.llm.completions[before].body.messages?.at(-1));
      expect(sent).toContain('what is in @notes.md today?');
      expect(sent).toContain('NOTES-CONTENT');
    });

    test('Attach chooses images from disk; a sent image shows as a thumbnail', async ({ page }) => {
      await page.setViewportSize({ width, height });
      await page.goto(p.served.url);
      await page.getByTestId('agent-tab').click();
      await page.getByTestId('chat-new-session').click();
      const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByTestId('chat-attach-image').click()]);
      expect(chooser.isMultiple()).toBe(true);
      await chooser.setFiles({ name: 'screen.png', mimeType: 'image/png', buffer: png(120, 80) });
      await expect(page.locator('[data-testid="attachment-chip"][data-kind="image"]')).toHaveAttribute('data-path', 'screen.png');
      const before = p.llm.completions.length;
      await page.getByTestId('chat-input').fill('what is on this screen?');
      await page.getByTestId('chat-input').press('Enter');
      const thumb = page.getByTestId('message-attachment-thumb');
      await expect(thumb).toBeVisible();
      await expect(thumb).toHaveAttribute('src', /^data:image\/jpeg;base64,/);
      expect(await thumb.evaluate((img: HTMLImageElement) => [img.naturalWidth, img.naturalHeight])).toEqual([96, 64]);
      await expect.poll(() => p.llm.completions.length).toBeGreaterThan(before);
      expect(JSON.stringify(p.llm.completions[before].body.messages?.at(-1))).toContain('data:image/png;base64,');
      await page.screenshot({ path: path.join(SHOTS, `thumbnail-${width}.png`) });
      // It stays with the conversation: a reload shows it again.
      await page.reload();
      await page.getByTestId('agent-tab').click();
      await expect(page.getByTestId('message-attachment-thumb')).toBeVisible();
    });

    test('Test connection names the model it asked, also when the form leaves it to the saved one', async ({ page }) => {
      await page.setViewportSize({ width, height });
      await page.goto(p.served.url);
      await page.getByTestId('agent-tab').click();
      await page.getByTestId('settings-open').click();
      await expect(page.getByTestId('settings-model')).toHaveValue('scripted');
      await page.getByTestId('settings-model').fill('');
      await page.getByRole('button', { name: 'Test connection' }).click();
      await expect(page.getByTestId('settings-test-result')).toContainText(/Connected in \d+ ms to scripted/);
      await page.screenshot({ path: path.join(SHOTS, `test-connection-${width}.png`) });
    });
  });
}
