import { spawnSync } from 'node:child_process';
import { mkdir, readdir, readFile, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { tempDir } from '../../../../test/support/tmp';
import { holderId, startOf, withLogLock } from './logLock';

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
        expect(await readFile(lock, 'utf8')).toBe(holderId());
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

it('never shows an empty lock: the pid is in the file from the moment it exists', async () => {
  const lock = path.join(dir, 'x.lock');
  const seen: string[] = [];
  let stop = false;
  const watcher = (async () => {
    while (!stop) {
      const text = await readFile(lock, 'utf8').catch(() => null);
      if (text !== null) seen.push(text);
      await new Promise((r) => setImmediate(r));
    }
  })();
  for (let i = 0; i < 200; i++) await withLogLock(lock, async () => undefined);
  stop = true;
  await watcher;
  expect(seen.every((t) => t === holderId())).toBe(true);
});

it('takes over an empty lock left by a writer killed between create and write, once it is old', async () => {
  const lock = path.join(dir, 'x.lock');
  await writeFile(lock, '');
  const old = new Date(Date.now() - 5_000);
  await utimes(lock, old, old);
  expect(await withLogLock(lock, async () => 'mine', { timeoutMs: 500 })).toBe('mine');
});

it('sweeps temp files of writers killed before they linked the lock', async () => {
  const lock = path.join(dir, 'x.lock');
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
  const leftover = path.join(dir, `.x.lock.${dead}.0badf00d.loupe-link`);
  const live = path.join(dir, `.x.lock.${process.pid}.0badf00d.loupe-link`);
  await writeFile(leftover, dead);
  await writeFile(live, String(process.pid));
  await withLogLock(lock, async () => undefined);
  expect((await readdir(dir)).sort()).toEqual([path.basename(live)]);
});

it('still locks on a file system without hard links (link fails): the name is created directly', async () => {
  const { createWholeInside } = await import('../files/safeWrite');
  const noLinks = async () => {
    throw Object.assign(new Error('Operation not permitted'), { code: 'EPERM' });
  };
  const lock = path.join(dir, 'x.lock');
  expect(await createWholeInside(dir, lock, String(process.pid), 0o644, noLinks)).toBe(true);
  expect(await readFile(lock, 'utf8')).toBe(String(process.pid));
  expect(await createWholeInside(dir, lock, 'other', 0o644, noLinks)).toBe(false);
  expect(await readFile(lock, 'utf8')).toBe(String(process.pid));
  // No temp file left behind either way.
  expect(await readdir(dir)).toEqual(['x.lock']);
});

it('names its holder by pid and start time, so a pid now used by another process is no holder, however young the lock', async () => {
  const lock = path.join(dir, 'x.lock');
  expect(holderId()).toBe(`${process.pid} ${startOf(process.pid)}`);
  // This process's pid, as if an earlier process with the same pid had written it: stale at once.
  await writeFile(lock, `${process.pid} 1`);
  expect(await withLogLock(lock, async () => 'mine', { timeoutMs: 30_000, staleMs: 60_000 })).toBe('mine');
  // The live holder itself: never taken from it, however old its lock.
  await writeFile(lock, holderId());
  const old = new Date(Date.now() - 120_000);
  await utimes(lock, old, old);
  await expect(withLogLock(lock, async () => 'never', { timeoutMs: 100, staleMs: 1_000 })).rejects.toMatchObject({ code: 'TIMEOUT' });
});
