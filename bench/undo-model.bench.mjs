// The undo/redo model-based test (test/undoModel.{git,plain}.property.test.ts) at bench scale: 20,000
// generated sequences (10,000 in a git repository, 10,000 in a plain folder) instead of CI's
// 500. Long (hours on two cores): run on its own with `npm run bench undo-model`; `npm run bench`
// runs it too unless LOUPE_BENCH_QUICK is set.
//
// The sequences run in chunks of 250, each with its own random seed, one chunk at a time
// (LOUPE_UNDO_LANES runs more at once). One lane is faster here: a sequence is mostly git
// processes started by node, and two lanes on the two cores passed 71 git sequences a minute
// where one alone passed 108 (forking is what the two fight over). Progress shows on stderr as
// chunks finish, and a failure names the seed that replays it (LOUPE_UNDO_SEED with
// LOUPE_UNDO_RUNS).
//
// The whole run needs about two and a half hours here, so it may be done in parts: every
// chunk's result goes to a ledger in the bench cache, keyed by the code it ran against (the
// committed trees of src/ and test/ and the lockfile; with uncommitted changes there no ledger is
// kept). A later run on the same code runs only what is missing, and any failed chunk on that
// code fails every run until the code changes. LOUPE_UNDO_FRESH=1 ignores the ledger.
import { execFileSync, spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, report } from './lib.mjs';

if (process.env.LOUPE_BENCH_QUICK) {
  console.error('undo-model bench: skipped (LOUPE_BENCH_QUICK)');
  process.exit(0);
}
const PER_KIND = Number(process.env.LOUPE_UNDO_RUNS ?? 10_000);
const CHUNK = Math.max(1, Math.min(PER_KIND, Number(process.env.LOUPE_UNDO_CHUNK ?? 250)));
const LANES = Number(process.env.LOUPE_UNDO_LANES ?? 1);
const t0 = performance.now();
const minutes = () => Math.round((performance.now() - t0) / 600) / 100;

/** The code the sequences run against, or null when it is not all committed. */
function codeKey() {
  const git = (...args) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
  try {
    if (git('status', '--porcelain', '--', 'src', 'test', 'package-lock.json')) return null;
    return git('rev-parse', 'HEAD:src', 'HEAD:test', 'HEAD:package-lock.json').split('\n').join('-');
  } catch {
    return null;
  }
}

const key = process.env.LOUPE_UNDO_FRESH === '1' ? null : codeKey();
const ledgerDir = path.join(os.tmpdir(), 'loupe-bench-cache');
const ledger = path.join(ledgerDir, 'undo-model-ledger.jsonl');
const earlier = key && existsSync(ledger) ? readFileSync(ledger, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((e) => e.key === key) : [];
const carried = { git: 0, plain: 0 };
for (const e of earlier) if (e.passed) carried[e.kind] += e.runs;
const failedBefore = earlier.find((e) => !e.passed);
const record = (entry) => {
  if (!key) return;
  mkdirSync(ledgerDir, { recursive: true });
  appendFileSync(ledger, `${JSON.stringify({ key, at: new Date().toISOString(), ...entry })}\n`);
};
if (key) console.error(`undo-model: code ${key.slice(0, 12)}…; ${carried.git + carried.plain} sequences passed on it before (${earlier.length} chunks)${failedBefore ? `, and a chunk FAILED (seed ${failedBefore.seed})` : ''}`);
else console.error('undo-model: no ledger (uncommitted changes in src/, test/ or the lockfile, or LOUPE_UNDO_FRESH=1)');

const queue = [];
for (const kind of ['git', 'plain']) for (let done = Math.min(carried[kind], PER_KIND); done < PER_KIND; done += CHUNK) queue.push({ kind, runs: Math.min(CHUNK, PER_KIND - done) });
const totals = {};
let chunksNow = 0;
const passed = { ...carried };
let failure = failedBefore ? { kind: failedBefore.kind, seed: failedBefore.seed, runs: failedBefore.runs, output: 'failed in an earlier part of this run (see the ledger)' } : null;

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
      record({ kind, seed, runs, passed: code === 0 });
      chunksNow++;
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
  passed: !failure && sequencesPassed >= PER_KIND * 2,
  sequencesPassed,
  // Passed in earlier parts on the same code (the ledger), and the parts' chunks in all.
  carriedFromEarlierParts: carried.git + carried.plain,
  chunks: { earlier: earlier.length, now: chunksNow },
  code: key,
  minutes: minutes(),
  exercised: totals,
  ...(failure ? { failedKind: failure.kind, failedSeed: failure.seed, failedRuns: failure.runs } : {}),
});
if (failure) {
  process.stderr.write(failure.output);
  process.exit(1);
}
