// The first screen comes with the page: `loupe serve` writes the open folder and its root listing
// into the HTML it sends, so the tree shows before the socket has said a word.
import { mkdtemp, realpath, rm, writeFile, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { startServe, type Served } from './support/serve';

let root: string;
let served: Served;

test.beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'loupe-e2e-boot-')));
  const project = path.join(root, 'boot-project');
  await mkdir(path.join(project, 'src'), { recursive: true });
  await writeFile(path.join(project, 'README.md'), '# Boot\n');
  await writeFile(path.join(project, 'src', 'main.ts'), 'export {};\n');
  served = await startServe(project);
});

test.afterAll(async () => {
  await served?.stop();
  await rm(root, { recursive: true, force: true });
});

test('the folder and its tree show while the socket is silent', async ({ page }) => {
  // Everything the socket would say is held back: what shows came with the page.
  const sockets: string[] = [];
  await page.routeWebSocket(/\/ws/, (ws) => void sockets.push(ws.url()));
  await page.goto(served.url);
  await expect(page.getByTestId('workspace-root')).toContainText('boot-project');
  const rows = page.getByTestId('file-tree-item');
  await expect(rows.filter({ hasText: 'README.md' })).toBeVisible();
  await expect(rows.filter({ hasText: 'src' })).toBeVisible();
  expect(sockets.length).toBeGreaterThan(0);
});

test('with the socket up, the tree is the host\'s: a folder opens, a file made since shows', async ({ page }) => {
  await page.goto(served.url);
  const rows = page.getByTestId('file-tree-item');
  await expect(rows.filter({ hasText: 'README.md' })).toBeVisible();
  await rows.filter({ hasText: 'src' }).click();
  await expect(rows.filter({ hasText: 'main.ts' })).toBeVisible();
  await writeFile(path.join(root, 'boot-project', 'LATER.md'), 'x\n');
  await expect(rows.filter({ hasText: 'LATER.md' })).toBeVisible();
});

test('the first frame of the workbench draws the tree alone; the agent column and terminal follow', async ({ page }) => {
  // In the page, at the first frame that holds the workbench (with or without the boot data's
  // rows): which of the other panes were there too.
  await page.addInitScript(() => {
    const w = window as unknown as { firstFrame?: { agent: boolean; terminal: boolean } };
    const mo = new MutationObserver(() => {
      if (!document.querySelector('.workbench')) return;
      mo.disconnect();
      requestAnimationFrame(() => {
        w.firstFrame = { agent: !!document.querySelector('[data-slot="agent-panel"]'), terminal: !!document.querySelector('.center-terminal *') };
      });
    });
    mo.observe(document, { childList: true, subtree: true });
  });
  await page.goto(served.url);
  await expect(page.getByTestId('file-tree-item').first()).toBeVisible();
  await expect(page.locator('[data-slot="agent-panel"]')).toBeVisible();
  expect(await page.evaluate(() => (window as unknown as { firstFrame?: unknown }).firstFrame)).toEqual({ agent: false, terminal: false });
});
