// Cold start of `loupe serve` to the first painted tree row in Chromium, and to the URL on an
// empty folder (what is left when no tree is there to list: loading the host itself).
import { mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright';
import { CHROMIUM, firstPaintSince, generateTree, percentile, report, startServe, tempDir, watchFirstPaint } from './lib.mjs';

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
  await watchFirstPaint(page, '[data-testid="file-tree-item"]');
  const s = await startServe(root, { LOUPE_HOME: home });
  await page.goto(s.url);
  toUrl.push(s.urlMs);
  toPaint.push(await firstPaintSince(page, s.t0));
  await page.close();
  s.proc.kill('SIGTERM');
}
await browser.close();
const empty = path.join(root, '..', `${path.basename(root)}-empty`);
await mkdir(empty);
const toUrlEmpty = [];
for (let i = 0; i < RUNS; i++) {
  const s = await startServe(empty, { LOUPE_HOME: home });
  toUrlEmpty.push(s.urlMs);
  s.proc.kill('SIGTERM');
  await new Promise((r) => s.proc.once('exit', r));
}
const load = Math.round(os.loadavg()[0] * 10) / 10;
report('serve.cold_start.url_printed.p50', percentile(toUrl, 50), 'ms', { runs: RUNS, load });
report('serve.cold_start.first_tree_paint.p50', percentile(toPaint, 50), 'ms', { runs: RUNS, files: 10_000, load, timed: 'in the page' });
report('serve.cold_start.empty_folder_url.p50', percentile(toUrlEmpty, 50), 'ms', { runs: RUNS, load });
await rm(empty, { recursive: true, force: true });
await rm(root, { recursive: true, force: true });
await rm(home, { recursive: true, force: true });
