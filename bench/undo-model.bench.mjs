// The undo/redo model-based test (test/undoModel.{git,plain}.property.test.ts) at bench scale: 20,000
// generated sequences (10,000 in a git repository, 10,000 in a plain folder) instead of CI's
// 500. Long (tens of minutes): run on its own with `npm run bench undo-model`; `npm run bench`
// runs it too unless LOUPE_BENCH_QUICK is set.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ROOT, report } from './lib.mjs';

if (process.env.LOUPE_BENCH_QUICK) {
  console.error('undo-model bench: skipped (LOUPE_BENCH_QUICK)');
  process.exit(0);
}
const PER_KIND = Number(process.env.LOUPE_UNDO_RUNS ?? 10_000);
const t0 = performance.now();
const r = spawnSync(process.execPath, [path.join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', 'test/undoModel.git.property.test.ts', 'test/undoModel.plain.property.test.ts'], {
  cwd: ROOT,
  env: { ...process.env, LOUPE_UNDO_RUNS: String(PER_KIND) },
  encoding: 'utf8',
  maxBuffer: 64 * 1024 * 1024,
});
const out = `${r.stdout}\n${r.stderr}`;
const stats = [...out.matchAll(/undo model \((git|plain)\): (\{.*\})/g)].map((m) => ({ kind: m[1], ...JSON.parse(m[2]) }));
report('undo_model.sequences', PER_KIND * 2, 'sequences', { passed: r.status === 0, minutes: Math.round((performance.now() - t0) / 600) / 100, exercised: stats });
if (r.status !== 0) {
  process.stderr.write(out.slice(-8000));
  process.exit(1);
}
