// Hooks in the browser: the trust prompt lists a cloned repository's hooks; its Bash validator
// (Claude Code's contract, in `.claude/settings.json`) asks once on a card of kind `hook`, then
// blocks `grep`, and the block shows under the tool card (`hook-decision`); the settings list
// every hook by source with its status (`hook-row`: approved, waiting for you, disabled).
import { chmod, copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { type RecordedRequest, type ScriptedReply } from '../test/support/scriptedLlm';
import { startAgentProject, type AgentProject } from './support/agentProject';

let agent: AgentProject;
const SHOTS = path.resolve('test-results', 'hooks');
const FIXTURES = path.resolve('test/fixtures/hooks');
const VALIDATOR = 'python3 "$CLAUDE_PROJECT_DIR"/.claude/hooks/bash_validator.py';

function script(req: RecordedRequest): ScriptedReply {
  const last = (req.body.messages ?? []).at(-1);
  if (last?.role !== 'tool') return { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'grep -r demo .', description: 'search for demo' }) }] };
  return { content: 'The hook asked me to use rg instead.' };
}

test.beforeAll(async () => {
  const claude = {
    permissions: { allow: ['Bash(npm test:*)'] },
    hooks: {
      PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: VALIDATOR }] }],
      SubagentStop: [{ hooks: [{ type: 'command', command: 'echo subagent done' }] }],
    },
  };
  agent = await startAgentProject('hooks-project', { 'README.md': '# demo\n', '.claude/settings.json': JSON.stringify(claude, null, 2) }, script, {
    settings: {
      hooks: {
        PostToolUse: [{ matcher: 'bash', hooks: [{ type: 'command', command: 'true' }] }],
        Notification: [{ hooks: [{ type: 'http', url: 'https://hooks.example.com/notify' }] }],
      },
    },
  });
  await mkdir(path.join(agent.project, '.claude/hooks'), { recursive: true });
  await copyFile(path.join(FIXTURES, 'bash_validator.py'), path.join(agent.project, '.claude/hooks/bash_validator.py'));
  await chmod(path.join(agent.project, '.claude/hooks/bash_validator.py'), 0o755);
  await mkdir(SHOTS, { recursive: true });
});
test.afterAll(async () => {
  await agent?.stop();
});

test.describe.configure({ mode: 'serial' });

for (const [width, height] of [
  [1024, 700],
  [1920, 1080],
] as const) {
  test(`the trust prompt lists the hooks; a hook's block shows under its tool card; settings list the hooks (${width}x${height})`, async ({ page }) => {
    await page.setViewportSize({ width, height });
    await page.goto(agent.served.url);
    await expect(page.getByTestId('workspace-root')).toContainText('hooks-project');
    if (width === 1024) {
      // The first visit: the folder is not trusted, and the prompt names the repository's hooks.
      const prompt = page.getByTestId('trust-prompt');
      await expect(prompt).toBeVisible();
      await expect(prompt.locator('[data-testid="trust-hook"][data-event="PreToolUse"]')).toContainText(VALIDATOR);
      await expect(prompt.locator('[data-testid="trust-hook"][data-event="SubagentStop"]')).toContainText('echo subagent done');
      await page.screenshot({ path: path.join(SHOTS, `trust-${width}x${height}.png`) });
      await prompt.getByTestId('trust-accept').click();
      await expect(prompt).toHaveCount(0);
    }
    await page.getByTestId('agent-tab').click();
    await page.getByTestId('chat-input').fill('find demo');
    await page.getByTestId('chat-input').press('Enter');
    if (width === 1024) {
      // Trusted, the repository's hook still asks once, with its exact command line.
      const card = page.locator('[data-testid="approval-card"][data-kind="hook"]');
      await expect(card).toContainText(VALIDATOR);
      await page.screenshot({ path: path.join(SHOTS, `hook-card-${width}x${height}.png`) });
      await card.getByTestId('approval-allow-always').click();
    }
    const tool = page.locator('[data-testid="tool-call"][data-tool="bash"]').last();
    await expect(tool).toHaveAttribute('data-status', 'error', { timeout: 30_000 });
    const decision = tool.getByTestId('hook-decision');
    await expect(decision).toHaveAttribute('data-decision', 'deny');
    await expect(decision).toHaveAttribute('data-event', 'PreToolUse');
    await expect(decision).toContainText(".claude/settings.json");
    await expect(decision).toContainText("Use 'rg' (ripgrep) instead of 'grep'");
    await expect(page.getByTestId('chat-stop')).toHaveCount(0);
    await tool.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SHOTS, `chat-${width}x${height}.png`) });

    await page.getByTestId('settings-open').click();
    const rows = page.getByTestId('hook-row');
    const validator = page.locator('[data-testid="hook-row"][data-source=".claude/settings.json"][data-event="PreToolUse"]');
    await expect(validator).toHaveAttribute('data-status', 'approved');
    await expect(validator.getByTestId('hook-row-last')).toContainText('PreToolUse deny');
    await expect(page.locator('[data-testid="hook-row"][data-source=".claude/settings.json"][data-event="SubagentStop"]')).toHaveAttribute('data-status', 'waiting');
    await expect(page.locator('[data-testid="hook-row"][data-source="settings.json"][data-event="PostToolUse"]')).toHaveAttribute('data-status', 'approved');
    const http = page.locator('[data-testid="hook-row"][data-source="settings.json"][data-event="Notification"]');
    await expect(http).toHaveAttribute('data-status', 'disabled');
    await expect(http.getByTestId('hook-row-detail')).toContainText('allowedHttpHookUrls');
    await expect(rows).toHaveCount(4);
    await validator.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SHOTS, `settings-${width}x${height}.png`) });
    await page.keyboard.press('Escape');
  });
}
