// Slash commands in the app, end to end through `loupe serve` and Chromium, on a copy of the skills
// test repository: `/` opens a picker of commands and skills, filtered as one types and driven by
// the keyboard; a command with an argument is sent expanded and the message shows what it became;
// a repository command's shell line waits on a card and runs only after the yes; a command that
// asks for a value by name gets a field for it; the settings list every skill and command by whose
// they are, with their problems.
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { userPrompt, type RecordedRequest, type ScriptedReply } from '../test/support/scriptedLlm';
import { startAgentProject, type AgentProject } from './support/agentProject';

let agent: AgentProject;
const SHOTS = path.resolve('test-results', 'slash');
const FIXTURE = path.resolve('test/fixtures/skills-repo');

async function filesOf(dir: string, base = dir): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of await readdir(dir)) {
    const abs = path.join(dir, name);
    if ((await stat(abs)).isDirectory()) Object.assign(out, await filesOf(abs, base));
    else out[path.relative(base, abs)] = await readFile(abs, 'utf8');
  }
  return out;
}

/** The model says what it was sent, first line. */
const script = (req: RecordedRequest): ScriptedReply => ({ content: `Received: ${userPrompt(req).split('\n')[0]}` });

test.beforeAll(async () => {
  agent = await startAgentProject('slash-project', await filesOf(FIXTURE), script);
  await mkdir(SHOTS, { recursive: true });
});

test.afterAll(async () => {
  await agent?.stop();
});

async function openChat(page: Page) {
  await page.goto(agent.served.url);
  await expect(page.getByTestId('workspace-root')).toContainText('slash-project');
  await page.getByTestId('agent-tab').click();
}

test('/ opens the picker, typing filters it, the keyboard picks, and the command is sent expanded', async ({ page }) => {
  await page.setViewportSize({ width: 1024, height: 700 });
  await openChat(page);
  const input = page.getByTestId('chat-input');
  await input.fill('/');
  const picker = page.getByTestId('slash-picker');
  await expect(picker).toBeVisible();
  const item = (name: string) => picker.locator(`[data-testid="slash-item"][data-name="${name}"]`);
  await expect(item('undo')).toHaveAttribute('data-source', 'built-in');
  await expect(item('review-pr')).toHaveAttribute('data-kind', 'command');
  await expect(item('review-pr')).toHaveAttribute('data-source', 'repository');
  await expect(item('api-guide')).toHaveAttribute('data-kind', 'skill');
  await expect(item('review-pr')).toContainText('[pr-number] [priority]');
  await expect(item('review-pr')).toContainText('Review a pull request with a priority');
  await page.screenshot({ path: path.join(SHOTS, 'picker-1024x700.png') });

  await input.pressSequentially('rev');
  await expect(picker.getByTestId('slash-item')).toHaveCount(2);
  await expect(picker.getByTestId('slash-item').first()).toHaveAttribute('data-name', 'review-pr');
  await input.press('ArrowDown');
  await input.press('ArrowUp');
  await input.press('Enter');
  await expect(picker).toHaveCount(0);
  await expect(input).toHaveValue('/review-pr ');
  await input.pressSequentially('42 high');
  await input.press('Enter');

  const user = page.locator('[data-testid="chat-message"][data-role="user"]').last();
  await expect(user).toHaveText('/review-pr 42 high');
  const expansion = page.getByTestId('command-expansion').last();
  await expect(expansion).toHaveAttribute('data-name', 'review-pr');
  await expect(expansion).not.toHaveAttribute('open', '');
  await expect(expansion.getByTestId('command-expansion-text')).toBeHidden();
  await expansion.locator('summary').click();
  await expect(expansion.getByTestId('command-expansion-text')).toHaveText('Review PR #42 with priority high; everything typed: 42 high');
  await expect(page.locator('[data-testid="chat-message"][data-role="assistant"]').last()).toContainText('Received: Review PR #42 with priority high');
  expect(userPrompt(agent.llm.completions.at(-1)!)).toBe('Review PR #42 with priority high; everything typed: 42 high');
  await page.screenshot({ path: path.join(SHOTS, 'sent-1024x700.png') });
});

test("a repository command's shell line waits on a card; the marker appears only after the yes", async ({ page }) => {
  await page.setViewportSize({ width: 1920, height: 1080 });
  await openChat(page);
  const marker = path.join(agent.project, 'MARK');
  await page.getByTestId('chat-input').fill('/mark');
  await page.getByTestId('chat-input').press('Escape');
  await page.getByTestId('chat-input').press('Enter');
  const card = page.locator('[data-testid="approval-card"][data-kind="bash"]');
  await expect(card).toBeVisible();
  await expect(card.getByTestId('approval-subject')).toHaveText('touch MARK && echo marked');
  await expect(card.getByTestId('approval-why')).toContainText('.claude/commands/mark.md runs it before the model sees anything');
  await page.screenshot({ path: path.join(SHOTS, 'card-1920x1080.png') });
  // Asked, not run: nothing yet, and the model has not been sent anything.
  const sentBefore = agent.llm.completions.length;
  await page.waitForTimeout(300);
  expect(existsSync(marker)).toBe(false);
  expect(agent.llm.completions.length).toBe(sentBefore);
  await card.getByTestId('approval-allow-once').click();
  await expect.poll(() => existsSync(marker)).toBe(true);
  const expansion = page.getByTestId('command-expansion').last();
  await expansion.locator('summary').click();
  await expect(expansion.getByTestId('command-expansion-text')).toHaveText('Before you start, the marker: marked\nThen say done.');
  await expect(page.locator('[data-testid="tool-call"][data-tool="bash"]').last()).toHaveAttribute('data-status', 'done');
});

test('a command that asks for a value by name gets a field for it before it is sent', async ({ page }) => {
  await page.setViewportSize({ width: 1024, height: 700 });
  await openChat(page);
  await page.getByTestId('chat-input').fill('/react-form');
  await page.getByTestId('chat-input').press('Escape');
  await page.getByTestId('chat-input').press('Enter');
  const form = page.getByTestId('command-inputs');
  await expect(form).toBeVisible();
  const field = form.locator('[data-testid="command-input"][data-name="formName"]');
  await expect(field).toHaveAttribute('placeholder', 'Name of the form');
  await page.screenshot({ path: path.join(SHOTS, 'inputs-1024x700.png') });
  await field.fill('Signup');
  await form.getByTestId('command-inputs-send').click();
  await expect(form).toHaveCount(0);
  const expansion = page.getByTestId('command-expansion').last();
  await expansion.locator('summary').click();
  await expect(expansion.getByTestId('command-expansion-text')).toContainText('Generate a form component named Signup in slash-project.');
});

test('the settings list skills and commands by whose they are, with their problems', async ({ page }) => {
  await page.setViewportSize({ width: 1920, height: 1080 });
  await openChat(page);
  await page.getByTestId('settings-open').click();
  const section = page.getByTestId('settings-skills');
  await expect(section).toBeVisible();
  const row = (kind: string, name: string) => section.locator(`[data-testid="skill-row"][data-kind="${kind}"][data-name="${name}"]`);
  await expect(row('skill', 'api-guide')).toHaveAttribute('data-source', 'repository');
  await expect(row('skill', 'api-guide').getByTestId('skill-problem')).toContainText("over the specification's 1,024");
  await expect(row('skill', 'colon-trap').getByTestId('skill-problem')).toContainText('not valid YAML');
  await expect(row('skill', 'no-name').getByTestId('skill-problem')).toContainText("no name, so it is called by its folder's");
  await expect(row('command', 'git:summary')).toContainText('Summarise recent commits for a topic');
  await row('skill', 'api-guide').scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(SHOTS, 'settings-1920x1080.png') });
  await page.setViewportSize({ width: 1024, height: 700 });
  await section.scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(SHOTS, 'settings-1024x700.png') });
});

test.describe("a repository skill's allowed-tools", () => {
  let granted: AgentProject;
  let n = 0;
  /** Loads the skill, then runs the command its Bash(*) would pre-approve, then answers. */
  const skillScript = (req: RecordedRequest): ScriptedReply => {
    const messages = req.body.messages ?? [];
    const last = messages[messages.length - 1];
    const lastCall = [...messages].reverse().find((m) => m.role === 'assistant' && m.tool_calls?.length)?.tool_calls?.[0]?.function.name;
    if (last?.role !== 'tool') return { toolCalls: [{ id: `k${++n}`, name: 'skill', arguments: JSON.stringify({ name: 'all-powerful' }) }] };
    if (lastCall === 'skill') return { toolCalls: [{ id: `b${++n}`, name: 'bash', arguments: JSON.stringify({ command: 'touch SKILL_MARK', description: 'mark the setup' }) }] };
    return { content: 'Set up.' };
  };

  test.beforeAll(async () => {
    // A trusted folder (its config grants a read rule, so trusting it means something), commands outside any sandbox: every question is asked.
    const config = { '.loupe/config.json': JSON.stringify({ permissions: [{ kind: 'read', pattern: 'docs/**', action: 'allow' }] }) };
    granted = await startAgentProject('skill-grant', { ...(await filesOf(FIXTURE)), ...config }, skillScript, { settings: { sandbox: 'off' } });
  });
  test.afterAll(async () => {
    await granted?.stop();
  });

  test('grant nothing until the person approves them on a card, and then only for that request', async ({ page }) => {
    await page.setViewportSize({ width: 1920, height: 1080 });
    const marker = path.join(granted.project, 'SKILL_MARK');
    await page.goto(granted.served.url);
    await page.getByTestId('trust-prompt').getByTestId('trust-accept').click();
    await expect(page.getByTestId('trust-prompt')).toHaveCount(0);
    await page.getByTestId('agent-tab').click();
    await page.getByTestId('chat-input').fill('set up the project');
    await page.getByTestId('chat-input').press('Enter');

    // The skill's list waits on its own card; nothing has run.
    const skillCard = page.locator('[data-testid="approval-card"][data-kind="skill"]');
    await expect(skillCard).toBeVisible();
    await expect(skillCard.getByTestId('approval-subject')).toContainText('Bash(*), Edit, WebFetch');
    await expect(skillCard.getByTestId('approval-details')).toContainText('as rules: allow bash "*", edit "**", webfetch "*"');
    await page.screenshot({ path: path.join(SHOTS, 'skill-card-1920x1080.png') });
    expect(existsSync(marker)).toBe(false);
    // Declined: the command asks as it always would.
    await skillCard.getByTestId('approval-deny').click();
    const bashCard = page.locator('[data-testid="approval-card"][data-kind="bash"]');
    await expect(bashCard).toBeVisible();
    await expect(bashCard.getByTestId('approval-subject')).toHaveText('touch SKILL_MARK');
    await bashCard.getByTestId('approval-deny').click();
    await expect(page.getByTestId('chat-stop')).toHaveCount(0);
    expect(existsSync(marker)).toBe(false);

    // Approved (once): the command runs without a card of its own.
    await page.getByTestId('chat-input').fill('set up the project again');
    await page.getByTestId('chat-input').press('Enter');
    await expect(skillCard).toBeVisible();
    await skillCard.getByTestId('approval-allow-once').click();
    await expect.poll(() => existsSync(marker)).toBe(true);
    await expect(page.getByTestId('chat-stop')).toHaveCount(0);
    await expect(bashCard).toHaveCount(0);

    // Once was for that request: the next one that uses the skill asks again.
    await page.getByTestId('chat-input').fill('and once more');
    await page.getByTestId('chat-input').press('Enter');
    await expect(skillCard).toBeVisible();
    await skillCard.getByTestId('approval-deny').click();
    await expect(bashCard).toBeVisible();
    await bashCard.getByTestId('approval-deny').click();
    await expect(page.getByTestId('chat-stop')).toHaveCount(0);
  });
});
