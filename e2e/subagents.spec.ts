// Subagents in the browser, against the real `loupe serve` and the scripted model answering the
// parent and each child by its own script: each child is a live card in the chat, a grandchild's
// card sits inside its parent's, one child is stopped from its own card while the others go on,
// and the approval a child asks for waits in the one queue naming that child.
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { byConversation } from '../test/support/conversations';
import type { RecordedRequest, ScriptedReply } from '../test/support/scriptedLlm';
import { startAgentProject, type AgentProject } from './support/agentProject';

const SHOTS = path.resolve('test-results', 'subagents');
const call = (id: string, name: string, args: unknown) => ({ id, name, arguments: JSON.stringify(args) });

const routed = byConversation([
  {
    when: 'Delegate the work',
    replies: [
      {
        content: 'Splitting this up.',
        toolCalls: [
          call('a1', 'agent', { description: 'Find the greeting', prompt: 'FINDER: where is the greeting?', agent_type: 'explore' }),
          call('a2', 'agent', { description: 'Run the checker', prompt: 'CHECKER: run the check' }),
          call('a3', 'agent', { description: 'Wait for the build', prompt: 'WAITER: wait for the build' }),
          call('a4', 'agent', { description: 'Dig deeper', prompt: 'DIGGER: start one more' }),
        ],
      },
      { content: 'All four reported.' },
    ],
  },
  { when: 'FINDER:', replies: [{ toolCalls: [call('f1', 'grep', { pattern: 'hello' })] }, { content: 'The greeting is in src/greet.ts, line 1.' }] },
  { when: 'CHECKER:', replies: [{ toolCalls: [call('k1', 'bash', { command: 'echo checked', description: 'run the check' })] }, { content: 'The check passed.' }] },
  { when: 'WAITER:', replies: [{ toolCalls: [call('w1', 'bash', { command: 'sleep 613', description: 'wait for the build' })] }, { content: 'The build finished.' }] },
  { when: 'DIGGER:', replies: [{ toolCalls: [call('d1', 'agent', { description: 'Look deeper', prompt: 'DEEPER: read it', agent_type: 'explore' })] }, { content: 'Dug.' }] },
  { when: 'DEEPER:', replies: [{ toolCalls: [call('p1', 'read_file', { path: 'src/greet.ts' })] }, { content: 'Read src/greet.ts.' }] },
]);

let agent: AgentProject;

test.beforeAll(async () => {
  agent = await startAgentProject('agents-project', { 'src/greet.ts': 'export const greeting = "hello";\n' }, routed.respond as (req: RecordedRequest) => ScriptedReply, {
    // Commands ask (no sandbox here), except the long wait, which a rule allows; children may nest once.
    settings: { sandbox: 'off', permissions: [{ kind: 'bash', pattern: 'sleep *', action: 'allow' }], subagents: { max_depth: 2 } },
  });
  await mkdir(SHOTS, { recursive: true });
});

test.afterAll(async () => {
  await agent?.stop();
});

test('live nested cards, one child stopped from its card, an approval naming its child', async ({ page }) => {
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.goto(agent.served.url);
  await expect(page.getByTestId('workspace-root')).toContainText('agents-project');
  await page.getByTestId('agent-tab').click();
  await page.getByTestId('chat-input').fill('Delegate the work');
  await page.getByTestId('chat-input').press('Enter');

  const card = (description: string) => page.locator('[data-testid="subagent-card"]').filter({ has: page.getByTestId('subagent-description').getByText(description, { exact: true }) });
  // A card per child, each live; the agent tool calls are drawn as those cards.
  await expect(page.locator('.chat-list > [data-testid="subagent-card"]')).toHaveCount(4);
  await expect(page.locator('[data-testid="tool-call"][data-tool="agent"]')).toHaveCount(0);
  await expect(card('Find the greeting')).toHaveAttribute('data-status', 'done');
  await expect(card('Find the greeting')).toContainText('explore · read-only');

  // The checker's command waits for the person, on a card that names the checker.
  const approval = page.locator('[data-testid="approval-card"][data-kind="bash"]');
  await expect(approval).toBeVisible();
  const checker = card('Run the checker');
  await expect(approval.getByTestId('approval-agent')).toHaveText('subagent · Run the checker');
  await expect(approval.getByTestId('approval-agent')).toHaveAttribute('data-agent-id', (await checker.getAttribute('data-agent-id'))!);
  await expect(checker.getByTestId('subagent-state')).toHaveText('waiting for approval');

  // The grandchild's card sits inside its parent's, seen once that card is opened.
  const digger = card('Dig deeper');
  await expect(digger).toHaveAttribute('data-status', 'done');
  await digger.getByTestId('subagent-toggle').click();
  const nested = digger.getByTestId('subagent-body').locator('[data-testid="subagent-card"]');
  await expect(nested).toHaveCount(1);
  await expect(nested.getByTestId('subagent-description')).toHaveText('Look deeper');
  await nested.getByTestId('subagent-toggle').click();
  await expect(nested.locator('[data-testid="tool-call"][data-tool="read_file"]')).toHaveAttribute('data-status', 'done');

  // The waiter runs its command: its card shows the call as it happens.
  const waiter = card('Wait for the build');
  await expect(waiter).toHaveAttribute('data-status', 'running');
  await expect(waiter.getByTestId('subagent-latest')).toContainText('bash sleep 613');
  await waiter.getByTestId('subagent-toggle').click();
  await expect(waiter.locator('[data-testid="tool-call"][data-tool="bash"]')).toHaveAttribute('data-status', 'running');
  await page.screenshot({ path: path.join(SHOTS, 'running-1920.png') });
  await page.setViewportSize({ width: 1024, height: 700 });
  await page.screenshot({ path: path.join(SHOTS, 'running-1024.png') });
  await page.setViewportSize({ width: 1920, height: 1080 });

  // Stopped from its own card: it alone stops.
  await waiter.getByTestId('subagent-stop').click();
  await expect(waiter).toHaveAttribute('data-status', 'stopped');
  await expect(waiter.getByTestId('subagent-reason')).toHaveText('Stopped by the person.');
  await expect(checker).toHaveAttribute('data-status', 'running');
  await expect(page.getByTestId('chat-stop')).toBeVisible();

  // Allowed, the checker finishes, and so does the request.
  await approval.getByTestId('approval-allow-once').click();
  await expect(checker).toHaveAttribute('data-status', 'done');
  await expect(page.getByTestId('chat-stop')).toHaveCount(0);
  await expect(page.locator('[data-testid="chat-message"][data-role="assistant"]').last()).toContainText('All four reported.');
  // The children start side by side, so their cards come in the order they started: each by its name.
  const statuses = await page.locator('.chat-list > [data-testid="subagent-card"]').evaluateAll((els) => Object.fromEntries(els.map((e) => [e.querySelector('[data-testid="subagent-description"]')?.textContent ?? '', e.getAttribute('data-status')])));
  expect(statuses).toEqual({ 'Find the greeting': 'done', 'Run the checker': 'done', 'Wait for the build': 'stopped', 'Dig deeper': 'done' });
  await page.screenshot({ path: path.join(SHOTS, 'done-1920.png') });
  await page.setViewportSize({ width: 1024, height: 700 });
  await page.screenshot({ path: path.join(SHOTS, 'done-1024.png') });

  // A reload draws the same cards from the kept conversation.
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.reload();
  await page.getByTestId('agent-tab').click();
  await expect(page.locator('.chat-list > [data-testid="subagent-card"]')).toHaveCount(4);
  await expect(card('Wait for the build')).toHaveAttribute('data-status', 'stopped');
  // The children changed nothing here: the one file is as it was.
  expect(await readFile(path.join(agent.project, 'src/greet.ts'), 'utf8')).toBe('export const greeting = "hello";\n');
});
