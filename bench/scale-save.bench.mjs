// A file saved in an open monorepo, as `loupe serve` shows it in Chromium: from the save on disk
// to its row in the tree with its git badge (a new file: the row with `?`; an edit of a clean
// file: `M`), and the host's CPU (its rg and git children included) for 100 single-file saves
// spread over 20 s. 100k files (a git clone of the cached repository) and 1M files (no git, a
// hard-linked copy of the cached tree; saves replace files by rename, as editors do, so the
// cache's own files are never written). LOUPE_BENCH_1M=0 or LOUPE_BENCH_100K=0 leaves one out.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
/* global document, MutationObserver */
import { chromium } from 'playwright';
import { CHROMIUM, cachedMonorepo, percentile, report, startServe, tempDir } from './lib.mjs';

const SAVES = Number(process.env.LOUPE_BENCH_SAVES ?? 20);
const DIR = 'packages/pkg0/src/m0';

/** utime+stime of a process and of its reaped children (rg, git), in clock ticks (100 per second). */
const cpuTicks = (pid) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
};

/** Wall-clock milliseconds, comparable with the page's `performance.timeOrigin + performance.now()`. */
const now = () => performance.timeOrigin + performance.now();

/** A save as editors make it: the new content beside the file, renamed over it. */
async function save(file, content) {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.swp`);
  await writeFile(tmp, content);
  await rename(tmp, file);
}

async function measure(folder, tag, git) {
  const home = await tempDir('loupe-bench-home-');
  const browser = await chromium.launch({ ...CHROMIUM, headless: true });
  const s = await startServe(folder, { LOUPE_HOME: home });
  try {
    const page = await browser.newPage();
    await page.goto(s.url);
    const row = (p) => page.locator(`[data-testid="file-tree-item"][data-path="${p}"]`);
    await page.locator('[data-testid="index-status"]').filter({ hasNotText: 'Indexing' }).waitFor({ state: 'visible', timeout: 900_000 });
    let open = '';
    for (const part of DIR.split('/')) {
      open = open ? `${open}/${part}` : part;
      await row(open).click();
    }
    await row(`${DIR}/file0.ts`).waitFor({ state: 'visible' });
    // Let the watcher's subscription and the first git status settle.
    await page.waitForTimeout(3000);

    /** When a row with this path (and badge) is in the page, in wall-clock ms. */
    const arrival = (p, badge) =>
      page.evaluate(
        ([p, badge]) =>
          new Promise((resolve) => {
            const sel = `[data-testid="file-tree-item"][data-path="${p}"]${badge ? `[data-git="${badge}"]` : ''}`;
            const seen = () => document.querySelector(sel) && (obs.disconnect(), resolve(performance.timeOrigin + performance.now()), true);
            const obs = new MutationObserver(seen);
            obs.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-git', 'data-path'] });
            seen();
          }),
        [p, badge],
      );
    const created = [];
    const rows = [];
    const edited = [];
    // A person's saves, each 1.5 s after the last one showed: each measured alone, on a host
    // at rest (the 100 saves below are the burst).
    const apart = () => new Promise((r) => setTimeout(r, 1500));
    for (let i = 0; i < SAVES; i++) {
      const rel = `${DIR}/saved-${i}.ts`;
      await apart();
      const row = arrival(rel, null);
      const shown = arrival(rel, git ? '?' : null);
      const t = now();
      await save(path.join(folder, rel), `export const saved${i} = ${i};\n`);
      created.push((await shown) - t);
      rows.push((await row) - t);
      // A clean tracked file edited: its badge turns M (without git: its row was there already).
      // The folder holds ten, each edited once.
      if (!git || i >= 10) continue;
      const edit = `${DIR}/file${i}.ts`;
      await apart();
      const badged = arrival(edit, 'M');
      const t2 = now();
      await save(path.join(folder, edit), `export const v${i} = -1;\n`);
      edited.push((await badged) - t2);
    }
    report(`scale.${tag}.save_new_file_to_tree.p50`, percentile(rows, 50), 'ms', { saves: SAVES, p90: Math.round(percentile(rows, 90)) });
    report(`scale.${tag}.save_new_file_to_tree_and_badge.p50`, percentile(created, 50), 'ms', { saves: SAVES, p90: Math.round(percentile(created, 90)), git, budget: tag === '1m' ? 300 : 150 });
    if (git) report(`scale.${tag}.save_edit_to_badge.p50`, percentile(edited, 50), 'ms', { saves: edited.length, p90: Math.round(percentile(edited, 90)), budget: 150 });

    // 100 saves of existing files in 20 folders, one every 200 ms; then a second to settle.
    await page.waitForTimeout(2000);
    const targets = Array.from({ length: 20 }, (_, k) => `packages/pkg${k * 7}/src/m${k % 10}/file${k * 700 + (k % 10) * 10}.ts`);
    const c0 = cpuTicks(s.proc.pid);
    const started = performance.now();
    for (let i = 0; i < 100; i++) {
      const wait = started + i * 200 - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      await save(path.join(folder, targets[i % targets.length]), `export const edited = ${i};\n`);
    }
    await page.waitForTimeout(1000);
    report(`scale.${tag}.host_cpu_100_saves_20s`, (cpuTicks(s.proc.pid) - c0) / 100, 's', { budget: tag === '1m' ? 3 : undefined, includes: 'rg and git children' });
    await page.close();
  } finally {
    s.proc.kill('SIGTERM');
    await new Promise((r) => s.proc.once('exit', r));
    await browser.close();
    await rm(home, { recursive: true, force: true });
  }
}

const load = () => os.loadavg().map((l) => Math.round(l * 10) / 10);

if (process.env.LOUPE_BENCH_100K !== '0') {
  const cache = await cachedMonorepo(100_000, { git: true });
  const dir = await tempDir('loupe-bench-save-');
  const repo = path.join(dir, 'repo');
  execFileSync('git', ['clone', '-q', '--local', '--branch', 'main', cache, repo], { stdio: 'ignore' });
  try {
    console.error(`bench: 100k, load ${load()}`);
    await measure(repo, '100k', true);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
if (process.env.LOUPE_BENCH_1M !== '0') {
  const cache = await cachedMonorepo(1_000_000);
  const dir = await tempDir('loupe-bench-save-');
  const copy = path.join(dir, 'tree');
  // Hard links: a million entries in a minute instead of a million files written.
  execFileSync('cp', ['-al', cache, copy]);
  try {
    console.error(`bench: 1m, load ${load()}`);
    await measure(copy, '1m', false);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
