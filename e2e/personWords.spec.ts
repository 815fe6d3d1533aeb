// Text written for the model stays with the model: a tool card reads as sentences for the person.
// A hook's refusal is said once (the hook's block, with its reason), not three times; a refusal
// of the person's own reads "You denied it" once; a background command's card says where its
// output is (the Processes pane), not which tool the model should call; nothing on the cards
// names the model's tools or tells it what to do. The model still gets its own words (checked on
// the scripted model's side).
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { userPrompt, type RecordedRequest, type ScriptedReply } from '../test/support/scriptedLlm';
import { startAgentProject, type AgentProject } from './support/agentProject';

const SHOTS = path.resolve('test-results', 'person-words');
// Printed by the hook from two words, so the reason as shown is not also in its command line.
const REASON = 'No-rm-rf in-this-repository';
const MODEL_WORDS = /process_output|process_wait|process_kill|read_file|code_rollback|Do not try to get around it|Error \[|PERMISSION_DENIED/;

const bash = (command: string, extra: Record<string, unknown> = {}): ScriptedReply => ({ toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command, description: 'a step', ...extra }) }] });
function script(req: RecordedRequest): ScriptedReply {
  const last = (req.body.messages ?? []).at(-1);
  if (last?.role === 'tool') return { content: 'Noted.' };
  const prompt = userPrompt(req);
  if (prompt.includes('clean up')) return bash('rm -rf build');
  if (prompt.includes('say hello')) return bash('echo hello');
  if (prompt.includes('start the ticker')) return bash(`node -e "setInterval(() => console.log('tick'), 500)"`, { run_in_background: true });
  return { content: 'ok' };
}

/** How many times `text` occurs in what the person sees of `card`. */
async function timesShown(card: Locator, text: string): Promise<number> {
  return (await card.innerText()).split(text).length - 1;
}

async function say(page: Page, text: string) {
  await page.getByTestId('chat-input').fill(text);
  await page.getByTestId('chat-input').press('Enter');
}

test.beforeAll(async () => {
  await mkdir(SHOTS, { recursive: true });
});

for (const [width, height] of [
  [1024, 700],
  [1920, 1080],
] as const) {
  test.describe(`${width}x${height}`, () => {
    let agent: AgentProject;
    test.beforeAll(async () => {
      agent = await startAgentProject(`person-words-${width}`, { 'README.md': '# demo\n' }, script, {
        settings: {
          sandbox: 'off',
          // The person's own PreToolUse hook: it refuses `rm -rf` with its reason (exit 2, stderr).
          hooks: { PreToolUse: [{ matcher: 'bash', hooks: [{ type: 'command', command: `grep -q 'rm -rf' && { printf '%s %s\\n' ${REASON.split(' ').map((w) => `'${w}'`).join(' ')} >&2; exit 2; }; exit 0` }] }] },
        },
      });
    });
    test.afterAll(async () => {
      await agent?.stop();
    });

    test('tool cards speak to the person: a refusal once, in their words; no words meant for the model', async ({ page }) => {
      await page.setViewportSize({ width, height });
      await page.goto(agent.served.url);
      await expect(page.getByTestId('workspace-root')).toContainText(`person-words-${width}`);
      await page.getByTestId('agent-tab').click();

      // A hook refuses: its block says why, once; no error line, no output repeating it.
      await say(page, 'clean up');
      const refused = page.locator('[data-testid="tool-call"][data-tool="bash"]').filter({ hasText: 'rm -rf build' });
      await expect(refused).toHaveAttribute('data-status', 'error', { timeout: 30_000 });
      await expect(refused.getByTestId('hook-decision')).toContainText(REASON);
      await expect(page.getByTestId('chat-stop')).toHaveCount(0);
      expect(await timesShown(refused, REASON)).toBe(1);
      await expect(refused.getByTestId('tool-call-error')).toHaveCount(0);
      await expect(refused.getByTestId('tool-call-output')).toHaveCount(0);
      await expect(refused).toContainText('denied');
      expect(await refused.innerText()).not.toMatch(MODEL_WORDS);
      // The model was told in its own words, with the advice meant for it.
      const told = JSON.stringify(agent.llm.completions.at(-1)!.body.messages!.at(-1));
      expect(told).toContain(REASON);
      expect(told).toContain('Do not try to get around it');
      await refused.scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(SHOTS, `hook-${width}x${height}.png`) });

      // The person refuses on the card, with a message for the agent: said once, as their own act.
      await say(page, 'say hello');
      const card = page.locator('[data-testid="approval-card"][data-kind="bash"]');
      await card.getByLabel('Message for the agent').fill('not now');
      await card.getByTestId('approval-deny').click();
      const denied = page.locator('[data-testid="tool-call"][data-tool="bash"]').filter({ hasText: 'echo hello' });
      await expect(denied).toHaveAttribute('data-status', 'error');
      await expect(denied.getByTestId('tool-call-error')).toHaveText('You denied it, and told the agent: "not now"');
      await expect(page.getByTestId('chat-stop')).toHaveCount(0);
      expect(await timesShown(denied, 'not now')).toBe(1);
      await expect(denied.getByTestId('tool-call-output')).toHaveCount(0);
      expect(await denied.innerText()).not.toMatch(MODEL_WORDS);
      await denied.scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(SHOTS, `denied-${width}x${height}.png`) });

      // A background command: where to watch it, not which tool the model calls next.
      await say(page, 'start the ticker');
      await page.locator('[data-testid="approval-card"][data-kind="bash"]').getByTestId('approval-allow-once').click();
      const started = page.locator('[data-testid="tool-call"][data-tool="bash"]').filter({ hasText: 'setInterval' });
      await expect(started).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
      await expect(started.getByTestId('tool-call-output')).toContainText('shown live in the Processes pane');
      expect(await started.innerText()).not.toMatch(MODEL_WORDS);
      // The model reads the result in its next turn, which may start after the card shows it.
      await expect.poll(() => JSON.stringify(agent.llm.completions.at(-1)?.body.messages?.at(-1) ?? null)).toContain('read new output with process_output(');
      await expect(page.getByTestId('chat-stop')).toHaveCount(0);
      await started.scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(SHOTS, `background-${width}x${height}.png`) });
    });
  });
}
