// A remote MCP server's sign-in in the browser, with the person played by the test browser: the
// settings row links the first sign-in page and waits for it; a call that needs more scope shows
// its page on the chat's card and waits for the person, then goes through. A call of a server
// that is down ends with MCP_SERVER_UNAVAILABLE on its card, its status and stderr said.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { fixture } from '../test/support/mcpServers';
import { type RecordedRequest, type ScriptedReply } from '../test/support/scriptedLlm';
import { startSignInMcpServer, type SignInMcpServer } from '../test/support/signInMcpServer';
import { openPage } from '../test/support/testBrowser.cjs';
import { startAgentProject, type AgentProject } from './support/agentProject';

let agent: AgentProject;
let remote: SignInMcpServer;
const SHOTS = path.resolve('test-results', 'mcp-sign-in');

function script(req: RecordedRequest): ScriptedReply {
  const messages = req.body.messages ?? [];
  const last = messages.at(-1);
  const prompt = [...messages].reverse().find((m) => m.role === 'user')?.content;
  if (last?.role === 'tool') return { content: 'Done.' };
  // The person's words, not the turn's notes (a note names the weather server when it is down).
  if (typeof prompt === 'string' && prompt.includes('the weather in Lisbon')) return { toolCalls: [{ name: 'mcp__weather__forecast', arguments: JSON.stringify({ city: 'Lisbon' }) }] };
  return { toolCalls: [{ name: 'mcp__signed__deploy', arguments: '{}' }] };
}

test.beforeAll(async () => {
  remote = await startSignInMcpServer();
  agent = await startAgentProject('sign-in-project', { 'README.md': '# demo\n' }, script, {
    settings: {
      mcpServers: { signed: { url: remote.url }, weather: fixture('exitsAtStart.cjs') },
      permissions: [
        { kind: 'mcp', pattern: 'signed/*', action: 'allow' },
        { kind: 'mcp', pattern: 'weather/*', action: 'allow' },
      ],
    },
  });
  await mkdir(SHOTS, { recursive: true });
});
test.afterAll(async () => {
  await agent?.stop();
  await remote?.close();
});

test('both sign-ins are shown and awaited; the person opens each page; a down server answers as down', async ({ page }) => {
  await page.setViewportSize({ width: 1024, height: 700 });
  await page.goto(agent.served.url);
  await expect(page.getByTestId('workspace-root')).toContainText('sign-in-project');
  await page.getByTestId('agent-tab').click();
  await page.getByTestId('settings-open').click();
  const row = page.locator('[data-testid="mcp-server"][data-server="signed"]');
  await expect(row).toHaveAttribute('data-status', 'pending', { timeout: 30_000 });
  const link = row.getByRole('link', { name: 'Sign in' });
  const first = await link.getAttribute('href');
  expect(first).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/authorize\?/);
  await row.scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(SHOTS, 'first-sign-in-1024x700.png') });
  // The person opens the page; the authorization server sends the browser back to Loupe.
  expect((await openPage(first!)).text).toContain('Signed in');
  await expect(row).toHaveAttribute('data-status', 'ready', { timeout: 30_000 });
  await page.keyboard.press('Escape');

  await page.getByTestId('chat-input').fill('deploy it');
  await page.getByTestId('chat-input').press('Enter');
  const card = page.locator('[data-testid="tool-call"][data-tool="mcp__signed__deploy"]').last();
  const output = card.getByTestId('tool-call-output');
  await expect(output).toContainText('Waiting for you to sign in to signed again', { timeout: 30_000 });
  const second = /open (\S+)/.exec((await output.textContent()) ?? '')![1]!;
  expect(new URL(second).searchParams.get('scope')).toContain('mcp:deploy');
  await expect(card).toHaveAttribute('data-status', 'running');
  await page.screenshot({ path: path.join(SHOTS, 'second-sign-in-1024x700.png') });
  expect((await openPage(second)).text).toContain('Signed in');
  await expect(card).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  await expect(output).toContainText('deployed');
  await expect(page.getByTestId('chat-stop')).toHaveCount(0);

  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.getByTestId('chat-input').fill('the weather in Lisbon');
  await page.getByTestId('chat-input').press('Enter');
  const down = page.locator('[data-testid="tool-call"][data-tool="mcp__weather__forecast"]').last();
  await expect(down).toHaveAttribute('data-status', 'error', { timeout: 30_000 });
  await expect(down.getByTestId('tool-call-error')).toContainText('MCP_SERVER_UNAVAILABLE');
  await expect(down.getByTestId('tool-call-error')).toContainText('WEATHER_API_KEY is not set');
  await page.screenshot({ path: path.join(SHOTS, 'down-server-1920x1080.png') });
});
