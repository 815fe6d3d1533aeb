// A big monorepo opened by `loupe serve`: time to the URL, to the first painted tree row in
// Chromium, to the complete background index, and the host's RSS after it. 100k files (git)
// and 1M files (no git, off with LOUPE_BENCH_1M=0), both generated once and cached.
import { readFileSync } from 'node:fs';
/* global window, requestAnimationFrame -- page functions run in the browser */
import { rm } from 'node:fs/promises';
import { chromium } from 'playwright';
import { CHROMIUM, cachedMonorepo, percentile, report, startServe, tempDir } from './lib.mjs';

const RUNS = Number(process.env.LOUPE_BENCH_RUNS ?? 5);
const home = await tempDir('loupe-bench-home-');
const browser = await chromium.launch({ ...CHROMIUM, headless: true });

/** RSS of the serve process (bin/loupe.mjs runs the host in-process). */
const rssMb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

async function once(folder, label) {
  const page = await browser.newPage();
  // Long tasks from the first byte on: the page must stay responsive while the index builds.
  await page.addInitScript(() => {
    window.__longTasks = [];
    new PerformanceObserver((l) => window.__longTasks.push(...l.getEntries().map((e) => e.duration))).observe({ type: 'longtask', buffered: true });
  });
  const s = await startServe(folder, { LOUPE_HOME: home });
  await page.goto(s.url);
  // Painted: a row is visible and a frame has been produced after it.
  await page.locator('[data-testid="file-tree-item"]').first().waitFor({ state: 'visible', timeout: 120_000 });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(undefined))));
  const paintMs = performance.now() - s.t0;
  const status = page.locator('[data-testid="index-status"]');
  await status.filter({ hasNotText: 'Indexing' }).waitFor({ state: 'visible', timeout: 600_000 });
  const indexMs = performance.now() - s.t0;
  const files = Number((await status.textContent()).replace(/\D/g, ''));
  const longTasks = await page.evaluate(() => window.__longTasks);
  const rss = rssMb(s.proc.pid);
  await page.close();
  s.proc.kill('SIGTERM');
  await new Promise((r) => s.proc.once('exit', r));
  return { urlMs: s.urlMs, paintMs, indexMs, files, rss, maxLongTask: Math.max(0, ...longTasks), label };
}

async function scale(n, git, runs) {
  const folder = await cachedMonorepo(n, { git });
  const results = [];
  for (let i = 0; i < runs; i++) results.push(await once(folder, n));
  const tag = n >= 1_000_000 ? '1m' : `${n / 1000}k`;
  const p50 = (k) => percentile(results.map((r) => r[k]), 50);
  report(`scale.${tag}.serve_to_url.p50`, p50('urlMs'), 'ms', { runs, files: n, git });
  report(`scale.${tag}.first_tree_paint.p50`, p50('paintMs'), 'ms', { runs, files: n });
  report(`scale.${tag}.index_complete.p50`, p50('indexMs'), 'ms', { runs, indexed: results[0].files });
  report(`scale.${tag}.host_rss_after_index.max`, Math.max(...results.map((r) => r.rss)), 'MB', { runs });
  report(`scale.${tag}.page_long_task.max`, Math.max(...results.map((r) => r.maxLongTask)), 'ms', { runs });
}

await scale(100_000, true, RUNS);
if (process.env.LOUPE_BENCH_1M !== '0') await scale(1_000_000, false, Math.min(RUNS, 2));
await browser.close();
await rm(home, { recursive: true, force: true });
