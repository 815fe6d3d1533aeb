// After "Undo changes from here", the undone request's cards read as undone, and the model's next
// request carries a note saying what the person restored (checked on the scripted model's side).
// Needs `npm run build` first.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { startScriptedLlm, userPrompt, type RecordedRequest, type ScriptedLlm, type ScriptedReply } from '../test/support/scriptedLlm';
import { startServe, type Served } from './support/serve';

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
    let root: string;
    let project: string;
    let served: Served;
    let llm: ScriptedLlm;

    test.beforeAll(async () => {
      root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'loupe-e2e-undo-notes-')));
      project = path.join(root, 'cart');
      await mkdir(path.join(project, 'test'), { recursive: true });
      await writeFile(path.join(project, 'README.md'), '# cart\n');
      await writeFile(path.join(project, 'test/cart.test.ts'), 'test("cart", () => {});\n');
      const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=e@x', '-c', 'user.name=E', ...args], { cwd: project });
      git('init', '-q');
      git('add', '.');
      git('commit', '-qm', 'init');
      llm = await startScriptedLlm(script);
      served = await startServe(project, { OPENAI_BASE_URL: llm.baseURL, LOUPE_MODEL: 'scripted', OPENAI_API_KEY: 'sk-env' });
      await mkdir(SHOTS, { recursive: true });
    });

    test.afterAll(async () => {
      await served?.stop();
      await llm?.close();
      if (root) await rm(root, { recursive: true, force: true });
    });

    test('undone cards say so, and the next request tells the model what came back', async ({ page }) => {
      test.setTimeout(120_000);
      await page.setViewportSize({ width, height });
      await page.goto(served.url);
      await page.getByTestId('agent-tab').click();
      await ask(page, 'clean up');
      const card = page.getByTestId('tool-call').filter({ hasText: 'rm README.md' });
      await expect(card).toHaveAttribute('data-status', 'done');
      await expect(card).not.toHaveAttribute('data-undone', 'true');

      await userMessage(page, 'clean up').hover();
      await userMessage(page, 'clean up').getByTestId('message-undo').click();
      await page.getByTestId('undo-preview').getByTestId('undo-confirm').click();
      await expect(page.getByTestId('undo-notice')).toContainText('Undid');
      expect(await readFile(path.join(project, 'README.md'), 'utf8')).toBe('# cart\n');
      await expect(card).toHaveAttribute('data-undone', 'true');
      await expect(card).toContainText('undone');

      const before = llm.completions.length;
      await ask(page, 'what now');
      const sent = llm.completions.slice(before)[0];
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
