import { readdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { tempDir } from '../../../../test/support/tmp';
import { pruneOutputs } from './outputPrune';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir('loupe-outputs-')));
afterEach(() => cleanup());

const now = Date.UTC(2026, 10, 23, 12);
async function log(name: string, ageMinutes: number, bytes = 10) {
  const file = path.join(dir, name);
  await writeFile(file, 'x'.repeat(bytes));
  const t = (now - ageMinutes * 60_000) / 1000;
  await utimes(file, t, t);
}

it('keeps the newest logs within the count, byte and age limits, and never the one being written', async () => {
  for (let i = 0; i < 6; i++) await log(`cmd-${i}.log`, i * 10);
  await log('old.log', 8 * 24 * 60);
  await log('notes.txt', 9 * 24 * 60);
  const removed = await pruneOutputs(dir, path.join(dir, 'cmd-5.log'), { maxFiles: 3, maxBytes: 1000, maxAgeMs: 7 * 24 * 3600_000 }, now);
  expect(removed.sort()).toEqual(['cmd-3.log', 'cmd-4.log', 'old.log']);
  expect((await readdir(dir)).sort()).toEqual(['cmd-0.log', 'cmd-1.log', 'cmd-2.log', 'cmd-5.log', 'notes.txt']);
});

it('trims by total size, newest first', async () => {
  await log('a.log', 1, 600);
  await log('b.log', 2, 600);
  expect(await pruneOutputs(dir, path.join(dir, 'a.log'), { maxFiles: 10, maxBytes: 1000, maxAgeMs: 1e12 }, now)).toEqual(['b.log']);
});

it('a missing folder is nothing to prune', async () => {
  expect(await pruneOutputs(path.join(dir, 'nope'), 'x')).toEqual([]);
});
