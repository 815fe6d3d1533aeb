// The Problems list: an agent edit that breaks a type (the real TypeScript server through the
// real `loupe serve`, the scripted model) shows "+1 error" on its card and "⊗ 1" in the status
// bar; either opens the list, by file, whose row opens the file at the problem's line. A reload
// lists it again. Needs `npm run build` first.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { readThenEdit, startAgentProject, type AgentProject } from './support/agentProject';

const SHOTS = path.resolve('test-results', 'problems');
const MESSAGE = "Type 'string' is not assignable to type 'number'.";

const script = readThenEdit({ spell: { path: 'src/total.ts', old_str: 'number = 1 + 2;', new_str: 'number = "three";', reason: 'Spell the total' } });

for (const [width, height] of [
  [1024, 700],
  [1920, 1080],
] as const) {
  test.describe(`${width}x${height}`, () => {
    let app: AgentProject;

    test.beforeAll(async () => {
      await mkdir(SHOTS, { recursive: true });
      app = await startAgentProject(
        'problems-project',
        {
          'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: 'es2022', lib: ['es2022'] }, include: ['src'] }),
          // A loaded machine can keep a cold server busy for a while; the project sets the bound.
          '.loupe/config.json': JSON.stringify({ limits: { diagnostics_wait_ms: 90_000 } }),
          'src/total.ts': '// The total of the order.\nexport const total: number = 1 + 2;\n',
        },
        script,
        { lsp: true },
      );
    });

    test.afterAll(async () => {
      await app?.stop();
    });

    test('an edit that introduced an error: counted on its card and in the status bar, listed by file, opened at its line', async ({ page }) => {
      test.setTimeout(300_000);
      await page.setViewportSize({ width, height });
      await page.goto(app.served.url);
      await expect(page.getByTestId('workspace-root')).toContainText('problems-project');
      await page.getByTestId('agent-tab').click();
      await page.getByTestId('chat-input').fill('spell the total out');
      await page.getByTestId('chat-input').press('Enter');
      const card = page.locator('[data-testid="tool-call"][data-tool="edit_file"]');
      await expect(card).toHaveAttribute('data-status', 'done', { timeout: 180_000 });
      await expect(page.getByTestId('chat-send')).toBeVisible({ timeout: 60_000 });

      await expect(card.getByTestId('tool-call-problems')).toHaveText('+1 error');
      const count = page.getByTestId('problems-count');
      await expect(count).toHaveAttribute('data-errors', '1', { timeout: 60_000 });
      await expect(count).toHaveAttribute('data-warnings', '0');

      await card.getByTestId('tool-call-problems').click();
      const list = page.getByTestId('problems-list');
      await expect(list).toBeVisible();
      await expect(page.getByTestId('problems-tab')).toHaveAttribute('aria-selected', 'true');
      const row = list.getByTestId('problem-row');
      await expect(row).toHaveCount(1);
      await expect(row).toHaveAttribute('data-path', 'src/total.ts');
      await expect(row).toHaveAttribute('data-line', '2');
      await expect(row).toHaveAttribute('data-severity', 'error');
      await expect(row).toContainText(MESSAGE);
      await expect(list.getByTestId('problem-file')).toContainText('total.ts');
      await page.screenshot({ path: path.join(SHOTS, `list-${width}.png`) });

      await row.click();
      const viewer = page.getByTestId('file-viewer');
      await expect(viewer).toHaveAttribute('data-path', 'src/total.ts');
      await expect(viewer).toHaveAttribute('data-line', '2');
      await expect(viewer.locator('.squiggly-error')).toHaveCount(1, { timeout: 60_000 });
      await page.screenshot({ path: path.join(SHOTS, `opened-${width}.png`) });

      // A terminal tab takes the pane back; the status bar's count brings the list again.
      await page.getByTestId('terminal-tab').first().click();
      await expect(list).toHaveCount(0);
      await count.click();
      await expect(page.getByTestId('problems-list').getByTestId('problem-row')).toHaveCount(1);

      // After a reload the host still knows what its servers reported.
      await page.reload();
      await expect(page.getByTestId('problems-count')).toHaveAttribute('data-errors', '1', { timeout: 60_000 });
      await page.getByTestId('problems-count').click();
      await expect(page.getByTestId('problems-list').getByTestId('problem-row')).toHaveAttribute('data-path', 'src/total.ts');
    });
  });
}
