// What an edit broke, shown to the person who reviews it: an agent edit that breaks a type
// (through the real `loupe serve`, the real TypeScript server and the scripted model) gets "+1
// error" on its timeline row and a squiggle with the server's message in the diff view; the file
// viewer marks the same problem in the file as it is now. Needs `npm run build` first.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { expectHoverMessage, readThenEdit, startAgentProject, type AgentProject } from './support/agentProject';

const SHOTS = path.resolve('test-results', 'diagnostics');
const MESSAGE = "Type 'string' is not assignable to type 'number'.";

let app: AgentProject;

// Each prompt reads the file (reads are per chat session), then makes its edit.
const script = readThenEdit({
  spell: { path: 'src/total.ts', old_str: 'number = 1 + 2;', new_str: 'number = "three";', reason: 'Spell the total' },
  halve: { path: 'src/half.ts', old_str: 'number = 3;', new_str: 'number = 3 / "2";', reason: 'Halve it' },
});

test.beforeAll(async () => {
  await mkdir(SHOTS, { recursive: true });
  app = await startAgentProject(
    'diag-project',
    {
      'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: 'es2022', lib: ['es2022'] }, include: ['src'] }),
      // A loaded machine can keep a cold server busy for a while; the project sets the bound.
      '.loupe/config.json': JSON.stringify({ limits: { diagnostics_wait_ms: 90_000 } }),
      'src/total.ts': '// The total of the order.\nexport const total: number = 1 + 2;\n',
      'src/half.ts': 'export const half: number = 3;\n',
    },
    script,
    { lsp: true },
  );
});

test.afterAll(async () => {
  await app?.stop();
});

test('an agent edit that breaks a type: "+1 error" on its row, a squiggle with the message in the diff and the viewer', async ({ page }) => {
  test.setTimeout(240_000);
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.goto(app.served.url);
  await expect(page.getByTestId('workspace-root')).toContainText('diag-project');
  await page.getByTestId('agent-tab').click();
  // The first edit waits for a cold TypeScript server: longer than sayAndWait's bound.
  await page.getByTestId('chat-input').fill('spell the total out');
  await page.getByTestId('chat-input').press('Enter');
  // The edit's card, not the Send button: Send shows before the request has started, and the
  // edit waits for the server's first answer (seen: a 10 s bound ran out while it still ran).
  await expect(page.locator('[data-testid="tool-call"][data-tool="edit_file"]')).toHaveAttribute('data-status', 'done', { timeout: 180_000 });
  await expect(page.getByTestId('chat-send')).toBeVisible({ timeout: 60_000 });

  await page.getByTestId('review-tab').click();
  const row = page.locator('[data-testid="timeline-entry"][data-file="src/total.ts"]');
  await expect(row.getByTestId('timeline-diagnostics')).toHaveText('+1 error');
  await row.click();
  const diff = page.getByTestId('diff-view');
  await expect(diff.locator('.diff-host')).toHaveAttribute('data-problems', '1');
  await expect(diff.locator('.squiggly-error')).toHaveCount(1, { timeout: 20_000 });
  // The squiggle lies under the text: the pointer goes where it is drawn, as a person's would.
  await expectHoverMessage(page, diff, MESSAGE);
  await page.screenshot({ path: path.join(SHOTS, 'diff-1920.png') });
  await page.setViewportSize({ width: 1024, height: 700 });
  await page.screenshot({ path: path.join(SHOTS, 'diff-1024.png') });

  // The viewer: the file as it is now, marked by the same server.
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.locator('[data-testid="file-tree-item"][data-path="src"]').click();
  await page.locator('[data-testid="file-tree-item"][data-path="src/total.ts"]').click();
  const viewer = page.getByTestId('file-viewer');
  await expect(viewer.locator('.squiggly-error')).toHaveCount(1, { timeout: 60_000 });
  await expect(page.locator('[data-testid="lsp-status"][data-language="typescript"]')).toHaveAttribute('data-state', 'ready');
  await page.screenshot({ path: path.join(SHOTS, 'viewer-1920.png') });
});

test('asking before every edit: the card says what the edit would introduce, before it is written', async ({ page }) => {
  test.setTimeout(240_000);
  await writeFile(path.join(app.project, '.loupe/config.json'), JSON.stringify({ limits: { diagnostics_wait_ms: 90_000 }, edits: { mode: 'ask' } }));
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.goto(app.served.url);
  await page.getByTestId('agent-tab').click();
  await page.getByTestId('chat-input').fill('halve the total');
  await page.getByTestId('chat-input').press('Enter');
  const card = page.locator('[data-testid="approval-card"][data-kind="edit"]');
  await expect(card.getByTestId('approval-diagnostics')).toContainText('this would introduce 1 problem', { timeout: 180_000 });
  await expect(card.getByTestId('approval-diagnostics')).toContainText("The right-hand side of an arithmetic operation must be of type 'any', 'number', 'bigint' or an enum type.");
  expect(await readFile(path.join(app.project, 'src/half.ts'), 'utf8')).toBe('export const half: number = 3;\n');
  // The proposed edit's full diff in the centre pane carries the same squiggle, before any write.
  await card.getByTestId('approval-diff').click();
  const pending = page.locator('[data-testid="diff-view"][data-kind="approval"]');
  await expect(pending.locator('.diff-host')).toHaveAttribute('data-problems', '1');
  await expect(pending.locator('.squiggly-error')).toHaveCount(1, { timeout: 20_000 });
  await page.screenshot({ path: path.join(SHOTS, 'approval-1920.png') });
  await page.setViewportSize({ width: 1024, height: 700 });
  await page.screenshot({ path: path.join(SHOTS, 'approval-1024.png') });
  await card.getByTestId('approval-deny').click();
  await expect(page.getByTestId('chat-send')).toBeVisible({ timeout: 60_000 });
});
