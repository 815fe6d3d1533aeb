// A big monorepo opened by `loupe serve`: time to the URL, to the first painted tree row in
// Chromium, to the complete background index, and the host's RSS after it. 100k files (git)
// and 1M files (no git, off with LOUPE_BENCH_1M=0), both generated once and cached.
import { readFileSync } from 'node:fs';
import os from 'node:os';
/* global window, requestAnimationFrame -- page functions run in the browser */
import { rm } from 'node:fs/promises';
import { chromium } from 'playwright';
import { CHROMIUM, cachedMonorepo, firstPaintSince, percentile, report, startServe, tempDir, watchFirstPaint } from './lib.mjs';

const RUNS = Number(process.env.LOUPE_BENCH_RUNS ?? 5);
const home = await tempDir('loupe-bench-home-');
const browser = await chromium.launch({ ...CHROMIUM, headless: true });

/** RSS of the serve process (bin/loupe.mjs runs the host in-process). */
const rssMb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

async function once(folder, label) {
  const page = await browser.newPage();
  // Long tasks from the first byte on: the page must stay responsive while the index builds.
  await page.addInitScript(() => {
    // When the host says the index is complete, in the page's clock (the status bar may be
    // painted later, if the page is busy right then).
    const Native = window.WebSocket;
    window.WebSocket = class extends Native {
      constructor(...args) {
        super(...args);
        this.addEventListener('message', (e) => {
          if (typeof e.data === 'string' && e.data.includes('"tree.indexProgress"') && e.data.includes('"done":true')) window.__indexDoneAt ??= performance.now();
        });
      }
    };
    window.__longTasks = [];
    new PerformanceObserver((l) => window.__longTasks.push(...l.getEntries().map((e) => [e.startTime, e.duration]))).observe({ type: 'longtask', buffered: true });
  });
  await watchFirstPaint(page, '[data-testid="file-tree-item"]');
  const s = await startServe(folder, { LOUPE_HOME: home });
  // Monaco (the biggest chunk, one long task to evaluate) should wait for the index.
  let monacoAt = null;
  page.on('request', (r) => {
    if (monacoAt === null && /MonacoView|editor\.api/.test(r.url())) monacoAt = performance.now() - s.t0;
  });
  await page.goto(s.url);
  // Seen by Playwright's locator: the figure earlier rounds reported, which adds its polling.
  await page.locator('[data-testid="file-tree-item"]').first().waitFor({ state: 'visible', timeout: 120_000 });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(undefined))));
  const seenMs = performance.now() - s.t0;
  // Painted: the frame that first showed a row, timed in the page.
  const paintMs = await firstPaintSince(page, s.t0);
  const paintedAt = await page.evaluate(() => window.__firstPaintAt);
  const status = page.locator('[data-testid="index-status"]');
  await status.filter({ hasNotText: 'Indexing' }).waitFor({ state: 'visible', timeout: 600_000 });
  const indexMs = performance.now() - s.t0;
  const files = Number((await status.textContent()).replace(/\D/g, ''));
  const doneMs = await page.evaluate(() => window.__indexDoneAt ?? null);
  const navAt = await page.evaluate(() => performance.timeOrigin);
  // Both as wall-clock times: the request in this process's clock, the done in the page's.
  const monacoBeforeIndex = monacoAt !== null && doneMs !== null && monacoAt + s.t0 + performance.timeOrigin < navAt + doneMs;
  const longTasks = await page.evaluate(() => window.__longTasks);
  // The watcher subscribes before the index walks (src/main/host/workspace.ts), so this is
  // after both have built what they keep.
  const rss = rssMb(s.proc.pid);
  await page.close();
  s.proc.kill('SIGTERM');
  await new Promise((r) => s.proc.once('exit', r));
  // The page's own boot (evaluating the bundle, the first render) is one task before the tree
  // shows; what the index costs the UI is what comes after the first row until it completes.
  const after = longTasks.filter(([start]) => start >= paintedAt && start < (doneMs ?? Infinity)).map(([, d]) => d);
  return { urlMs: s.urlMs, paintMs, seenMs, indexMs, files, rss, maxLongTask: Math.max(0, ...longTasks.map(([, d]) => d)), maxLongTaskAfterPaint: Math.max(0, ...after), monacoBeforeIndex, label };
}

async function scale(n, git, runs) {
  const folder = await cachedMonorepo(n, { git });
  const results = [];
  for (let i = 0; i < runs; i++) results.push(await once(folder, n));
  const tag = n >= 1_000_000 ? '1m' : `${n / 1000}k`;
  const p50 = (k) => percentile(results.map((r) => r[k]), 50);
  // The machine is shared: the load beside each figure says how much of it was ours.
  const load = Math.round(os.loadavg()[0] * 10) / 10;
  const budget = (b) => (n === 100_000 ? { budget: b } : {});
  report(`scale.${tag}.serve_to_url.p50`, p50('urlMs'), 'ms', { runs, files: n, git, load, ...budget(350) });
  report(`scale.${tag}.first_tree_paint.p50`, p50('paintMs'), 'ms', { runs, files: n, load, ...budget(800), timed: 'in the page' });
  report(`scale.${tag}.first_tree_row_seen_by_locator.p50`, p50('seenMs'), 'ms', { runs, files: n, load, includes: "Playwright's polling" });
  report(`scale.${tag}.index_complete.p50`, p50('indexMs'), 'ms', { runs, indexed: results[0].files });
  report(`scale.${tag}.host_rss_after_index.max`, Math.max(...results.map((r) => r.rss)), 'MB', { runs, load, ...budget(120) });
  report(`scale.${tag}.page_long_task.max`, Math.max(...results.map((r) => r.maxLongTask)), 'ms', { runs, includes: 'page boot' });
  report(`scale.${tag}.monaco_fetched_while_indexing`, results.filter((r) => r.monacoBeforeIndex).length, 'runs', { runs, budget: 0 });
  report(`scale.${tag}.page_long_task_while_indexing.max`, Math.max(...results.map((r) => r.maxLongTaskAfterPaint)), 'ms', { runs, budget: 100, from: 'first row to index complete' });
}

await scale(100_000, true, RUNS);
if (process.env.LOUPE_BENCH_1M !== '0') await scale(1_000_000, false, Math.min(RUNS, 2));
await browser.close();
await rm(home, { recursive: true, force: true });
