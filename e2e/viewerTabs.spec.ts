// The viewer as a daily editor: a tab per open file, quick open over the file index (Ctrl+P),
// find in files through the grep tool's search (Ctrl+Shift+F) opening the match at its line,
// and the shown file opened in the person's own editor. Needs `npm run build` first.
import { expect, test } from '@playwright/test';
import { startServe, type Served } from './support/serve';
import { chmod, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

let root: string;
let served: Served;
let opened: string;
const FILES: Record<string, string> = {
  'src/alpha.ts': 'export const alpha = 1;\n',
  'src/deep/beta.ts': Array.from({ length: 40 }, (_, i) => (i === 29 ? 'export const needle = "haystack";' : `// filler ${i + 1}`)).join('\n') + '\n',
  'README.md': '# tabs\n',
};

test.beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'loupe-e2e-tabs-')));
  const project = path.join(root, 'tabs-project');
  for (const [rel, content] of Object.entries(FILES)) {
    await mkdir(path.dirname(path.join(project, rel)), { recursive: true });
    await writeFile(path.join(project, rel), content);
  }
  // The person's editor: a script that writes down what it was asked to open.
  opened = path.join(root, 'opened.txt');
  const editor = path.join(root, 'my-editor');
  await writeFile(editor, `#!/bin/sh\nprintf '%s\\n' "$@" > '${opened}'\n`);
  await chmod(editor, 0o755);
  served = await startServe(project, { VISUAL: editor });
});

test.afterAll(async () => {
  await served?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

test('files open as tabs; quick open finds by path; find in files opens the match at its line', async ({ page }) => {
  await page.goto(served.url);
  await expect(page.getByTestId('workspace-root')).toContainText('tabs-project');
  await expect(page.getByTestId('index-status')).toContainText('3 files');

  // Quick open: a few letters of the path, Enter.
  await page.keyboard.press('Control+p');
  const quick = page.getByTestId('quick-open');
  await quick.locator('input').fill('alph');
  await expect(quick.getByTestId('quick-open-item').first()).toHaveAttribute('data-path', 'src/alpha.ts');
  await quick.locator('input').press('Enter');
  await expect(quick).toHaveCount(0);
  await expect(page.getByTestId('file-viewer')).toHaveAttribute('data-path', 'src/alpha.ts');

  await page.keyboard.press('Control+p');
  await page.getByTestId('quick-open').locator('input').fill('readme');
  await expect(page.getByTestId('quick-open-item').first()).toHaveAttribute('data-path', 'README.md');
  await page.getByTestId('quick-open').locator('input').press('Enter');
  await expect(page.getByTestId('file-viewer')).toHaveAttribute('data-path', 'README.md');

  // Two tabs; the first one shows its file again.
  const tabs = page.getByTestId('file-tabs').getByTestId('file-tab');
  await expect(tabs).toHaveCount(2);
  await tabs.filter({ hasText: 'alpha.ts' }).click();
  await expect(page.getByTestId('file-viewer')).toHaveAttribute('data-path', 'src/alpha.ts');

  // Find in files: the same search as the grep tool, the match opened at its line.
  await page.keyboard.press('Control+Shift+F');
  const find = page.getByTestId('find-in-files');
  await find.locator('input').fill('"haystack"');
  const hit = find.getByTestId('find-in-files-item');
  await expect(hit).toHaveCount(1);
  await expect(hit).toHaveAttribute('data-path', 'src/deep/beta.ts');
  await expect(hit).toHaveAttribute('data-line', '30');
  await page.screenshot({ path: test.info().outputPath('find-in-files.png') });
  await hit.click();
  const viewer = page.getByTestId('file-viewer');
  await expect(viewer).toHaveAttribute('data-path', 'src/deep/beta.ts');
  await expect(viewer).toHaveAttribute('data-line', '30');
  await expect(viewer.locator('.view-line').filter({ hasText: 'needle' })).toBeVisible();
  await expect(tabs).toHaveCount(3);
  await page.screenshot({ path: test.info().outputPath('tabs.png') });

  // Open in your editor: $VISUAL gets the file.
  await page.getByTestId('open-in-editor').click();
  await expect.poll(() => readFile(opened, 'utf8').catch(() => '')).toBe(`${path.join(root, 'tabs-project', 'src/deep/beta.ts')}\n`);

  // Closing the shown tab shows its neighbour.
  await tabs.filter({ hasText: 'beta.ts' }).getByRole('button').click();
  await expect(tabs).toHaveCount(2);
  await expect(viewer).not.toHaveAttribute('data-path', 'src/deep/beta.ts');
});
