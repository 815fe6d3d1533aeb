// The index entries a rollback puts back land at the file's own path even when the workspace is a
// folder below the repository's top (index-info and --cacheinfo paths are the repository's).
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { git, tempDir } from '../../../../test/support/tmp';
import { GitIndex } from './gitIndex';

let cleanup: (() => Promise<void>) | null = null;
afterEach(async () => {
  await cleanup?.();
  cleanup = null;
});

it('entries are read, staged and put back at the workspace file, from a folder below the top', async () => {
  const t = await tempDir();
  cleanup = t.cleanup;
  const sub = path.join(t.dir, 'packages', 'app');
  await mkdir(sub, { recursive: true });
  await writeFile(path.join(sub, 'a.txt'), 'one\n');
  git(t.dir, 'init', '-q');
  git(t.dir, 'add', '-A');
  git(t.dir, 'commit', '-qm', 'seed');
  const index = (await GitIndex.detect(sub))!;
  expect(index.prefix).toBe('packages/app/');
  const original = (await index.entriesOf(['a.txt'])).get('a.txt')!;
  expect(original).toMatchObject({ mode: '100644' });

  await writeFile(path.join(sub, 'a.txt'), 'two\n');
  await writeFile(path.join(sub, 'b.txt'), 'new\n');
  expect([...(await index.stageMany(['a.txt', 'b.txt']))].sort()).toEqual(['a.txt', 'b.txt']);
  expect((await index.entriesOf(['a.txt'])).get('a.txt')!.oid).not.toBe(original.oid);

  // One call puts a.txt's entry back and drops b.txt, both where they are.
  expect(await index.setEntries(new Map([['a.txt', original], ['b.txt', null]]))).toBe(true);
  expect(git(t.dir, 'ls-files', '-s').trim().split('\n')).toEqual([`100644 ${original.oid} 0\tpackages/app/a.txt`]);
  expect(await index.setEntry('a.txt', { mode: '100644', oid: original.oid })).toBe(true);
  expect(git(t.dir, 'ls-files').trim()).toBe('packages/app/a.txt');
});
