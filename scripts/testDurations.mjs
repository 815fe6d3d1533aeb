// Writes test/support/durations.json (seconds per test file, from a clean run) for the vitest
// sequencer (test/support/heavyFirst.ts). Refresh after a test file grows or shrinks a lot:
//   npx vitest run --reporter=json --outputFile=/tmp/vitest.json
//   node scripts/testDurations.mjs /tmp/vitest.json
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const report = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = {};
for (const r of report.testResults ?? []) {
  const rel = path.relative(root, r.name).split(path.sep).join('/');
  if (typeof r.startTime === 'number' && typeof r.endTime === 'number') out[rel] = Math.round((r.endTime - r.startTime) / 100) / 10;
}
const sorted = Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
writeFileSync(path.join(root, 'test/support/durations.json'), JSON.stringify(sorted, null, 1) + '\n');
console.log(`${Object.keys(sorted).length} files`);
