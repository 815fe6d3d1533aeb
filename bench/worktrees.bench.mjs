// Creating a worktree session on a 100,000-file repository: `loupe run --worktree NAME` with a
// model that answers at once, from the process start to its exit, which includes making the
// worktree (a checkout of all 100,000 files on a new branch loupe/NAME) and composing its
// services. The same run in a worktree that already exists is the session without the checkout.
// The repository is a private `clone --shared --no-checkout` of the cached monorepo, so the cache
// is only read; each new worktree is removed (untimed) before the next run.
// Then the same in the app: "New session in a worktree" as `loupe serve` answers it
// (`worktree.newSession`, request to answer), the first one made by a checkout, the next ones
// taking over the spare checkout the app keeps ready (waited for, untimed, between runs).
// LOUPE_BENCH_WORKTREES_CLI=0 measures only the app.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { cachedMonorepo, percentile, readingModel, report, runLoupeJson, startServe, tempDir, wsClient } from './lib.mjs';

const FILES = 100_000;
const RUNS = Number(process.env.LOUPE_BENCH_RUNS ?? 3);
const cached = await cachedMonorepo(FILES, { git: true });
const scratch = await tempDir('loupe-bench-worktrees-');
const repo = path.join(scratch, 'repo');
execFileSync('git', ['clone', '-q', '--shared', '--no-checkout', cached, repo], { stdio: 'ignore' });
const model = await readingModel(0, () => '');
const env = { LOUPE_HOME: path.join(scratch, 'home'), LOUPE_KEYCHAIN: 'off', LOUPE_LSP: 'off' };
// The CLI figures are the checkout itself: no spare is kept for these runs.
await mkdir(env.LOUPE_HOME, { recursive: true });
await writeFile(path.join(env.LOUPE_HOME, 'settings.json'), JSON.stringify({ worktrees: { spare: false } }));
const folder = path.join(scratch, 'repo.loupe-worktrees');

async function timedRun(name) {
  const t0 = performance.now();
  const events = await runLoupeJson(repo, model.baseURL, 'hello', 2, env, ['--worktree', name]);
  const ms = performance.now() - t0;
  if (!events.some((e) => e.type === 'request_finished')) throw new Error('the run did not finish its request');
  return ms;
}

try {
  if (process.env.LOUPE_BENCH_WORKTREES_CLI !== '0') await inTheCli();
  await inTheApp();
} finally {
  model.server.close();
  await rm(scratch, { recursive: true, force: true });
}

async function inTheCli() {
  await timedRun('warm'); // the page cache of the objects, not Loupe, is what the first run warms
  const fresh = [];
  const resumed = [];
  for (let i = 0; i < RUNS; i++) {
    fresh.push(await timedRun(`bench-${i}`));
    resumed.push(await timedRun(`bench-${i}`));
    await rm(path.join(folder, `bench-${i}`), { recursive: true, force: true });
    execFileSync('git', ['worktree', 'prune'], { cwd: repo });
  }
  report('worktrees.new_session.p50', percentile(fresh, 50), 'ms', { files: FILES, runs: RUNS, max: Math.round(Math.max(...fresh)), note: 'loupe run --worktree NAME, process start to exit, worktree made' });
  report('worktrees.resumed_session.p50', percentile(resumed, 50), 'ms', { files: FILES, runs: RUNS, note: 'the same run in the existing worktree' });
  report('worktrees.create.p50', percentile(fresh.map((f, i) => f - resumed[i]), 50), 'ms', { files: FILES, runs: RUNS, note: 'new minus resumed: the checkout and branch' });
}

async function inTheApp() {
  const main = path.join(scratch, 'app-repo');
  execFileSync('git', ['clone', '-q', '--shared', cached, main], { stdio: 'ignore' });
  const trees = path.join(scratch, 'app-repo.loupe-worktrees');
  const spare = path.join(trees, '.spare');
  const s = await startServe(main, { LOUPE_HOME: path.join(scratch, 'app-home'), LOUPE_KEYCHAIN: 'off', LOUPE_LSP: 'off' });
  const ws = await wsClient(s.port, s.token);
  const ask = async (ch, p) => {
    const r = await ws.request(ch, p);
    if (!r.ok) throw new Error(`${ch}: ${JSON.stringify(r.e)}`);
    return r.r;
  };
  const timed = async (name) => {
    const t0 = performance.now();
    await ask('worktree.newSession', { name });
    return performance.now() - t0;
  };
  const spareReady = async () => {
    const t0 = performance.now();
    while (!existsSync(spare)) {
      if (performance.now() - t0 > 600_000) throw new Error('no spare checkout after 10 min');
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  try {
    const first = await timed('first');
    const taken = [];
    for (let i = 0; i < RUNS; i++) {
      await spareReady();
      taken.push(await timed(`app-${i}`));
    }
    await spareReady();
    report('worktrees.app_new_session.first', first, 'ms', { files: FILES, note: 'worktree.newSession in loupe serve, no spare yet: the checkout' });
    report('worktrees.app_new_session.p50', percentile(taken, 50), 'ms', { files: FILES, runs: RUNS, max: Math.round(Math.max(...taken)), load: os.loadavg()[0], note: 'worktree.newSession taking over the spare checkout' });
  } finally {
    ws.close();
    s.proc.kill('SIGTERM');
    await new Promise((r) => s.proc.once('exit', r));
  }
}
