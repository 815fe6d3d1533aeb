// The chat's usage meter stays readable while the agent works (Queue and Stop squeezed it to
// nothing), follows a context window saved in Settings at once, and its tooltip never says "no
// price known" beside a priced call. Needs `npm run build` first.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { expect, test, type Locator } from '@playwright/test';
import { userPrompt, type RecordedRequest, type ScriptedReply } from '../test/support/scriptedLlm';
import { sayAndWait, startAgentProject, VIEWPORTS, type AgentProject } from './support/agentProject';

const SHOTS = path.resolve('test-results', 'usage-meter');
const USAGE = { prompt_tokens: 9000, completion_tokens: 1000, total_tokens: 10_000 };

function script(req: RecordedRequest): ScriptedReply {
  const last = (req.body.messages ?? []).at(-1);
  if (last?.role === 'tool') return { content: 'Ran it.', usage: USAGE };
  if (userPrompt(req).includes('run it')) return { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'echo hi', description: 'Say hi' }) }], usage: USAGE };
  return { content: 'Hello.', usage: USAGE };
}

/** The meter's words are all in view: nothing cut, nothing squeezed away. */
async function readable(meter: Locator) {
  const box = await meter.boundingBox();
  expect(box?.width ?? 0).toBeGreaterThan(60);
  const text = meter.getByTestId('chat-usage');
  const fits = await text.evaluate((el) => el.scrollWidth <= el.clientWidth + 1 && el.clientWidth > 0);
  expect(fits, `the meter's text "${await text.innerText()}" is cut`).toBe(true);
}

for (const [width, height] of VIEWPORTS) {
  test.describe(`${width}x${height}`, () => {
    let fx: AgentProject;

    test.beforeAll(async () => {
      await mkdir(SHOTS, { recursive: true });
      // Commands ask (no sandbox), so a request can be held at its card while we look.
      fx = await startAgentProject('meter-project', { 'README.md': '# meter\n' }, script, { settings: { sandbox: 'off' } });
    });
    test.afterAll(async () => {
      await fx?.stop();
    });

    test('readable while working, a saved window at once, a priced session in the tooltip', async ({ page }) => {
      await page.setViewportSize({ width, height });
      await page.goto(fx.served.url);
      await page.getByTestId('agent-tab').click();
      // The first call has no price (the model table is empty): the session is unpriced so far.
      await sayAndWait(page, 'hello');
      const meter = page.getByTestId('usage-meter');
      await expect(meter).toHaveAttribute('data-tokens', '10000');
      await expect(meter).toContainText('10k / 32.8k');

      // A context window and a price saved in Settings: the meter follows before any request.
      await page.getByTestId('settings-open').click();
      await page.getByTestId('settings-context-tokens').fill('64000');
      await page.getByTestId('settings-model-add').click();
      await page.getByRole('textbox', { name: 'Input price of scripted' }).fill('3');
      await page.getByRole('textbox', { name: 'Output price of scripted' }).fill('15');
      await page.getByTestId('settings-save').click();
      await expect(page.getByTestId('settings-dialog')).toHaveCount(0);
      await expect(meter).toHaveAttribute('data-context', '64000');
      await expect(meter).toContainText('10k / 64k');

      // While the agent works (a command waits at its card), Queue and Stop are shown and the meter stays readable.
      await page.getByTestId('chat-input').fill('run it');
      await page.getByTestId('chat-input').press('Enter');
      await expect(page.getByTestId('approval-card')).toBeVisible();
      await page.getByTestId('chat-input').fill('and then this');
      await expect(page.getByTestId('chat-queue')).toBeVisible();
      await expect(page.getByTestId('chat-stop')).toBeVisible();
      await readable(meter);
      await page.screenshot({ path: path.join(SHOTS, `working-${width}.png`) });

      // The call that asked was priced: the tooltip gives the session's cost, and says which calls had none.
      const title = (await meter.getAttribute('title')) ?? '';
      expect(title).toMatch(/Last call: 9,000 in \+ 1,000 out, \$0\.04\./);
      expect(title).not.toMatch(/no price known/);
      expect(title).toMatch(/Session: 18,000 in \+ 2,000 out in 2 calls, \$0\.04 \(1 call before a price was known is not counted\)\./);
      await expect(meter).toContainText('$0.04');
      await page.getByTestId('approval-allow-once').click();
      await expect(page.getByTestId('chat-stop')).toHaveCount(0);
      await readable(meter);
      await page.screenshot({ path: path.join(SHOTS, `done-${width}.png`) });
    });
  });
}
