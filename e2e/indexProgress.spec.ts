import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { startServe, type Served } from './support/serve';

const FILES = 40_000;
let root: string;
let served: Served;

test.beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'loupe-e2e-index-')));
  const jobs: Promise<void>[] = [];
  for (let i = 0; i < FILES; i++) {
    const dir = path.join(root, `pkg${Math.floor(i / 400)}`);
    if (i % 400 === 0) await mkdir(dir, { recursive: true });
    jobs.push(writeFile(path.join(dir, `f${i}.ts`), ''));
    if (jobs.length >= 512) await Promise.all(jobs.splice(0));
  }
  await Promise.all(jobs);
  served = await startServe(root);
});

test.afterAll(async () => {
  await served?.stop();
  await rm(root, { recursive: true, force: true });
});

test('the status bar shows the background index and its final count', async ({ page }) => {
  const seen: string[] = [];
  await page.exposeFunction('__indexText', (t: string) => void seen.push(t));
  await page.addInitScript(() => {
    new MutationObserver(() => {
      const el = document.querySelector('[data-testid="index-status"]');
      if (el?.textContent) (window as unknown as { __indexText(t: string): void }).__indexText(el.textContent);
    }).observe(document, { subtree: true, childList: true, characterData: true });
  });
  await page.goto(served.url);
  await expect(page.getByTestId('file-tree-item').first()).toBeVisible();
  await expect(page.getByTestId('index-status')).toHaveText('40,000 files', { timeout: 30_000 });
  // Whether "Indexing …" was caught depends on when the page connected; when it was, the
  // counts only grow and stay below the total.
  const counts = seen.filter((t) => t.startsWith('Indexing')).map((t) => Number(t.replace(/\D/g, '')));
  for (let i = 1; i < counts.length; i++) expect(counts[i]).toBeGreaterThanOrEqual(counts[i - 1]);
  for (const c of counts) expect(c).toBeLessThanOrEqual(FILES);
  console.log(`index-status texts seen: ${[...new Set(seen)].join(' | ')}`);
});
