// `git status` for the tree's badges on the generated 100,000-file monorepo: the command line
// the badges used before (untracked cache off, a `.` pathspec, never writing the index) against
// today's (untracked cache on, no pathspec at the top; one run now and then may write the
// index). The index is a private copy (GIT_INDEX_FILE), so the cached repository is only read.
import { spawnSync } from 'node:child_process';
import { copyFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { cachedMonorepo, percentile, report, tempDir } from './lib.mjs';

const FILES = 100_000;
const RUNS = Number(process.env.LOUPE_BENCH_RUNS ?? 9);
const root = process.env.LOUPE_BENCH_TREE ?? (await cachedMonorepo(FILES, { git: true }));
const scratch = await tempDir('loupe-bench-gitstatus-');
const index = path.join(scratch, 'index');

// The runner's settings that matter for speed; the program settings are off in both.
const COMMON = [['core.fsmonitor', 'false'], ['core.hooksPath', '/dev/null'], ['diff.ignoreSubmodules', 'all']];
const BEFORE = { config: [...COMMON, ['core.untrackedCache', 'false']], args: ['--no-optional-locks', 'status', '--ignore-submodules=all', '--porcelain=v1', '-z', '-uall', '--', '.'] };
const AFTER_CONFIG = [...COMMON, ['core.untrackedCache', 'true'], ['status.showUntrackedFiles', 'all'], ['core.preloadIndex', 'true'], ['index.threads', 'true']];
const AFTER = { config: AFTER_CONFIG, args: ['--no-optional-locks', 'status', '--ignore-submodules=all', '--porcelain=v1', '-z', '-uall'] };
const AFTER_WRITE = { config: AFTER_CONFIG, args: ['status', '--ignore-submodules=all', '--porcelain=v1', '-z', '-uall'], locks: true };

function git({ config, args, locks = false }) {
  const env = { ...process.env, GIT_INDEX_FILE: index, GIT_OPTIONAL_LOCKS: locks ? '1' : '0', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_COUNT: String(config.length) };
  config.forEach(([k, v], i) => Object.assign(env, { [`GIT_CONFIG_KEY_${i}`]: k, [`GIT_CONFIG_VALUE_${i}`]: v }));
  const t0 = performance.now();
  const r = spawnSync('git', args, { cwd: root, env, maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return performance.now() - t0;
}

const times = (call) => Array.from({ length: RUNS }, () => git(call));

try {
  await copyFile(path.join(root, '.git', 'index'), index);
  git(BEFORE); // the page cache, not git, is what the first run of all warms
  report('git_status.before.p50', percentile(times(BEFORE), 50), 'ms', { files: FILES, runs: RUNS });
  report('git_status.after.first', git(AFTER), 'ms', { files: FILES, note: 'index without an untracked cache yet' });
  report('git_status.after.writing', git(AFTER_WRITE), 'ms', { files: FILES, note: 'the run that stores the cache in the index' });
  report('git_status.after.p50', percentile(times(AFTER), 50), 'ms', { files: FILES, runs: RUNS });
} finally {
  await rm(scratch, { recursive: true, force: true });
}
