// Cold start of `loupe serve` to the first painted tree row in Chromium.
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { chromium } from 'playwright';
import { CHROMIUM, generateTree, percentile, report, startServe, tempDir } from './lib.mjs';

const RUNS = 5;
const root = await tempDir('loupe-bench-cold-');
await generateTree(root, 10_000, 100);
await writeFile(path.join(root, 'README.md'), '# bench\n');
const home = await tempDir('loupe-bench-home-');
const browser = await chromium.launch({ ...CHROMIUM, headless: true });

const toUrl = [];
const toPaint = [];
for (let i = 0; i < RUNS; i++) {
  const page = await browser.newPage();
  const s = await startServe(root, { LOUPE_HOME: home });
  await page.goto(s.url);
  await page.locator('[data-testid="file-tree-item"]').first().waitFor({ state: 'visible' });
  toUrl.push(s.urlMs);
  toPaint.push(performance.now() - s.t0);
  await page.close();
  s.proc.kill('SIGTERM');
}
await browser.close();
report('serve.cold_start.url_printed.p50', percentile(toUrl, 50), 'ms', { runs: RUNS });
report('serve.cold_start.first_tree_paint.p50', percentile(toPaint, 50), 'ms', { runs: RUNS, files: 10_000 });
await rm(root, { recursive: true, force: true });
await rm(home, { recursive: true, force: true });
