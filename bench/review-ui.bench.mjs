// The review pane to first paint: a timeline of 10,000 modifications, and the diff of a
// 5,000-line file (opened once the app has settled, and once as soon as the timeline shows).
// The log and its objects are written straight into a temp workspace in the modification log's
// own line format (src/main/services/modlog/types.ts).
/* global window, document, requestAnimationFrame -- page functions run in the browser */
import { createHash } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { chromium } from 'playwright';
import { CHROMIUM, percentile, report, startServe, tempDir } from './lib.mjs';

// LOUPE_BENCH_TIMELINE_ENTRIES=100000: the same figures over a 100,000-entry log (the first
// paint is also measured at 1,000 and 100,000 entries on every run).
const ENTRIES = Number(process.env.LOUPE_BENCH_TIMELINE_ENTRIES ?? 10_000);
const BIG_LINES = 5_000;
const RUNS = 3;

const sha = (text) => createHash('sha256').update(text).digest('hex');
const pad = (n, w = 2) => String(n).padStart(w, '0');
const stamp = (d) => `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}-${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}`;

/** A workspace whose log holds `entries` modifications; the newest is the big file's edit. */
async function timelineWorkspace(entries) {
  const root = await tempDir('loupe-bench-review-');
  const objects = path.join(root, '.loupe', 'objects');
  await mkdir(objects, { recursive: true });
  await mkdir(path.join(root, 'src'), { recursive: true });

  async function blob(text) {
    const id = sha(text);
    await writeFile(path.join(objects, id), text);
    return id;
  }

  // A few small files edited over and over, and one 5,000-line file edited in three places.
  const files = Array.from({ length: 20 }, (_, i) => `src/module${i}.ts`);
  const small = [];
  for (let v = 0; v < 8; v++) small.push(await blob(`export const value = ${v};\n`.repeat(20)));
  for (const f of files) await writeFile(path.join(root, f), `export const value = 7;\n`.repeat(20));
  const bigBefore = Array.from({ length: BIG_LINES }, (_, i) => `export function f${i}(x: number): number { return x + ${i}; }`).join('\n') + '\n';
  const bigAfter = bigBefore
    .replace('return x + 10; }', 'return x * 10; }')
    .replace('return x + 2500; }', 'return x - 2500; } // changed')
    .replace('return x + 4990; }', 'return x + 4990; }\nexport const added = true;');
  const bigFile = 'src/big.ts';
  await writeFile(path.join(root, bigFile), bigAfter);
  const bigBeforeSha = await blob(bigBefore);
  const bigAfterSha = await blob(bigAfter);

  const lines = [];
  const start = Date.UTC(2026, 0, 31, 8, 0, 0);
  let bigId = '';
  for (let i = 0; i < entries; i++) {
    const when = new Date(start + i * 1000);
    const id = `mod-${stamp(when)}-001`;
    const isBig = i === entries - 1;
    if (isBig) bigId = id;
    const line = Math.floor(Math.random() * 20) + 1;
    lines.push({
      type: 'modification',
      modification_id: id,
      timestamp: when.toISOString(),
      session_id: 'bench',
      correlation_id: `task-${Math.floor(i / 25)}`,
      tool: isBig ? 'edit_file' : 'code_modify',
      operation: isBig ? 'edit' : 'replace',
      file: isBig ? bigFile : files[i % files.length],
      lines_affected: isBig ? [11, 4991] : [line, line],
      lines_changed: isBig ? 4 : 1,
      reason: isBig ? 'Three changes in a 5,000-line file' : `Adjust value ${i} for the benchmark`,
      before_sha256: isBig ? bigBeforeSha : small[i % 8],
      after_sha256: isBig ? bigAfterSha : small[(i + 1) % 8],
      git_staged: false,
    });
    if (i % 4 === 0) lines.push({ type: 'test_results', modification_id: id, correlation_id: `task-${Math.floor(i / 25)}`, status: 'passed', command: 'npm test', passed: 12, failed: 0, skipped: 0, duration_ms: 900, timestamp: when.toISOString() });
    if (i % 7 === 0) lines.push({ type: 'review', modification_id: id, verdict: 'approved', timestamp: when.toISOString() });
  }
  await writeFile(path.join(root, '.loupe', 'modifications.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return { root, bigId };
}

const { root, bigId } = await timelineWorkspace(ENTRIES);
const home = await tempDir('loupe-bench-home-');
const browser = await chromium.launch({ ...CHROMIUM, headless: true });
const s = await startServe(root, { LOUPE_HOME: home });

/**
 * Runs `act` in the page and resolves with the ms until `selector` exists and a frame with it
 * has been painted (the second animation frame after it appears).
 */
async function timeToPaint(page, selector, act) {
  return page.evaluate(
    ({ selector, act }) =>
      new Promise((resolve) => {
        const t0 = performance.now();
        if (act) document.querySelector(act).click();
        const check = () => {
          if (document.querySelector(selector)) requestAnimationFrame(() => requestAnimationFrame(() => resolve(performance.now() - t0)));
          else requestAnimationFrame(check);
        };
        check();
      }),
    { selector, act },
  );
}

const ENTRY = '[data-testid="timeline-entry"]';
/** From navigation: the whole app boots, asks for the log and paints its first rows. */
async function firstPaintFromNavigation(page, url) {
  await page.addInitScript((sel) => {
    const w = window;
    const check = () => {
      if (document.querySelector(sel)) requestAnimationFrame(() => requestAnimationFrame(() => (w.__timelinePaint = performance.now())));
      else requestAnimationFrame(check);
    };
    requestAnimationFrame(check);
  }, ENTRY);
  await page.goto(url);
  await page.locator(ENTRY).first().waitFor({ state: 'visible', timeout: 60_000 });
  await page.waitForFunction(() => window.__timelinePaint !== undefined);
  return page.evaluate(() => window.__timelinePaint);
}

const fromNav = [];
const remount = [];
const diffPaint = [];
const diffDecorated = [];
const diffCold = [];
const scrollFrames = [];
for (let run = 0; run < RUNS; run++) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
  fromNav.push(await firstPaintFromNavigation(page, s.url));
  // The page shows the first screen, then loads the newest 10,000 (a longer log is the same).
  const expected = Math.min(ENTRIES, 10_000);
  await page.locator(`[data-testid="timeline"][data-count="${expected}"]`).waitFor({ timeout: 30_000 });

  // The same 10,000 entries rendered again from the store: the tab switched away and back.
  await page.locator('.agent-slot [role="tab"]:nth-child(2)').click();
  remount.push(await timeToPaint(page, ENTRY, '[data-testid="review-tab"]'));

  // Scrolling the whole list: the longest frames while it moves.
  scrollFrames.push(
    ...(await page.getByTestId('timeline').evaluate(
      (el) =>
        new Promise((resolve) => {
          const frames = [];
          let last = performance.now();
          let step = 0;
          const tick = () => {
            const now = performance.now();
            frames.push(now - last);
            last = now;
            el.scrollTop = (++step / 120) * (el.scrollHeight - el.clientHeight);
            if (step < 120) requestAnimationFrame(tick);
            else resolve(frames.slice(1));
          };
          requestAnimationFrame(tick);
        }),
    )),
  );
  await page.getByTestId('timeline').evaluate((el) => (el.scrollTop = 0));
  await page.locator(`${ENTRY}[data-modification-id="${bigId}"]`).waitFor();

  // The 5,000-line diff: click to the first painted lines, then to the diff decorations.
  const started = Date.now();
  diffPaint.push(await timeToPaint(page, '[data-testid="diff-view"] .editor.modified .view-line', `${ENTRY}[data-modification-id="${bigId}"]`));
  await page.locator('[data-testid="diff-view"] .editor.modified .line-insert').first().waitFor({ state: 'attached', timeout: 30_000 });
  diffDecorated.push(Date.now() - started);
  const hunks = await page.getByTestId('review-revert-hunk').count();
  if (hunks !== 3) throw new Error(`expected 3 hunks in the big diff, saw ${hunks}`);
  await page.close();

  // The same diff clicked as soon as the timeline shows, before the app preloaded Monaco's chunk
  // and warmed it up when idle: the chunk's fetch and evaluation are in this figure.
  const cold = await browser.newPage({ viewport: { width: 1400, height: 860 } });
  await cold.goto(s.url);
  await cold.locator(`${ENTRY}[data-modification-id="${bigId}"]`).waitFor({ state: 'visible', timeout: 60_000 });
  diffCold.push(await timeToPaint(cold, '[data-testid="diff-view"] .editor.modified .view-line', `${ENTRY}[data-modification-id="${bigId}"]`));
  await cold.close();
}
s.proc.kill('SIGTERM');

// The timeline's first paint over a short and a long log (issue 14: the same at 100,000 entries
// as at 1,000). The first page load of a folder folds the log and writes its checkpoint; it is
// reported on its own, the median is over the loads after it.
const bySize = [];
for (const entries of [1_000, 100_000]) {
  const w = await timelineWorkspace(entries);
  const serve = await startServe(w.root, { LOUPE_HOME: home });
  const times = [];
  for (let run = 0; run <= RUNS; run++) {
    const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
    times.push(await firstPaintFromNavigation(page, serve.url));
    await page.close();
  }
  serve.proc.kill('SIGTERM');
  await new Promise((r) => serve.proc.once('exit', r));
  await rm(w.root, { recursive: true, force: true });
  bySize.push([entries, times]);
}
await browser.close();

report('review.timeline.first_paint_from_navigation.p50', percentile(fromNav, 50), 'ms', { runs: RUNS, entries: ENTRIES });
report('review.timeline.render_10k_to_paint.p50', percentile(remount, 50), 'ms', { runs: RUNS, entries: ENTRIES, goal: 500 });
report('review.timeline.scroll_frame.p95', percentile(scrollFrames, 95), 'ms', { frames: scrollFrames.length, max: Math.round(Math.max(...scrollFrames)) });
report('review.diff.first_paint_5000_lines.p50', percentile(diffPaint, 50), 'ms', { runs: RUNS, lines: BIG_LINES, goal: 500 });
report('review.diff.decorated_5000_lines.p50', percentile(diffDecorated, 50), 'ms', { runs: RUNS, lines: BIG_LINES });
report('review.diff.first_paint_5000_lines_cold.p50', percentile(diffCold, 50), 'ms', { runs: RUNS, lines: BIG_LINES });
for (const [entries, [opening, ...times]] of bySize) {
  const tag = `${entries / 1000}k`;
  report(`review.timeline.first_paint_from_navigation.${tag}.p50`, percentile(times, 50), 'ms', { runs: times.length, entries, budget: entries === 100_000 ? 1000 : undefined });
  report(`review.timeline.first_paint_from_navigation.${tag}.first_open`, opening, 'ms', { entries, note: 'folds the log and writes its checkpoint' });
}
await rm(root, { recursive: true, force: true });
await rm(home, { recursive: true, force: true });
