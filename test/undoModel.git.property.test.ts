// Undo and redo, model-based (the rewind issue): random sequences over several requests of two
// sessions — agent edits, commands that create, change, delete and rename tracked, untracked,
// binary and ignored files, a person editing in between — with undo and redo of arbitrary
// requests (test/support/undoWorld.ts). After every undo and redo: no line the person wrote is
// lost and no file the person deleted comes back, files Loupe never wrote and ignored files are
// untouched, the other session's modifications stay in effect, a file only the undone session
// wrote since is back to its state at that request, and undo then redo gives back the exact
// tree. One file per kind of workspace, so CI runs both at once; LOUPE_UNDO_RUNS sets the number
// of sequences of each (250 here, 500 in all; the bench runs 10,000 of each).
import { it } from 'vitest';
import { checkUndoModel } from './support/undoWorld';

const RUNS = Number(process.env.LOUPE_UNDO_RUNS ?? 250);

it(`undo and redo in a git repository keep every invariant over ${RUNS} generated sequences`, { timeout: RUNS * 20_000 }, () => checkUndoModel(true, RUNS));
