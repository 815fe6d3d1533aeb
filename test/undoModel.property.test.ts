// Undo and redo, model-based (the rewind issue): random sequences over several requests of two
// sessions — agent edits, commands that create, change, delete and rename tracked, untracked,
// binary and ignored files, a person editing in between — with undo and redo of arbitrary
// requests, in a git repository and in a plain folder. After every undo and redo: no line the
// person wrote is lost and no file the person deleted comes back, files Loupe never wrote and
// ignored files are untouched, the other session's modifications stay in effect, a file only
// the undone session wrote since is back to its state at that request, and undo then redo
// gives back the exact tree. LOUPE_UNDO_RUNS sets the number of sequences (bench: 20,000).
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { commandArbs, newWorld, stats } from './support/undoWorld';

const RUNS = Number(process.env.LOUPE_UNDO_RUNS ?? 250);

afterAll(() => {
  // The sequences must reach what they check: undos that land, conflicts, exact redos, captured commands.
  console.log(`undo model: ${JSON.stringify(stats)}`);
  if (RUNS >= 100) {
    expect(stats.undos).toBeGreaterThan(RUNS / 4);
    expect(stats.conflicts).toBeGreaterThan(0);
    expect(stats.redosExact).toBeGreaterThan(RUNS / 20);
    expect(stats.capturedFiles).toBeGreaterThan(RUNS);
  }
});

describe.each([
  ['a git repository', true],
  ['a plain folder', false],
])('undo and redo in %s (model-based)', (_name, git) => {
  it(`keep every invariant over ${RUNS} generated sequences`, { timeout: RUNS * 4000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commandArbs, { maxCommands: 16, size: 'large' }), async (cmds) => {
        const { model, real } = await newWorld(git);
        try {
          await fc.asyncModelRun(() => ({ model, real }), cmds);
        } finally {
          await real.cleanup();
        }
      }),
      { numRuns: RUNS },
    );
  });
});
