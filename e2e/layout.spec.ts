// The layout at the window sizes people use: at every one of them the chat input and a waiting
// approval are on screen or one click away, and the agent column can be hidden and shown again
// from the top bar, whose toggle counts the questions waiting. Needs `npm run build` first.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { userPrompt, type RecordedRequest, type ScriptedReply } from '../test/support/scriptedLlm';
import { startAgentProject, type AgentProject } from './support/agentProject';

let agent: AgentProject;
const SHOTS = path.resolve('test-results', 'layout');
const SIZES = [
  { width: 800, height: 600 },
  { width: 1024, height: 700 },
  { width: 1280, height: 800 },
  { width: 1920, height: 1080 },
];

/** Every prompt runs a command, which asks (the sandbox is off); the answer ends the request. */
function script(req: RecordedRequest): ScriptedReply {
  const last = req.body.messages?.at(-1);
  if (last?.role === 'tool') return { content: 'Done.' };
  return { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: `echo ${userPrompt(req).replace(/\W/g, '')}`, description: 'Say it back' }) }] };
}

test.beforeAll(async () => {
  agent = await startAgentProject('layout-project', { 'src/a.ts': 'export const a = 1;\n' }, script, { settings: { sandbox: 'off' } });
  await mkdir(SHOTS, { recursive: true });
});

test.afterAll(async () => {
  await agent?.stop();
});

/** On screen now, or after one click on one of `via` (whichever is on screen): never two. */
async function reachInOneClick(target: Locator, via: Locator[]): Promise<void> {
  if (await target.isVisible()) {
    await expect(target).toBeInViewport();
    return;
  }
  for (const v of via) {
    if ((await v.isVisible()) && (await v.isEnabled())) {
      await v.click();
      await expect(target).toBeInViewport();
      return;
    }
  }
  throw new Error(`${target.toString()} is neither on screen nor one click away`);
}

async function open(page: Page) {
  await page.goto(agent.served.url);
  await expect(page.getByTestId('workspace-root')).toContainText('layout-project');
  // The agent column renders just after the tree's first frame: what is one click away is
  // judged once it is there, as a person would see it.
  await expect(page.locator('[data-slot="agent-panel"]')).toBeAttached();
}

for (const size of SIZES) {
  test(`at ${size.width}x${size.height} the chat input and a waiting approval are at most one click away`, async ({ page }) => {
    await page.setViewportSize(size);
    await open(page);
    const via = [page.getByTestId('agent-tab'), page.getByTestId('agent-toggle')];
    await reachInOneClick(page.getByTestId('chat-input'), via);
    await page.getByTestId('chat-input').fill(`size ${size.width}`);
    await page.getByTestId('chat-input').press('Enter');

    // Whatever tab was in front, the question pulls the agent forward; the input stays reachable.
    await page.getByTestId('review-tab').click();
    const card = page.getByTestId('approval-card');
    await reachInOneClick(card, via);
    await expect(page.getByTestId('agent-toggle')).toHaveAttribute('data-pending', '1');
    await expect(page.getByTestId('approval-allow-once')).toBeInViewport();
    await expect(page.getByTestId('chat-input')).toBeInViewport();
    await page.screenshot({ path: path.join(SHOTS, `${size.width}x${size.height}.png`) });
    await page.getByTestId('approval-allow-once').click();
    await expect(page.getByTestId('agent-toggle')).toHaveAttribute('data-pending', '0');
    await expect(page.getByTestId('chat-send')).toBeVisible();
  });
}

test('the agent column hides and comes back from the toggle, which counts the questions waiting', async ({ page }) => {
  await page.setViewportSize({ width: 1024, height: 700 });
  await open(page);
  await page.getByTestId('agent-tab').click();
  const toggle = page.getByTestId('agent-toggle');
  await expect(toggle).toHaveAttribute('aria-pressed', 'true');
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-pressed', 'false');
  await expect(page.getByTestId('chat-input')).not.toBeInViewport();
  await page.screenshot({ path: path.join(SHOTS, 'agent-hidden.png') });

  // A question while the column is hidden: the toggle says so, and one click shows the card.
  await toggle.click();
  await page.getByTestId('chat-input').fill('hidden question');
  await page.getByTestId('chat-input').press('Enter');
  await expect(page.getByTestId('approval-card')).toBeVisible();
  await toggle.click();
  await expect(page.getByTestId('approval-card')).not.toBeInViewport();
  await expect(toggle).toHaveAttribute('data-pending', '1');
  await expect(toggle).toContainText('1');
  await toggle.click();
  await expect(page.getByTestId('approval-card')).toBeInViewport();
  await page.getByTestId('approval-allow-once').click();
  await expect(toggle).toHaveAttribute('data-pending', '0');

  // Hidden stays hidden across a reload: the layout is remembered.
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-pressed', 'false');
  await page.reload();
  await expect(page.getByTestId('workspace-root')).toContainText('layout-project');
  await expect(page.getByTestId('agent-toggle')).toHaveAttribute('aria-pressed', 'false');
  await page.getByTestId('agent-toggle').click();
  await expect(page.getByTestId('agent-tab')).toBeInViewport();
});
