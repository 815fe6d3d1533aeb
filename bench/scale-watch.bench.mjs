// A `git checkout` that rewrites 50,000 of the 100,000 files of an open monorepo (and adds one
// file in a folder open in the tree): how long after the checkout the tree shows the new file,
// the longest task in the page meanwhile, the host's CPU once it settles, and what the burst
// cost the host (file.changed paths sent, index refreshes). The repository is a local clone of
// the cached one, so the cache is never touched.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
/* global window */
import { chromium } from 'playwright';
import { CHROMIUM, cachedMonorepo, report, startServe, tempDir } from './lib.mjs';

const ADDED = 'packages/pkg0/src/m0/only-on-burst.ts';
const cache = await cachedMonorepo(100_000, { git: true });
const dir = await tempDir('loupe-bench-watch-');
const repo = path.join(dir, 'repo');
const git = (...args) => execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd: repo, stdio: 'ignore', maxBuffer: 1 << 30 });
execFileSync('git', ['clone', '-q', '--local', '--branch', 'main', cache, repo], { stdio: 'ignore' });
git('branch', '-q', 'other', 'origin/other');
// `burst`: the 50,000 rewritten files of `other`, plus one new file in a folder the tree shows.
git('checkout', '-q', '-b', 'burst', 'other');
await writeFile(path.join(repo, ADDED), 'export const added = 1;\n');
git('add', ADDED);
git('commit', '-q', '-m', 'burst');
git('checkout', '-q', 'main');

/** utime+stime of a process, in clock ticks (100 per second on Linux). */
const cpuTicks = (pid) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]);
};

const home = await tempDir('loupe-bench-home-');
const browser = await chromium.launch({ ...CHROMIUM, headless: true });
const s = await startServe(repo, { LOUPE_HOME: home });
try {
  const page = await browser.newPage();
  await page.addInitScript(() => {
    window.__longTasks = [];
    new PerformanceObserver((l) => window.__longTasks.push(...l.getEntries().map((e) => e.duration))).observe({ type: 'longtask', buffered: true });
  });
  // What the host tells the page about the burst, counted in the page.
  await page.addInitScript(() => {
    window.__frames = { fileChangedPaths: 0, treeChanged: 0, bytes: 0 };
    const Native = window.WebSocket;
    window.WebSocket = class extends Native {
      constructor(...args) {
        super(...args);
        this.addEventListener('message', (e) => {
          const text = typeof e.data === 'string' ? e.data : '';
          window.__frames.bytes += text.length;
          if (text.includes('"file.changed"')) window.__frames.fileChangedPaths += (JSON.parse(text).p?.paths ?? []).length;
          if (text.includes('"tree.changed"')) window.__frames.treeChanged++;
        });
      }
    };
  });
  await page.goto(s.url);
  const row = (p) => page.locator(`[data-testid="file-tree-item"][data-path="${p}"]`);
  await page.locator('[data-testid="index-status"]').filter({ hasNotText: 'Indexing' }).waitFor({ state: 'visible', timeout: 600_000 });
  for (const p of ['packages', 'packages/pkg0', 'packages/pkg0/src', 'packages/pkg0/src/m0']) {
    await row(p).click();
    await row(p).waitFor({ state: 'visible' });
  }
  await row('packages/pkg0/src/m0/file0.ts').waitFor({ state: 'visible' });
  // Let the watcher's subscription and the first git status settle before the burst.
  await page.waitForTimeout(3000);
  await page.evaluate(() => {
    window.__longTasks = [];
    window.__frames = { fileChangedPaths: 0, treeChanged: 0, bytes: 0 };
  });
  const started = performance.now();
  git('checkout', '-q', 'burst');
  const checkoutMs = performance.now() - started;
  const done = performance.now();
  await row(ADDED).waitFor({ state: 'visible', timeout: 60_000 });
  const reflectMs = performance.now() - done;
  // Settle, then measure the host's CPU over two quiet seconds.
  await page.waitForTimeout(3000);
  const t0 = cpuTicks(s.proc.pid);
  await page.waitForTimeout(2000);
  const cpuPct = (cpuTicks(s.proc.pid) - t0) / 2; // ticks per second = percent of one core
  const longTasks = await page.evaluate(() => window.__longTasks);
  const frames = await page.evaluate(() => window.__frames);
  report('scale.watch.checkout_50k.git_checkout', checkoutMs, 'ms');
  report('scale.watch.checkout_50k.tree_reflects_after', reflectMs, 'ms', { budget: 3000 });
  report('scale.watch.checkout_50k.page_long_task.max', Math.max(0, ...longTasks), 'ms', { budget: 100, count: longTasks.length });
  report('scale.watch.checkout_50k.host_cpu_after', cpuPct, '%', { budget: 'idle' });
  report('scale.watch.checkout_50k.ws_bytes_to_page', frames.bytes / 1024, 'KB', { file_changed_paths: frames.fileChangedPaths, tree_changed: frames.treeChanged });
  await page.close();
} finally {
  s.proc.kill('SIGTERM');
  await new Promise((r) => s.proc.once('exit', r));
  await browser.close();
  await rm(dir, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
}
