// One cat-file kept running for many lookups: the bytes of each object as stored (binary ones,
// ones larger than a pipe's chunk), missing ones said, an aborted lookup ending the process and
// the next lookup starting another, and nothing after close.
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { git, tempDir } from '../../../../test/support/tmp';
import { GitRunner } from './gitRunner';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function repo() {
  const { dir, cleanup } = await tempDir('loupe-catfile-');
  cleanups.push(cleanup);
  git(dir, 'init', '-q');
  const blobs = new Map<string, Buffer>();
  for (const [name, bytes] of [
    ['text.txt', Buffer.from('one\ntwo\n')],
    ['binary.bin', Buffer.from([0, 10, 13, 10, 255, 0])],
    ['big.bin', randomBytes(300_000)],
    ['empty.txt', Buffer.alloc(0)],
  ] as const) {
    await writeFile(path.join(dir, name), bytes);
    blobs.set(git(dir, 'hash-object', '-w', name).trim(), Buffer.from(bytes));
  }
  return { dir, blobs };
}

it('answers many lookups from one process, byte for byte, and says which objects are missing', async () => {
  const { dir, blobs } = await repo();
  const batch = new GitRunner(dir).catFileBatch();
  try {
    const missing = 'f'.repeat(40);
    for (let round = 0; round < 3; round++) {
      const got = await batch.read([...blobs.keys(), missing]);
      for (const [oid, bytes] of blobs) expect(got.get(oid)?.equals(bytes)).toBe(true);
      expect(got.get(missing)).toBeNull();
    }
    // Lookups asked at once are answered in turn, each its own.
    const [a, b] = await Promise.all([batch.read([[...blobs.keys()][0]]), batch.read([[...blobs.keys()][2]])]);
    expect(a.size).toBe(1);
    expect(b.get([...blobs.keys()][2])?.length).toBe(300_000);
  } finally {
    batch.close();
  }
});

it('an aborted lookup ends the process; the next one starts another; after close nothing is answered', async () => {
  const { dir, blobs } = await repo();
  const batch = new GitRunner(dir).catFileBatch();
  const stop = new AbortController();
  stop.abort();
  await expect(batch.read([...blobs.keys()], stop.signal)).rejects.toMatchObject({ code: 'ABORTED' });
  const late = new AbortController();
  const pending = batch.read([...blobs.keys()], late.signal);
  late.abort();
  await pending.then(
    (got) => expect(got.size).toBe(blobs.size),
    (err) => expect(err).toMatchObject({ code: 'ABORTED' }),
  );
  const again = await batch.read([...blobs.keys()]);
  expect([...again.values()].every((v) => v !== null)).toBe(true);
  batch.close();
  await expect(batch.read([...blobs.keys()])).rejects.toThrow(/closed/);
});
