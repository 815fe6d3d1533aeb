// The index patched from watcher paths equals the index a fresh walk builds, after any sequence
// of changes: files made, removed and renamed, folders made, moved in, moved out and renamed,
// nested .gitignore and .ignore files written and removed (so ignored folders become visible
// and the other way round), links, nested repositories.
//
// One folder and one index live through all the sequences, each starting where the last one
// ended (which was checked equal to a fresh walk): a fresh folder and walk per sequence cost
// more rg runs than the sequence itself. A failure prints the tree the sequence started from.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyOp, batches, describeTree } from '../../../../test/support/treeOps';
import { git, tempDir } from '../../../../test/support/tmp';
import { FileIndex } from './fileIndex';

let root: string;
let outside: string;
const cleanups: (() => Promise<void>)[] = [];
beforeAll(async () => {
  const a = await tempDir('loupe-patch-');
  const b = await tempDir('loupe-patch-outside-');
  cleanups.push(a.cleanup, b.cleanup);
  root = a.dir;
  outside = b.dir;
  git(root, 'init', '-q');
});
afterAll(async () => {
  for (const c of cleanups) await c();
});

const fresh = async (): Promise<string[]> => {
  const index = new FileIndex(root);
  await index.refresh();
  return index.snapshot();
};


describe('FileIndex.patch', () => {
  it('equals a fresh walk after each of 300 generated sequences', async () => {
    const index = new FileIndex(root);
    await index.refresh();
    let patched = 0;
    let walked = 0;
    await fc.assert(
      fc.asyncProperty(batches, async (steps) => {
        const before = describeTree(root);
        const told: string[] = [];
        let batch: string[] = [];
        for (const [i, [op, verbose, cut]] of steps.entries()) {
          batch.push(...applyOp(root, outside, op, verbose));
          if (!cut && i < steps.length - 1) continue;
          const changed = await index.patch(batch);
          told.push(`${JSON.stringify(batch)} → ${changed === null ? 'walk' : JSON.stringify(changed)}`);
          if (changed === null) {
            walked++;
            await index.refresh();
          } else patched++;
          batch = [];
        }
        expect(index.snapshot(), `from: ${before}\nbatches: ${told.join('; ')}`).toEqual(await fresh());
      }),
      { numRuns: Number(process.env.RUNS ?? 300), endOnFailure: true, seed: Number(process.env.SEED ?? 2026) },
    );
    // Most batches were patched, not walked: the property is about the patch.
    expect(patched).toBeGreaterThan(walked * 3);
  // A bound for a stuck run, not a budget: at load 20, beside the other property file, 300
  // sequences of git runs took longer than 900 s.
  }, 1_800_000);
});
