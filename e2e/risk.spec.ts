// Risk is visible: a destructive or irreversible command gets a card that says why
// (`data-risk="high"`), with Deny as its default button and no Ctrl+Enter allow; a harmless
// one does not; a background process's card says it keeps running; and inside the sandbox a
// destructive command still asks. Needs `npm run build` first.
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { userPrompt, type RecordedRequest, type ScriptedReply } from '../test/support/scriptedLlm';
import { startAgentProject, VIEWPORTS, type AgentProject } from './support/agentProject';

const SHOTS = path.resolve('test-results', 'risk');
const OUTSIDE = `/tmp/loupe-risk-outside-${process.pid}.txt`;
const COMMANDS: Record<string, { command: string; background?: true }> = {
  'clean build': { command: 'rm -rf build' },
  'force push': { command: 'git push --force origin main' },
  'hard reset': { command: 'git reset --hard HEAD' },
  'drop users': { command: 'sqlite3 app.db "DROP TABLE users;"' },
  'write outside': { command: `echo x > ${OUTSIDE}` },
  'say hi': { command: 'echo hi' },
  'start watcher': { command: 'node -e "setInterval(() => {}, 1000)"', background: true },
};

function script(req: RecordedRequest): ScriptedReply {
  const prompt = userPrompt(req);
  if ((req.body.messages ?? []).at(-1)?.role === 'tool') return { content: `Over: ${prompt}.` };
  const c = COMMANDS[prompt];
  return { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: c.command, description: `To ${prompt}`, ...(c.background ? { run_in_background: true } : {}) }) }] };
}

const FILES = { '.gitignore': 'build/\n', 'build/out.js': 'built\n', 'README.md': '# risk\n' };

async function ask(page: Page, prompt: string) {
  await page.getByTestId('chat-input').fill(prompt);
  await page.getByTestId('chat-input').press('Enter');
  const card = page.getByTestId('approval-card');
  await expect(card).toBeVisible();
  await expect(card.getByTestId('approval-subject')).toHaveText(COMMANDS[prompt].command);
  return card;
}

const over = (page: Page, prompt: string) => expect(page.getByTestId('chat-message').filter({ hasText: `Over: ${prompt}.` })).toBeVisible();
const toolCard = (page: Page, prompt: string) => page.locator('[data-testid="tool-call"][data-tool="bash"]').filter({ hasText: COMMANDS[prompt].command.slice(0, 12) }).last();

for (const [width, height] of VIEWPORTS) {
  test.describe(`${width}x${height}`, () => {
    let fx: AgentProject;

    test.beforeAll(async () => {
      await mkdir(SHOTS, { recursive: true });
      // No sandbox: every command is a card, and the outside write would really happen.
      fx = await startAgentProject('risk-project', FILES, script, { settings: { sandbox: 'off' } });
    });
    test.afterAll(async () => {
      await fx?.stop();
    });

    test('destructive commands are marked and hard to allow by accident; harmless ones are not', async ({ page }) => {
      test.setTimeout(180_000);
      await page.setViewportSize({ width, height });
      await page.goto(fx.served.url);
      await page.getByTestId('agent-tab').click();
      const input = page.getByTestId('chat-input');

      // rm -rf of an ignored folder: the card says why, Deny is the default, no key allows it.
      let card = await ask(page, 'clean build');
      await expect(card).toHaveAttribute('data-risk', 'high');
      await expect(card.getByTestId('approval-risk')).toContainText('rm -r deletes whole folders');
      await expect(card.getByTestId('approval-deny')).toHaveAttribute('data-default', 'true');
      await expect(card.getByTestId('approval-allow-once')).not.toHaveClass(/btn-primary/);
      await expect(page.getByTestId('approval-keys')).toHaveText('Esc deny · risky: allow with a click');
      await expect(input).toBeFocused();
      await input.press('Control+Enter');
      await expect(card.getByTestId('approval-risk')).toHaveClass(/nudged/);
      // The card itself: Ctrl+Enter neither.
      await card.getByTestId('approval-subject').click();
      await page.keyboard.press('Control+Enter');
      await page.screenshot({ path: path.join(SHOTS, `risky-card-${width}.png`) });
      await expect(card).toHaveAttribute('data-status', 'pending');
      expect(existsSync(path.join(fx.project, 'build/out.js'))).toBe(true);
      // A click does.
      await card.getByTestId('approval-allow-once').click();
      await over(page, 'clean build');
      expect(existsSync(path.join(fx.project, 'build'))).toBe(false);

      // Each of these is risky for its own reason; Esc from the input and Enter on the card deny.
      const risky: [string, RegExp][] = [
        ['force push', /git push --force rewrites the remote branch/],
        ['hard reset', /git reset --hard throws away uncommitted changes/],
        ['drop users', /DROP TABLE destroys data in a database/],
        ['write outside', /writes outside the workspace \(\/tmp\/loupe-risk-outside/],
      ];
      for (const [i, [prompt, why]] of risky.entries()) {
        card = await ask(page, prompt);
        await expect(card).toHaveAttribute('data-risk', 'high');
        await expect(card.getByTestId('approval-risk')).toContainText(why);
        if (i % 2 === 0) {
          await input.press('Escape');
        } else {
          await card.getByTestId('approval-subject').click();
          await page.keyboard.press('Enter');
        }
        await over(page, prompt);
        await expect(toolCard(page, prompt)).toContainText(/denied/i);
      }
      expect(existsSync(OUTSIDE)).toBe(false);

      // A harmless command: no mark, and Ctrl+Enter from the input allows it.
      card = await ask(page, 'say hi');
      await expect(card).not.toHaveAttribute('data-risk', /./);
      await expect(card.getByTestId('approval-risk')).toHaveCount(0);
      await input.press('Control+Enter');
      await over(page, 'say hi');

      // A background process: the card says it keeps running.
      card = await ask(page, 'start watcher');
      await expect(card).toHaveAttribute('data-background', 'true');
      await expect(card.getByTestId('approval-background')).toContainText('Keeps running in the background after this call');
      await page.screenshot({ path: path.join(SHOTS, `background-card-${width}.png`) });
      await card.getByTestId('approval-deny').click();
      await over(page, 'start watcher');
    });
  });
}

test.describe('inside the sandbox', () => {
  let fx: AgentProject;
  test.beforeAll(async () => {
    fx = await startAgentProject('risk-sandboxed', FILES, script);
  });
  test.afterAll(async () => {
    await fx?.stop();
  });

  test('a destructive command still asks, though the sandbox lets other commands run without a card', async ({ page }) => {
    await page.setViewportSize({ width: 1920, height: 1080 });
    await page.goto(fx.served.url);
    await page.getByTestId('agent-tab').click();
    // Where no sandbox works here, every command asks: the harmless one proves which case this is.
    await page.getByTestId('chat-input').fill('say hi');
    await page.getByTestId('chat-input').press('Enter');
    const sandboxed = await Promise.race([
      page.getByTestId('chat-message').filter({ hasText: 'Over: say hi.' }).waitFor().then(() => true),
      page.getByTestId('approval-card').waitFor().then(() => false),
    ]);
    test.skip(!sandboxed, 'No OS sandbox works on this machine: every command asks anyway.');
    const card = await ask(page, 'clean build');
    await expect(card).toHaveAttribute('data-sandboxed', 'true');
    await expect(card).toHaveAttribute('data-risk', 'high');
    await page.screenshot({ path: path.join(SHOTS, 'sandboxed-risky-1920.png') });
    await card.getByTestId('approval-deny').click();
    await over(page, 'clean build');
    expect(existsSync(path.join(fx.project, 'build/out.js'))).toBe(true);
  });
});
