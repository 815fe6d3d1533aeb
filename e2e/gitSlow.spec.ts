// A folder where git status hangs (a FIFO where git reads ignore rules: its open() blocks):
// the badges' time bound shows "git status is slow here" in the status bar, the tree stays
// usable, and the notice goes once a run finishes in time again.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { startServe, type Served } from './support/serve';

let root: string;
let served: Served;

test.beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'loupe-e2e-gitslow-')));
  await writeFile(path.join(root, 'a.ts'), 'export const a = 1;\n');
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=e@x', '-c', 'user.name=E', ...args], { cwd: root });
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'init');
  await writeFile(path.join(root, 'a.ts'), 'export const a = 2;\n');
  served = await startServe(root);
});

test.afterAll(async () => {
  await served?.stop();
  await rm(root, { recursive: true, force: true });
});

test('git status past its time bound shows "git status is slow here", and the notice clears', async ({ page }) => {
  test.setTimeout(90_000);
  await page.goto(served.url);
  const row = page.locator('[data-testid="file-tree-item"][data-path="a.ts"]');
  await expect(row).toContainText('M');
  await expect(page.getByTestId('git-slow')).toHaveCount(0);

  await mkdir(path.join(root, 'stuck'));
  execFileSync('mkfifo', [path.join(root, 'stuck', '.gitignore')]);
  await page.getByRole('button', { name: 'Refresh explorer' }).click();
  await expect(page.getByTestId('git-slow')).toHaveText('git status is slow here', { timeout: 20_000 });
  // The last good badges stay.
  await expect(row).toContainText('M');

  await rm(path.join(root, 'stuck'), { recursive: true });
  await page.getByRole('button', { name: 'Refresh explorer' }).click();
  await expect(page.getByTestId('git-slow')).toHaveCount(0, { timeout: 30_000 });
});
