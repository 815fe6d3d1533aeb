// After "Undo changes from here", the undone request's cards read as undone, and the model's next
// request carries a note saying what the person restored (checked on the scripted model's side).
// Needs `npm run build` first.
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { userPrompt, type RecordedRequest, type ScriptedReply } from '../test/support/scriptedLlm';
import { startAgentProject, type AgentProject } from './support/agentProject';

const SHOTS = path.resolve('test-results', 'undo-notes');

function script(req: RecordedRequest): ScriptedReply {
  const messages = req.body.messages ?? [];
  const last = messages[messages.length - 1];
  const prompt = userPrompt(req);
  if (last?.role === 'tool') return { content: `Done: ${prompt.split('\n').at(-1)}.` };
  if (prompt.endsWith('clean up')) return { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'rm README.md test/cart.test.ts', description: 'Delete the readme and the test' }) }] };
  return { content: `Done: ${prompt.split('\n').at(-1)}.` };
}

const userMessage = (page: Page, text: string) => page.locator('.chat-user').filter({ has: page.locator('[data-testid="chat-message"][data-role="user"]', { hasText: text }) });

async function ask(page: Page, text: string) {
  await page.getByTestId('chat-input').fill(text);
  await page.getByTestId('chat-input').press('Enter');
  await expect(page.getByTestId('chat-message').filter({ hasText: `Done: ${text}.` })).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('chat-send')).toBeVisible();
}

for (const [width, height] of [
  [1024, 700],
  [1920, 1080],
] as const) {
  test.describe(`${width}x${height}`, () => {
    let fx: AgentProject;

    test.beforeAll(async () => {
      fx = await startAgentProject('cart', { 'README.md': '# cart\n', 'test/cart.test.ts': 'test("cart", () => {});\n' }, script);
      await mkdir(SHOTS, { recursive: true });
    });

    test.afterAll(async () => {
      await fx?.stop();
    });

    test('undone cards say so, and the next request tells the model what came back', async ({ page }) => {
      test.setTimeout(120_000);
      await page.setViewportSize({ width, height });
      await page.goto(fx.served.url);
      await page.getByTestId('agent-tab').click();
      await ask(page, 'clean up');
      const card = page.getByTestId('tool-call').filter({ hasText: 'rm README.md' });
      await expect(card).toHaveAttribute('data-status', 'done');
      await expect(card).not.toHaveAttribute('data-undone', 'true');

      await userMessage(page, 'clean up').hover();
      await userMessage(page, 'clean up').getByTestId('message-undo').click();
      await page.getByTestId('undo-preview').getByTestId('undo-confirm').click();
      await expect(page.getByTestId('undo-notice')).toContainText('Undid');
      expect(await readFile(path.join(fx.project, 'README.md'), 'utf8')).toBe('# cart\n');
      await expect(card).toHaveAttribute('data-undone', 'true');
      await expect(card).toContainText('undone');

      const before = fx.llm.completions.length;
      await ask(page, 'what now');
      const sent = fx.llm.completions.slice(before)[0];
      const told = userPrompt(sent);
      expect(told).toMatch(/The person undid request req-[\w-]+: README\.md restored, test\/cart\.test\.ts restored\./);
      expect(told.endsWith('what now')).toBe(true);
      await expect(page.locator('.chat-note').filter({ hasText: 'Told the agent: The person undid request' })).toBeVisible();
      await page.screenshot({ path: path.join(SHOTS, `undone-${width}.png`), fullPage: false });

      // A reload draws the same: the card still reads undone.
      await page.reload();
      await page.getByTestId('agent-tab').click();
      await expect(page.getByTestId('tool-call').filter({ hasText: 'rm README.md' })).toHaveAttribute('data-undone', 'true');
    });
  });
}
