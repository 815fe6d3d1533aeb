// Creating a worktree session on a 100,000-file repository: `loupe run --worktree NAME` with a
// model that answers at once, from the process start to its exit, which includes making the
// worktree (a checkout of all 100,000 files on a new branch loupe/NAME) and composing its
// services. The same run in a worktree that already exists is the session without the checkout.
// The repository is a private `clone --shared --no-checkout` of the cached monorepo, so the cache
// is only read; each new worktree is removed (untimed) before the next run.
import { execFileSync } from 'node:child_process';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { cachedMonorepo, percentile, readingModel, report, runLoupeJson, tempDir } from './lib.mjs';

const FILES = 100_000;
const RUNS = Number(process.env.LOUPE_BENCH_RUNS ?? 3);
const cached = await cachedMonorepo(FILES, { git: true });
const scratch = await tempDir('loupe-bench-worktrees-');
const repo = path.join(scratch, 'repo');
execFileSync('git', ['clone', '-q', '--shared', '--no-checkout', cached, repo], { stdio: 'ignore' });
const model = await readingModel(0, () => '');
const env = { LOUPE_HOME: path.join(scratch, 'home'), LOUPE_KEYCHAIN: 'off', LOUPE_LSP: 'off' };
const folder = path.join(scratch, 'repo.loupe-worktrees');

async function timedRun(name) {
  const t0 = performance.now();
  const events = await runLoupeJson(repo, model.baseURL, 'hello', 2, env, ['--worktree', name]);
  const ms = performance.now() - t0;
  if (!events.some((e) => e.type === 'request_finished')) throw new Error('the run did not finish its request');
  return ms;
}

try {
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
} finally {
  model.server.close();
  await rm(scratch, { recursive: true, force: true });
}
