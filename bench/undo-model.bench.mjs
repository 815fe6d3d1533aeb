// The undo/redo model-based test (test/undoModel.{git,plain}.property.test.ts) at bench scale: 20,000
// generated sequences (10,000 in a git repository, 10,000 in a plain folder) instead of CI's
// 500. Long (hours on two cores): run on its own with `npm run bench undo-model`; `npm run bench`
// runs it too unless LOUPE_BENCH_QUICK is set.
//
// The sequences run in chunks, each with its own random seed, pulled by two lanes (one per core)
// from one queue, git chunks first: a git sequence costs about twice a plain one, so one lane
// per kind left a core idle for the last hour. Progress shows on stderr as chunks finish, and a
// failure names the seed that replays it (LOUPE_UNDO_SEED with LOUPE_UNDO_RUNS).
import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import path from 'node:path';
import { ROOT, report } from './lib.mjs';

if (process.env.LOUPE_BENCH_QUICK) {
  console.error('undo-model bench: skipped (LOUPE_BENCH_QUICK)');
  process.exit(0);
}
const PER_KIND = Number(process.env.LOUPE_UNDO_RUNS ?? 10_000);
const CHUNK = Math.max(1, Math.min(PER_KIND, Number(process.env.LOUPE_UNDO_CHUNK ?? 500)));
const LANES = Number(process.env.LOUPE_UNDO_LANES ?? 2);
const t0 = performance.now();
const minutes = () => Math.round((performance.now() - t0) / 600) / 100;

const queue = [];
for (const kind of ['git', 'plain']) for (let done = 0; done < PER_KIND; done += CHUNK) queue.push({ kind, runs: Math.min(CHUNK, PER_KIND - done) });
const totals = {};
const passed = { git: 0, plain: 0 };
let failure = null;

function runChunk({ kind, runs }) {
  const seed = randomInt(2 ** 31 - 1);
  const child = spawn(process.execPath, [path.join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', `test/undoModel.${kind}.property.test.ts`], {
    cwd: ROOT,
    env: { ...process.env, LOUPE_UNDO_RUNS: String(runs), LOUPE_UNDO_SEED: String(seed) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (d) => {
    out = (out + d).slice(-200_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  return new Promise((resolve) => {
    child.on('close', (code) => {
      for (const m of out.matchAll(/undo model \((git|plain)\): (\{.*\})/g)) {
        const t = (totals[m[1]] ??= {});
        for (const [k, v] of Object.entries(JSON.parse(m[2]))) t[k] = (t[k] ?? 0) + v;
      }
      if (code === 0) passed[kind] += runs;
      else failure ??= { kind, seed, runs, output: out.slice(-8000) };
      const sum = passed.git + passed.plain;
      console.error(`undo-model: ${sum}/${PER_KIND * 2} sequences passed (git ${passed.git}, plain ${passed.plain}) after ${minutes()} min; ${kind} chunk seed ${seed}${code === 0 ? '' : ' FAILED'}`);
      resolve();
    });
  });
}

async function lane() {
  while (queue.length && !failure) await runChunk(queue.shift());
}
await Promise.all(Array.from({ length: LANES }, lane));
const sequencesPassed = passed.git + passed.plain;
report('undo_model.sequences', PER_KIND * 2, 'sequences', {
  passed: !failure && sequencesPassed === PER_KIND * 2,
  sequencesPassed,
  minutes: minutes(),
  exercised: totals,
  ...(failure ? { failedKind: failure.kind, failedSeed: failure.seed, failedRuns: failure.runs } : {}),
});
if (failure) {
  process.stderr.write(failure.output);
  process.exit(1);
}
