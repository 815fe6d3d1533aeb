// Badges kept from `git status -- <paths>` for each batch of changed paths equal a full status,
// after any sequence: files written, removed and renamed, folders made, moved in and out, nested
// .gitignore files written (untracked files hidden and shown again), links, nested repositories,
// and between them the index and HEAD changed from outside (stage, unstage, commit, git mv,
// intent-to-add), after which the workspace asks for the whole status as it does on a change in
// .git. One repository lives through all the sequences (see indexPatch.property.test.ts).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyOp, batches, describeTree, DIRS } from '../../../../test/support/treeOps';
import { git, tempDir, writeTree } from '../../../../test/support/tmp';
import { GitBadges } from './gitBadges';
import { gitStatus } from './gitStatus';

let root: string;
let outside: string;
const cleanups: (() => Promise<void>)[] = [];
beforeAll(async () => {
  const a = await tempDir('loupe-badges-prop-');
  const b = await tempDir('loupe-badges-prop-outside-');
  cleanups.push(a.cleanup, b.cleanup);
  root = a.dir;
  outside = b.dir;
  git(root, 'init', '-q');
  await writeTree(root, { 'f.ts': 'one\n', 'a/f.ts': 'two\n', 'a/b/f.ts': 'three\n', 'src/f.ts': 'one\n', 'x/y/z/f.ts': 'two\n', 'src/b/g.log': 'three\n' });
  git(root, 'add', '-A');
  git(root, 'commit', '-qm', 'init');
});
afterAll(async () => {
  for (const c of cleanups) await c();
});

const place = fc.oneof(fc.constantFrom('.', 'f.ts', 'g.log', 'h.tmp'), fc.constantFrom(...DIRS), fc.constantFrom(...DIRS).map((d) => `${d}/f.ts`));
/** What another git does to the index and HEAD (errors, such as an unknown path, change nothing). */
const gitOp = fc.oneof(
  { weight: 3, arbitrary: place.map((p) => ['add', '-A', '--', p]) },
  { weight: 1, arbitrary: place.map((p) => ['rm', '-r', '-q', '--cached', '--ignore-unmatch', '--', p]) },
  // Renames and intent-to-add files send every batch to the whole status until committed.
  { weight: 3, arbitrary: fc.constant(['commit', '-q', '--allow-empty', '-m', 'x']) },
  { weight: 1, arbitrary: fc.tuple(place, place).map(([a, b]) => ['mv', '-k', a, b]) },
  { weight: 1, arbitrary: place.map((p) => ['add', '-N', '--', p]) },
);
/** Most sequences are the work tree's alone; one in four starts with another git. */
const maybeGit = fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: gitOp });

describe('GitBadges.refreshPaths', () => {
  it('equals a full status after each of 300 generated sequences', async () => {
    const badges = new GitBadges(root, { fullEveryMs: Infinity });
    await badges.refresh();
    await fc.assert(
      fc.asyncProperty(maybeGit, batches, async (outsideGit, steps) => {
        const before = describeTree(root);
        if (outsideGit) {
          try {
            git(root, ...outsideGit);
          } catch {
            // Nothing to stage, move or commit there.
          }
          await badges.refresh();
        }
        const told: string[] = [];
        let batch: string[] = [];
        for (const [i, [op, verbose, cut]] of steps.entries()) {
          batch.push(...applyOp(root, outside, op, verbose));
          if (!cut && i < steps.length - 1) continue;
          if (batch.length) await badges.refreshPaths(batch);
          told.push(JSON.stringify(batch));
          batch = [];
        }
        expect(badges.status, `from: ${before}\ngit: ${outsideGit?.join(' ')}\nbatches: ${told.join('; ')}`).toEqual(await gitStatus(root, { prefix: '' }));
      }),
      { numRuns: Number(process.env.RUNS ?? 300), endOnFailure: true, seed: Number(process.env.SEED ?? 2026) },
    );
    // Most batches asked git about their paths only: the property is about those.
    expect(badges.pathRuns).toBeGreaterThan(badges.runs);
    badges.dispose();
  // A bound for a stuck run, not a budget: at load 20, beside the other property file, 300
  // sequences of git runs took longer than 900 s.
  }, 1_800_000);
});
