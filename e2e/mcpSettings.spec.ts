// MCP servers in Settings without editing JSON: add a stdio server with a secret in its
// environment, see its tools by name with their descriptions, edit it (renamed; the secret is
// never shown and is kept), be told what is wrong with a form, and remove it. The person's
// settings.json says the same at each step.
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { EVERYTHING } from '../test/support/mcpServers';
import { startAgentProject, type AgentProject } from './support/agentProject';

const SHOTS = path.resolve('test-results', 'mcp-settings');
const SECRET = 'sk-e2e-do-not-show-7f3a';

const row = (page: Page, name: string) => page.locator(`[data-testid="mcp-server"][data-server="${name}"]`);
async function saved(agent: AgentProject): Promise<Record<string, { command?: string; args?: string[]; env?: Record<string, string> }>> {
  const doc = JSON.parse(await readFile(path.join(agent.served.home, 'settings.json'), 'utf8')) as { mcpServers?: Record<string, never> };
  return doc.mcpServers ?? {};
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
      agent = await startAgentProject(`mcp-settings-${width}`, { 'README.md': '# demo\n' }, () => ({ content: 'ok' }));
    });
    test.afterAll(async () => {
      await agent?.stop();
    });

    test('add, edit and remove a server in Settings; its tools are listed with their descriptions', async ({ page }) => {
      await page.setViewportSize({ width, height });
      await page.goto(agent.served.url);
      await expect(page.getByTestId('workspace-root')).toContainText(`mcp-settings-${width}`);
      await page.getByTestId('agent-tab').click();
      await page.getByTestId('settings-open').click();

      // A form that is not a server says what to fix, and saves nothing.
      await page.getByTestId('mcp-server-add').click();
      const form = page.getByTestId('mcp-form');
      await form.getByTestId('mcp-form-name').fill('notes');
      await form.getByTestId('mcp-form-save').click();
      await expect(form.getByTestId('mcp-form-error')).toContainText('Give the command');
      expect(await saved(agent).catch(() => ({}))).toEqual({});

      // A command, with a secret in its environment.
      await form.getByTestId('mcp-form-command').fill(`${process.execPath} ${EVERYTHING} stdio`);
      await form.getByTestId('mcp-form-env-add').click();
      await form.getByLabel('Environment: name').fill('NOTES_TOKEN');
      await form.getByLabel('Environment: value of NOTES_TOKEN').fill(SECRET);
      await form.getByTestId('mcp-form-save').click();
      await expect(form).toHaveCount(0);
      await expect(row(page, 'notes')).toHaveAttribute('data-status', 'ready', { timeout: 60_000 });
      expect((await saved(agent)).notes).toEqual({ command: process.execPath, args: [EVERYTHING, 'stdio'], env: { NOTES_TOKEN: SECRET } });

      // Its tools, by name, with what the server says of each.
      const tools = row(page, 'notes').getByTestId('mcp-server-tools');
      await tools.locator('summary').click();
      const echo = tools.locator('[data-testid="mcp-server-tool"][data-tool="echo"]');
      await expect(echo).toContainText('echo');
      await expect(echo.locator('.mcp-tool-description')).not.toBeEmpty();
      await echo.scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(SHOTS, `added-${width}x${height}.png`) });

      // Edit: renamed; the secret is not in the page, and is kept as saved.
      await row(page, 'notes').getByTestId('mcp-server-edit').click();
      await expect(form.getByLabel('Environment: value of NOTES_TOKEN')).toHaveValue('');
      await expect(form.getByLabel('Environment: value of NOTES_TOKEN')).toHaveAttribute('placeholder', /saved, not shown/);
      expect(await page.content()).not.toContain(SECRET);
      await form.getByTestId('mcp-form-name').fill('memo');
      await form.scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(SHOTS, `edit-${width}x${height}.png`) });
      await form.getByTestId('mcp-form-name').press('Enter');
      await expect(row(page, 'memo')).toHaveAttribute('data-status', 'ready', { timeout: 60_000 });
      await expect(row(page, 'notes')).toHaveCount(0);
      expect(await saved(agent)).toEqual({ memo: { command: process.execPath, args: [EVERYTHING, 'stdio'], env: { NOTES_TOKEN: SECRET } } });
      // The settings dialog itself stayed open: Enter saved the server, not the model settings.
      await expect(page.getByTestId('settings-mcp')).toBeVisible();

      // Remove, after a confirmation.
      await row(page, 'memo').getByTestId('mcp-server-remove').click();
      await row(page, 'memo').getByTestId('mcp-server-remove-confirm').click();
      await expect(row(page, 'memo')).toHaveCount(0);
      expect(await saved(agent)).toEqual({});
      await page.screenshot({ path: path.join(SHOTS, `removed-${width}x${height}.png`) });
    });
  });
}
