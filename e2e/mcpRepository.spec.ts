// A repository's MCP server (.mcp.json), as a person meets it in the browser: its start card says
// where it will actually run on this machine (here: the sandbox is off, so outside it, with the
// network) and the settings say the same; "Always in this folder" is offered, not greyed; a
// Restart of a server allowed once starts it again without a card; and a message sent while it
// restarts waits for it, so the model is asked with the server's tools.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { FIXTURES } from '../test/support/mcpServers';
import { userPrompt, type RecordedRequest, type ScriptedReply } from '../test/support/scriptedLlm';
import { startAgentProject, type AgentProject } from './support/agentProject';

const SHOTS = path.resolve('test-results', 'mcp-repository');
const TOOL = 'mcp__helper__hello';
const offered = (req: RecordedRequest) => ((req.body.tools as { function: { name: string } }[] | undefined) ?? []).map((t) => t.function.name);

function script(req: RecordedRequest): ScriptedReply {
  const last = (req.body.messages ?? []).at(-1);
  if (last?.role === 'tool') return { content: 'The helper answered.' };
  if (userPrompt(req).includes('use the helper')) return offered(req).includes(TOOL) ? { toolCalls: [{ name: TOOL, arguments: '{}' }] } : { content: 'I have no helper tool.' };
  return { content: 'ok' };
}

async function start(name: string): Promise<AgentProject> {
  const mcpJson = { mcpServers: { helper: { command: process.execPath, args: [path.join(FIXTURES, 'slowStart.cjs'), '1500'] } } };
  // No sandbox here (as on a machine without one): the server runs outside it, and the card must say so.
  return startAgentProject(name, { 'README.md': '# demo\n', '.mcp.json': JSON.stringify(mcpJson, null, 2) }, script, {
    settings: { sandbox: 'off', permissions: [{ kind: 'mcp', pattern: 'helper/hello', action: 'allow' }] },
  });
}

/** Opens the project, trusts it and returns the server's start card. */
async function openAndTrust(page: Page, agent: AgentProject) {
  await page.goto(agent.served.url);
  await expect(page.getByTestId('workspace-root')).toContainText(path.basename(agent.project));
  await page.getByTestId('trust-prompt').getByTestId('trust-accept').click();
  await page.getByTestId('agent-tab').click();
  const card = page.locator('[data-testid="approval-card"][data-kind="mcp-server"]');
  await expect(card).toBeVisible();
  return card;
}

const row = (page: Page) => page.locator('[data-testid="mcp-server"][data-server="helper"]');

test.beforeAll(async () => {
  await mkdir(SHOTS, { recursive: true });
});

for (const [width, height] of [
  [1024, 700],
  [1920, 1080],
] as const) {
  test.describe(`${width}x${height}`, () => {
    let agent: AgentProject | null = null;
    test.afterEach(async () => {
      await agent?.stop();
      agent = null;
    });

    test('the start card says where the server will run here, and the settings agree', async ({ page }) => {
      await page.setViewportSize({ width, height });
      agent = await start(`mcp-card-${width}`);
      const card = await openAndTrust(page, agent);
      await expect(card).toHaveAttribute('data-sandboxed', 'false');
      await expect(card.getByTestId('approval-outside')).toBeVisible();
      const details = card.getByTestId('approval-details');
      await expect(details).toContainText('runs OUTSIDE the sandbox');
      await expect(details).toContainText('reach any network');
      await expect(details).not.toContainText('no network');
      // Approving this exact configuration for the folder is possible: the button agrees with the card.
      await expect(card.getByTestId('approval-allow-always')).toBeEnabled();
      await expect(card.getByTestId('approval-allow-always')).toHaveText('Always in this folder');
      await card.scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(SHOTS, `card-${width}x${height}.png`) });

      await card.getByTestId('approval-allow-once').click();
      await page.getByTestId('settings-open').click();
      await expect(row(page)).toHaveAttribute('data-status', 'ready', { timeout: 30_000 });
      await expect(row(page)).toContainText('outside the sandbox');
      await row(page).scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(SHOTS, `settings-${width}x${height}.png`) });
    });

    test('Restart keeps the approval, and a message sent meanwhile gets the server’s tools', async ({ page }) => {
      await page.setViewportSize({ width, height });
      agent = await start(`mcp-restart-${width}`);
      const card = await openAndTrust(page, agent);
      await card.getByTestId('approval-allow-once').click();
      await page.getByTestId('settings-open').click();
      await expect(row(page)).toHaveAttribute('data-status', 'ready', { timeout: 30_000 });

      // The same configuration, allowed once while Loupe runs: Restart asks nothing.
      await row(page).getByTestId('mcp-server-restart').click();
      await expect(row(page)).toHaveAttribute('data-status', 'connecting');
      await expect(row(page)).toHaveAttribute('data-status', 'ready', { timeout: 30_000 });
      await expect(page.getByTestId('approval-card')).toHaveCount(0);

      // Restart again and send at once, while it is still starting (it takes 1.5 s).
      await row(page).getByTestId('mcp-server-restart').click();
      await expect(row(page)).toHaveAttribute('data-status', 'connecting');
      await page.keyboard.press('Escape');
      await page.getByTestId('chat-input').fill('use the helper');
      await page.getByTestId('chat-input').press('Enter');
      // The request has been answered (either way) before the model's side is read.
      await expect(page.getByTestId('chat-message').filter({ hasText: /The helper answered\.|I have no helper tool\./ })).toBeVisible({ timeout: 30_000 });
      const asked = agent.llm.completions.filter((r) => userPrompt(r).includes('use the helper'));
      expect(offered(asked[0]!)).toContain(TOOL);
      const call = page.locator(`[data-testid="tool-call"][data-tool="${TOOL}"]`);
      await expect(call).toHaveAttribute('data-status', 'done');
      await expect(page.getByTestId('chat-message').filter({ hasText: 'The helper answered.' })).toBeVisible();
      // The chat said why the answer took a moment.
      await expect(page.locator('.chat-note').filter({ hasText: 'Waiting for the MCP server "helper"' })).toBeVisible();
      await expect(page.getByTestId('approval-card')).toHaveCount(0);
      await page.screenshot({ path: path.join(SHOTS, `restart-${width}x${height}.png`) });
    });
  });
}
