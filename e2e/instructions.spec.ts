// What the agent is told, shown to the person: `loupe serve` on a repository with a CLAUDE.md
// and a Cursor rule shows a chip per instruction file above the chat; a chip opens its file; a
// FIFO named AGENTS.md shows as skipped, with why; after a request the chips and Settings show
// the system prompt exactly as the scripted model received it. Needs `npm run build` first.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { startScriptedLlm, type ScriptedLlm } from '../test/support/scriptedLlm';
import { startServe, type Served } from './support/serve';

let root: string;
let project: string;
let served: Served;
let llm: ScriptedLlm;

const SHOTS = path.resolve('test-results', 'instructions');

test.beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'loupe-e2e-instructions-')));
  project = path.join(root, 'rules-project');
  await mkdir(path.join(project, '.cursor/rules'), { recursive: true });
  await writeFile(path.join(project, 'CLAUDE.md'), '# House rules\n\nKeep functions under 40 lines.\n');
  await writeFile(path.join(project, '.cursor/rules/style.mdc'), '---\ndescription: Code style\nalwaysApply: true\n---\nUse two-space indentation.\n');
  await writeFile(path.join(project, 'index.ts'), 'export const answer = 42;\n');
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=e@x', '-c', 'user.name=E', ...args], { cwd: project });
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'init');
  llm = await startScriptedLlm(() => ({ content: 'Following the house rules.' }));
  served = await startServe(project, { OPENAI_BASE_URL: llm.baseURL, LOUPE_MODEL: 'scripted', OPENAI_API_KEY: 'sk-env' });
  await mkdir(SHOTS, { recursive: true });
});

test.afterAll(async () => {
  await served?.stop();
  await llm?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

async function openAgent(page: Page) {
  await page.goto(served.url);
  await expect(page.getByTestId('workspace-root')).toContainText('rules-project');
  await page.getByTestId('agent-tab').click();
  await expect(page.getByTestId('chat-input')).toBeVisible();
}

/**
 * Screenshots, each from a fresh load at its size, brought back to the state to show. 1280 wide,
 * not 1024: below 1100 px the app hides the whole agent column.
 */
async function shoot(page: Page, name: string, show: (page: Page) => Promise<void>) {
  for (const size of [
    { width: 1280, height: 700 },
    { width: 1920, height: 1080 },
  ]) {
    await page.setViewportSize(size);
    await openAgent(page);
    await show(page);
    await page.screenshot({ path: path.join(SHOTS, `${name}-${size.width}.png`) });
  }
}

const chips = (page: Page) => page.getByTestId('instruction-files').getByTestId('instruction-file');

test('a chip per instruction file; clicking one opens the file', async ({ page }) => {
  await openAgent(page);
  await expect(chips(page)).toHaveCount(2);
  expect(await chips(page).evaluateAll((els) => els.map((e) => e.getAttribute('data-path')))).toEqual(['CLAUDE.md', '.cursor/rules/style.mdc']);
  await expect(chips(page).first()).toHaveAttribute('title', /CLAUDE\.md: applies always/);

  await chips(page).filter({ hasText: 'style.mdc' }).click();
  await expect(page.getByTestId('file-viewer')).toHaveAttribute('data-path', '.cursor/rules/style.mdc');
  await expect(page.getByTestId('file-viewer')).toContainText('Use two-space indentation.');
  await chips(page).filter({ hasText: 'CLAUDE.md' }).click();
  await expect(page.getByTestId('file-viewer')).toHaveAttribute('data-path', 'CLAUDE.md');
  await expect(page.getByTestId('file-viewer')).toContainText('Keep functions under 40 lines.');
});

test('a FIFO named AGENTS.md shows as skipped, with why, and is never waited on', async ({ page }) => {
  await openAgent(page);
  await expect(chips(page)).toHaveCount(2);
  execFileSync('mkfifo', [path.join(project, 'AGENTS.md')]);
  try {
    const skipped = page.getByTestId('instruction-file-skipped');
    await expect(skipped).toHaveAttribute('data-path', 'AGENTS.md');
    await expect(skipped).toHaveAttribute('title', 'AGENTS.md is a FIFO, socket or device, not a file, so it is not read.');
    await expect(chips(page)).toHaveCount(2);
    await shoot(page, 'chips', async (p) => {
      await expect(p.getByTestId('instruction-file-skipped')).toBeVisible();
      await chips(p).first().click();
      await expect(p.getByTestId('file-viewer')).toContainText('Keep functions under 40 lines.');
    });
  } finally {
    await rm(path.join(project, 'AGENTS.md'), { force: true });
  }
  await expect(page.getByTestId('instruction-file-skipped')).toHaveCount(0);
});

test('after a request, Settings shows the system prompt exactly as the model received it', async ({ page }) => {
  await openAgent(page);
  await page.getByTestId('chat-input').fill('tidy index.ts');
  await page.getByTestId('chat-input').press('Enter');
  await expect(page.locator('[data-testid="chat-message"][data-role="assistant"]').last()).toContainText('Following the house rules.');
  const sent = String(llm.completions.at(-1)!.body.messages![0].content);
  expect(sent).toContain('## CLAUDE.md\n# House rules');
  expect(sent).toContain('## .cursor/rules/style.mdc\nUse two-space indentation.');

  await page.getByTestId('settings-open').click();
  const section = page.getByTestId('settings-system-prompt');
  await expect(section).toHaveAttribute('data-sent', 'true');
  await section.locator('summary').click();
  await expect(page.getByTestId('settings-system-prompt-text')).toBeVisible();
  expect(await page.getByTestId('settings-system-prompt-text').textContent()).toBe(sent);
  await shoot(page, 'settings-prompt', async (p) => {
    // A reload opens no session: pick the one that ran, whose prompt is the one sent.
    await p.getByTestId('chat-session').selectOption({ label: 'tidy index.ts' });
    await p.getByTestId('settings-open').click();
    await p.getByTestId('settings-system-prompt').locator('summary').click();
    await expect(p.getByTestId('settings-system-prompt')).toHaveAttribute('data-sent', 'true');
    await p.getByTestId('settings-system-prompt-text').scrollIntoViewIfNeeded();
  });
});
