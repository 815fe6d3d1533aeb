// Ctrl+Enter and Esc answer the first waiting card from the chat input, as the queue's title
// says; what is typed in the input stays there, unsent. Needs `npm run build` first.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { userPrompt, type RecordedRequest, type ScriptedReply } from '../test/support/scriptedLlm';
import { startAgentProject, VIEWPORTS, type AgentProject } from './support/agentProject';

const SHOTS = path.resolve('test-results', 'approval-keys');

function script(req: RecordedRequest): ScriptedReply {
  const last = (req.body.messages ?? []).at(-1);
  const prompt = userPrompt(req);
  if (last?.role === 'tool') return { content: `Finished: ${prompt}.` };
  return { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: `echo ${prompt.replace(/\W+/g, '-')}`, description: 'Say it' }) }] };
}

for (const [width, height] of VIEWPORTS) {
  test.describe(`${width}x${height}`, () => {
    let fx: AgentProject;

    test.beforeAll(async () => {
      await mkdir(SHOTS, { recursive: true });
      // No sandbox: every command is a card.
      fx = await startAgentProject('keys-project', { 'README.md': '# keys\n' }, script, { settings: { sandbox: 'off' } });
    });
    test.afterAll(async () => {
      await fx?.stop();
    });

    test('Ctrl+Enter allows and Esc denies the first card while the chat input has the focus', async ({ page }) => {
      await page.setViewportSize({ width, height });
      await page.goto(fx.served.url);
      await page.getByTestId('agent-tab').click();
      const input = page.getByTestId('chat-input');
      const card = page.getByTestId('approval-card');
      const tool = (text: string) => page.locator('[data-testid="tool-call"][data-tool="bash"]').filter({ hasText: text });

      await input.fill('allow this');
      await input.press('Enter');
      await expect(card).toBeVisible();
      await expect(page.getByTestId('approval-keys')).toHaveText('Ctrl+Enter allow once · Esc deny');
      // The person is typing the next message when the card comes: the keys still answer it.
      await input.fill('a draft');
      await expect(input).toBeFocused();
      await page.screenshot({ path: path.join(SHOTS, `waiting-${width}.png`) });
      await input.press('Control+Enter');
      await expect(card).toHaveCount(0);
      await expect(tool('echo allow-this')).toHaveAttribute('data-status', 'done');
      await expect(page.getByTestId('chat-message').filter({ hasText: 'Finished: allow this.' })).toBeVisible();
      await expect(input).toHaveValue('a draft');
      await expect(page.getByTestId('queued-message')).toHaveCount(0);

      await input.fill('deny this');
      await input.press('Enter');
      await expect(card).toBeVisible();
      await input.fill('another draft');
      await input.press('Escape');
      await expect(card).toHaveCount(0);
      await expect(tool('echo deny-this')).toHaveAttribute('data-status', 'error');
      await expect(tool('echo deny-this')).toContainText(/denied/i);
      await expect(input).toHaveValue('another draft');
      await page.screenshot({ path: path.join(SHOTS, `denied-${width}.png`) });

      // With no card waiting, Esc leaves the input alone and sends nothing.
      await input.press('Escape');
      await expect(input).toHaveValue('another draft');
      expect(fx.llm.completions.filter((r) => userPrompt(r) === 'another draft')).toHaveLength(0);
    });
  });
}
