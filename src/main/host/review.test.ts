import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { git, tempDir, writeTree } from '../../../test/support/tmp';
import { ModificationLog } from '../services/modlog/modificationLog';
import { ReviewService } from './review';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir('loupe-review-')));
afterEach(() => cleanup());

it('announces a log another process created even when only .loupe/ itself was reported', async () => {
  const events: unknown[] = [];
  const review = new ReviewService(new ModificationLog(dir), (_e, p) => events.push(p));
  // `loupe mcp` writes the first modification: inotify saw the folder appear, not the log in it.
  const other = new ModificationLog(dir);
  await other.apply({ file: 'a.txt', abs: path.join(dir, 'a.txt'), content: Buffer.from('a\n'), tool: 'write_file', operation: 'create', sessionId: 's' });
  await review.onPaths(['.loupe']);
  expect(events).toEqual([{ count: 1 }]);
  // The append lock coming and going with nothing new: no event.
  await review.onPaths(['.loupe/modifications.lock']);
  await review.onPaths(['src/x.ts']);
  expect(events).toHaveLength(1);
  await other.appendFact({ type: 'review', modification_id: (await review.list()).modifications[0].modification_id, verdict: 'approved', timestamp: new Date().toISOString() });
  await review.onPaths(['.loupe/modifications.lock']);
  expect(events).toEqual([{ count: 1 }, { count: 1 }]);
});

it('an approved modification already in HEAD is marked committed, and the next change to its file is not', async () => {
  git(dir, 'init', '-q');
  await writeTree(dir, { 'a.txt': 'one\n' });
  git(dir, 'add', '.');
  git(dir, 'commit', '-qm', 'init');
  const log = new ModificationLog(dir);
  const review = new ReviewService(log, () => undefined);
  const write = (content: string) => log.apply({ file: 'a.txt', abs: path.join(dir, 'a.txt'), content: Buffer.from(content), tool: 'write_file', operation: 'overwrite', sessionId: 's' });
  const first = await write('two\n');
  await review.approve(first.modificationId);
  expect((await review.list()).modifications[0].committed).toBeUndefined();
  await review.commitApproved('Two');
  expect((await review.list()).modifications[0]).toMatchObject({ status: 'approved', committed: true });
  await write('three\n');
  const [next, before] = (await review.list()).modifications;
  expect(next.committed).toBeUndefined();
  expect(before.committed).toBeUndefined();
});
