// An approval card in a folder not trusted yet, whose own .loupe/config.json has the rule that
// would allow the call: the card says so (never "no rule matches") and trusts the folder in
// one click, which lets the waiting call through. Needs `npm run build` first.
import { expect, test } from '@playwright/test';
import type { RecordedRequest, ScriptedReply } from '../test/support/scriptedLlm';
import { startAgentProject, type AgentProject } from './support/agentProject';

let agent: AgentProject;
const CONFIG = { permissions: [{ kind: 'bash', pattern: 'echo trusted*', action: 'allow' }] };

function script(req: RecordedRequest): ScriptedReply {
  const last = req.body.messages?.at(-1);
  if (last?.role === 'tool') return { content: `Tool said: ${String(last.content).split('\n')[0]}` };
  return { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'echo trusted-run', description: 'Print a word' }) }] };
}

test.beforeAll(async () => {
  agent = await startAgentProject('untrusted-project', { '.loupe/config.json': JSON.stringify(CONFIG, null, 2) }, script, { settings: { sandbox: 'off' } });
});

test.afterAll(async () => {
  await agent?.stop();
});

test('the card says the folder’s config would allow it, and one click on Trust lets it run', async ({ page }) => {
  await page.goto(agent.served.url);
  await expect(page.getByTestId('workspace-root')).toContainText('untrusted-project');
  await page.getByTestId('trust-prompt').getByTestId('trust-decline').click();
  await page.getByTestId('agent-tab').click();
  await page.getByTestId('chat-input').fill('print it');
  await page.getByTestId('chat-input').press('Enter');

  const card = page.getByTestId('approval-card');
  await expect(card.getByTestId('approval-trust-hint')).toContainText('allow bash "echo trusted*"');
  await expect(card.getByTestId('approval-why')).toContainText("the folder's own config allows it");
  await expect(card.getByTestId('approval-why')).not.toContainText('no rule matches');
  await page.screenshot({ path: test.info().outputPath('trust-card.png') });
  await card.getByTestId('approval-trust').click();

  await expect(page.getByTestId('approval-card')).toHaveCount(0);
  await expect(page.locator('[data-testid="tool-call"][data-tool="bash"]')).toHaveAttribute('data-status', 'done');
  await expect(page.locator('[data-testid="chat-message"][data-role="assistant"]').last()).toContainText('trusted-run');
});
