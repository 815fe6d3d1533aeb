import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { tempDir } from '../../../../test/support/tmp';
import { ChangeJournal, eventLimit } from './changeJournal';

const idle = () => Promise.resolve();

it('promises nothing before a watcher is ready, and nothing for the interval in which it became ready', () => {
  const j = new ChangeJournal(100);
  expect(j.take().complete).toBe(false);
  const src = j.attach();
  src.paths(['a.ts']);
  expect(j.take()).toEqual({ paths: ['a.ts'], complete: false });
  src.ready(idle);
  expect(j.take().complete).toBe(false);
  src.paths(['b.ts', '.loupe/snapshots/x/index', '.loupe']);
  expect(j.take()).toEqual({ paths: ['b.ts'], complete: true });
  expect(j.take()).toEqual({ paths: [], complete: true });
});

it('an interval with as many events as the limit, a lost watch, a stop or a replaced watcher is not promised', () => {
  const j = new ChangeJournal(3);
  const src = j.attach();
  src.ready(idle);
  j.take();
  src.paths(['a', 'a', 'a']);
  expect(j.take().complete).toBe(false);
  src.paths(['a', 'a']);
  expect(j.take().complete).toBe(true);
  src.lost();
  expect(j.live).toBe(false);
  expect(j.take().complete).toBe(false);
  expect(j.take().complete).toBe(false);
  const next = j.attach();
  next.ready(idle);
  j.take();
  // The first watcher's late words count for nothing.
  src.paths(['old']);
  src.lost();
  expect(j.take()).toEqual({ paths: [], complete: true });
  next.detach();
  expect(j.take().complete).toBe(false);
});

it('a failed snapshot gives its paths back and the next one is not promised', () => {
  const j = new ChangeJournal(100);
  const src = j.attach();
  src.ready(idle);
  j.take();
  src.paths(['a']);
  const t = j.take();
  j.giveBack(t);
  src.paths(['b']);
  expect(j.take()).toEqual({ paths: ['a', 'b'], complete: false });
});

it('flush waits for its cookie to come back through the watcher, then for the sweep; not back in time is false', async () => {
  const { dir, cleanup } = await tempDir('loupe-journal-');
  try {
    const j = new ChangeJournal(100);
    const src = j.attach();
    let swept = false;
    src.ready(async () => {
      swept = true;
    });
    j.take();
    const ok = await j.flush('.loupe/cookie', async () => {
      await writeFile(path.join(dir, 'cookie'), '1');
      setTimeout(() => src.paths(['.loupe/cookie']), 20);
    });
    expect(ok).toBe(true);
    expect(swept).toBe(true);
    expect(j.take()).toEqual({ paths: [], complete: true });
    expect(await j.flush('.loupe/cookie', async () => undefined, 50)).toBe(false);
    expect(j.take().complete).toBe(false);
    // Folders only a sweep shows are waited for too; blind folders of git's and Loupe's own are not kept.
    src.blind('node_modules');
    src.blind('.git/objects');
    src.blind('.loupe/outputs');
    expect(j.blind).toEqual(['node_modules']);
  } finally {
    await cleanup();
  }
});

it("half the kernel's queue is the limit; unreadable, a safe default", async () => {
  const { dir, cleanup } = await tempDir('loupe-journal-');
  try {
    await writeFile(path.join(dir, 'q'), '16384\n');
    expect(eventLimit(path.join(dir, 'q'))).toBe(8192);
    await writeFile(path.join(dir, 'q'), '1000\n');
    expect(eventLimit(path.join(dir, 'q'))).toBe(500);
    expect(eventLimit(path.join(dir, 'missing'))).toBe(8192);
  } finally {
    await cleanup();
  }
});

it('keeps no more than ten thousand paths between snapshots; past that the next one walks', () => {
  const j = new ChangeJournal(1_000_000);
  const src = j.attach();
  src.ready(idle);
  j.take();
  src.paths(Array.from({ length: 10_001 }, (_, i) => `f${i}`));
  expect(j.take()).toEqual({ paths: [], complete: false });
});
