import { spawnSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { tempDir } from '../../../../test/support/tmp';
import { withLogLock } from './logLock';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir('loupe-loglock-'));
  await mkdir(dir, { recursive: true });
});
afterEach(() => cleanup());

it('lets one holder in at a time and removes the lock after', async () => {
  const lock = path.join(dir, 'x.lock');
  let inside = 0;
  let most = 0;
  await Promise.all(
    Array.from({ length: 8 }, () =>
      withLogLock(lock, async () => {
        most = Math.max(most, ++inside);
        expect(await readFile(lock, 'utf8')).toBe(String(process.pid));
        await new Promise((r) => setTimeout(r, 5));
        inside--;
      }),
    ),
  );
  expect(most).toBe(1);
  await expect(readFile(lock)).rejects.toMatchObject({ code: 'ENOENT' });
});

it('takes over a lock whose process is gone', async () => {
  const lock = path.join(dir, 'x.lock');
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
  await writeFile(lock, dead);
  expect(await withLogLock(lock, async () => 'mine', { timeoutMs: 500 })).toBe('mine');
});

it('gives up with TIMEOUT, naming the file, while a live process holds it', async () => {
  const lock = path.join(dir, 'x.lock');
  await writeFile(lock, String(process.pid));
  await expect(withLogLock(lock, async () => 'never', { timeoutMs: 100 })).rejects.toMatchObject({ code: 'TIMEOUT', message: expect.stringContaining('x.lock') });
  expect(await readFile(lock, 'utf8')).toBe(String(process.pid));
});
