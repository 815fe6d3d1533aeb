// The `loupe` command as the shell runs it: bin/loupe.mjs executed through its own shebang
// (npm links it as is). The shebang carries the Node flags `loupe serve`'s memory figure
// depends on (bench scale-tree); this checks they reach the process.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '..');
const BIN = path.join(ROOT, 'bin/loupe.mjs');

it('runs through its shebang with a small young generation', () => {
  if (!existsSync(path.join(ROOT, 'out/main/cli.js'))) throw new Error('loupe is not built: run `npm run build` before this test.');
  expect(execFileSync(BIN, ['--help'], { encoding: 'utf8' })).toContain('loupe serve');
  const flags = readFileSync(BIN, 'utf8').split('\n')[0].replace(/^#!\/usr\/bin\/env -S node\s*/, '').split(/\s+/).filter(Boolean);
  expect(flags).toContain('--max-semi-space-size=4');
  // Node accepts them, and they change what V8 sets up (a default young generation grows to 32 MB).
  const heap = (args: string[]) => JSON.parse(execFileSync(process.execPath, [...args, '-e', `const v8 = require('node:v8'); const a = []; for (let i = 0; i < 2e6; i++) a.push({ i }); a.length = 0; process.stdout.write(JSON.stringify(v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size))`], { encoding: 'utf8' })) as number;
  expect(heap(flags)).toBeLessThanOrEqual(8 * 1024 * 1024);
  expect(heap([])).toBeGreaterThan(8 * 1024 * 1024);
});
