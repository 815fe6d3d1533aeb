// MCP servers in the browser: the settings list a ready server with its tool count, a failed
// one with the end of its stderr and a disabled one (pending, data-disabled); the chat's card of
// a server tool names the server.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { everythingStdio, fixture } from '../test/support/mcpServers';
import { type RecordedRequest, type ScriptedReply } from '../test/support/scriptedLlm';
import { startAgentProject, type AgentProject } from './support/agentProject';

let agent: AgentProject;
const SHOTS = path.resolve('test-results', 'mcp');

function script(req: RecordedRequest): ScriptedReply {
  const last = (req.body.messages ?? []).at(-1);
  if (last?.role !== 'tool') return { toolCalls: [{ name: 'mcp__everything__echo', arguments: JSON.stringify({ message: 'hello from the browser' }) }] };
  return { content: 'The server echoed.' };
}

test.beforeAll(async () => {
  agent = await startAgentProject('mcp-project', { 'README.md': '# demo\n' }, script, {
    settings: {
      mcpServers: { everything: everythingStdio(), weather: fixture('exitsAtStart.cjs'), archive: fixture('exitsAtStart.cjs', { disabled: true }) },
      permissions: [{ kind: 'mcp', pattern: 'everything/echo', action: 'allow' }],
    },
  });
  await mkdir(SHOTS, { recursive: true });
});
test.afterAll(async () => {
  await agent?.stop();
});

for (const [width, height] of [
  [1024, 700],
  [1920, 1080],
] as const) {
  test(`settings show a ready server with its tools and a failed one with its stderr; the card names the server (${width}x${height})`, async ({ page }) => {
    await page.setViewportSize({ width, height });
    await page.goto(agent.served.url);
    await expect(page.getByTestId('workspace-root')).toContainText('mcp-project');
    await page.getByTestId('agent-tab').click();
    await page.getByTestId('settings-open').click();
    const ready = page.locator('[data-testid="mcp-server"][data-server="everything"]');
    const failed = page.locator('[data-testid="mcp-server"][data-server="weather"]');
    await expect(ready).toHaveAttribute('data-status', 'ready', { timeout: 30_000 });
    await expect(ready.getByTestId('mcp-server-status')).toHaveText(/ready with \d+ tools/);
    await expect(failed).toHaveAttribute('data-status', 'failed');
    await expect(failed.getByTestId('mcp-server-detail')).toContainText('exited with code 1 before it answered initialize');
    await expect(failed.getByTestId('mcp-server-stderr')).toContainText('fatal: WEATHER_API_KEY is not set');
    // Disabled: a status of the fixed vocabulary, and "disabled" in words and in its own attribute.
    const off = page.locator('[data-testid="mcp-server"][data-server="archive"]');
    await expect(off).toHaveAttribute('data-status', 'pending');
    await expect(off).toHaveAttribute('data-disabled', 'true');
    await expect(off.getByTestId('mcp-server-status')).toHaveText('disabled');
    await expect(off.getByTestId('mcp-server-restart')).toBeDisabled();
    await expect(page.locator('[data-testid="mcp-server"]:not([data-status="connecting"]):not([data-status="ready"]):not([data-status="failed"]):not([data-status="pending"])')).toHaveCount(0);
    await expect(ready).not.toHaveAttribute('data-disabled');
    await off.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SHOTS, `settings-${width}x${height}.png`) });
    await page.keyboard.press('Escape');

    await page.getByTestId('chat-input').fill('echo something');
    await page.getByTestId('chat-input').press('Enter');
    const card = page.locator('[data-testid="tool-call"][data-tool="mcp__everything__echo"]').last();
    await expect(card).toHaveAttribute('data-status', 'done');
    await expect(card.getByTestId('tool-call-server')).toHaveText('MCP everything');
    await page.screenshot({ path: path.join(SHOTS, `card-${width}x${height}.png`) });
  });
}
