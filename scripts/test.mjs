// `npm test`: lint, typecheck, build, unit + integration (vitest), end to end (Playwright).
// Ends with one plain summary line, `N passed, N failed, N skipped`, counted over both runners.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'loupe-test-run-'));
const vitestJson = path.join(tmp, 'vitest.json');
const playwrightJson = path.join(tmp, 'playwright.json');
const bin = (name) => path.join('node_modules', '.bin', name);
const failures = [];

function step(name, cmd, args, env = {}) {
  const started = Date.now();
  console.log(`\n▶ ${name}: ${[cmd, ...args].join(' ')}`);
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  const ok = r.status === 0;
  console.log(`${ok ? '✔' : '✘'} ${name} (${secs}s)`);
  if (!ok) failures.push(name);
  return ok;
}

const only = process.argv[2]; // e.g. `npm test -- unit`
const want = (s) => !only || only === s;

if (want('lint')) step('lint', bin('eslint'), ['--max-warnings=0', '.']);
if (want('typecheck')) {
  const tsc = path.join('node_modules', 'tsc7', 'bin', 'tsc');
  step('typecheck (main)', process.execPath, [tsc, '--noEmit', '-p', 'tsconfig.node.json']);
  step('typecheck (renderer)', process.execPath, [tsc, '--noEmit', '-p', 'tsconfig.web.json']);
  step('typecheck (e2e)', process.execPath, [tsc, '--noEmit', '-p', 'tsconfig.e2e.json']);
}
const built = want('e2e') || want('unit') ? step('build', bin('electron-vite'), ['build']) : true;
if (want('unit')) step('unit + integration (vitest)', bin('vitest'), ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${vitestJson}`]);
if (want('e2e')) {
  if (built) step('end to end (playwright)', bin('playwright'), ['test'], { LOUPE_PW_JSON: playwrightJson });
  else failures.push('end to end (not run: build failed)');
}

const counts = { passed: 0, failed: 0, skipped: 0 };
if (existsSync(vitestJson)) {
  const v = JSON.parse(readFileSync(vitestJson, 'utf8'));
  counts.passed += v.numPassedTests ?? 0;
  counts.failed += v.numFailedTests ?? 0;
  counts.skipped += (v.numPendingTests ?? 0) + (v.numTodoTests ?? 0);
}
if (existsSync(playwrightJson)) {
  const s = JSON.parse(readFileSync(playwrightJson, 'utf8')).stats ?? {};
  counts.passed += (s.expected ?? 0) + (s.flaky ?? 0);
  counts.failed += s.unexpected ?? 0;
  counts.skipped += s.skipped ?? 0;
}
rmSync(tmp, { recursive: true, force: true });

if (failures.length) console.log(`\nFailed steps: ${failures.join(', ')}`);
console.log(`\nsummary: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
process.exit(failures.length || counts.failed ? 1 : 0);
