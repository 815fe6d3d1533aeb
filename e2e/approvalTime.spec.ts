// Small things around an approval: a call's duration leaves out the time its card waited for the
// person, and the transcript keeps following the end after the card is answered, unless the
// person scrolled up to read. Needs `npm run build` first.
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { userPrompt, type RecordedRequest, type ScriptedReply } from '../test/support/scriptedLlm';
import { sayAndWait, startAgentProject, VIEWPORTS, type AgentProject } from './support/agentProject';

const SHOTS = path.resolve('test-results', 'approval-time');
/** How long the test leaves the card waiting: far longer than `echo` takes, even on a busy machine. */
const WAIT_MS = 6000;

function script(req: RecordedRequest): ScriptedReply {
  const last = (req.body.messages ?? []).at(-1);
  const prompt = userPrompt(req);
  if (last?.role === 'tool') return { content: `Finished: ${prompt}.` };
  if (prompt.startsWith('tell')) return { content: Array.from({ length: 40 }, (_, i) => `Line ${i + 1} of a long answer.`).join('\n\n') };
  return { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: `echo ${prompt.replace(/\W+/g, '-')}`, description: 'Say it' }) }] };
}

/** The chat list's distance from its end, in pixels. */
const fromEnd = (page: Page) => page.locator('.chat-list').evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);

for (const [width, height] of VIEWPORTS) {
  test.describe(`${width}x${height}`, () => {
    let fx: AgentProject;
    test.beforeAll(async () => {
      // No sandbox: every command is a card.
      fx = await startAgentProject('approval-time', { 'README.md': '# time\n' }, script, { settings: { sandbox: 'off' } });
    });
    test.afterAll(async () => {
      await fx?.stop();
    });

    test('a call’s duration leaves out the wait for approval', async ({ page }) => {
      await page.setViewportSize({ width, height });
      await page.goto(fx.served.url);
      await page.getByTestId('agent-tab').click();
      await page.getByTestId('chat-new-session').click();
      const input = page.getByTestId('chat-input');
      await input.fill('time this');
      await input.press('Enter');
      const card = page.getByTestId('approval-card');
      await expect(card).toBeVisible();
      await page.waitForTimeout(WAIT_MS);
      await card.getByRole('button', { name: 'Allow once' }).click();
      const tool = page.locator('[data-testid="tool-call"][data-tool="bash"]').filter({ hasText: 'echo time-this' });
      await expect(tool).toHaveAttribute('data-status', 'done');
      const state = (await tool.locator('.tool-state').textContent()) ?? '';
      const m = /done · (\d+(?:\.\d+)?) (ms|s)$/.exec(state);
      expect(m, state).not.toBeNull();
      const ms = Number(m![1]) * (m![2] === 's' ? 1000 : 1);
      expect(ms).toBeLessThan(WAIT_MS);
      await page.screenshot({ path: path.join(SHOTS, `duration-${width}.png`) });
    });

    test('after an approval the transcript keeps following the end, unless the person scrolled up', async ({ page }) => {
      await page.setViewportSize({ width, height });
      await page.goto(fx.served.url);
      await page.getByTestId('agent-tab').click();
      await page.getByTestId('chat-new-session').click();
      await sayAndWait(page, 'tell me a lot');
      await sayAndWait(page, 'tell me more');
      const input = page.getByTestId('chat-input');
      const card = page.getByTestId('approval-card');

      await input.fill('follow this');
      await input.press('Enter');
      await expect(card).toBeVisible();
      await input.press('Control+Enter');
      const finished = page.getByTestId('chat-message').filter({ hasText: 'Finished: follow this.' });
      await expect(finished).toBeVisible();
      await expect.poll(() => fromEnd(page)).toBeLessThan(40);
      await expect(finished).toBeInViewport();
      await expect(page.getByTestId('jump-to-latest')).toHaveCount(0);
      await page.screenshot({ path: path.join(SHOTS, `followed-${width}.png`) });

      // Scrolled up to read: the answer comes below, the view stays, the jump is offered.
      await input.fill('stay put');
      await input.press('Enter');
      await expect(card).toBeVisible();
      await page.locator('.chat-list').evaluate((el) => (el.scrollTop = 0));
      await expect(page.getByTestId('jump-to-latest')).toBeVisible();
      await input.press('Control+Enter');
      await expect(page.getByTestId('chat-message').filter({ hasText: 'Finished: stay put.' })).toHaveCount(1);
      expect(await page.locator('.chat-list').evaluate((el) => el.scrollTop)).toBe(0);
      await expect(page.getByTestId('jump-to-latest')).toBeVisible();
    });
  });
}
