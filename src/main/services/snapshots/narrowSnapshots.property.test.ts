// After any generated sequence of changes to a watched folder — writes, deletions, renames,
// folder moves and removals, modes, links, .gitignore edits, a tracked node_modules — the snapshot that
// looks only at the paths the watcher saw gives the tree a walk of the whole folder gives.
import { chmod, mkdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, expect, it } from 'vitest';
import { narrowWorld } from '../../../../test/support/narrowWorld';

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const f of open.splice(0).reverse()) await f();
});
const FILES = ['src/a.ts', 'pkg/node_modules/dep/index.js', 'src/deep/b.ts', 'new/x/f.ts', 'deep/er/c.txt', 'top.txt', 'sp ace.txt', 'ünï.ts', 'build/out.js', 'x.log', 'node_modules/x/i.js', 'src/deep/more/d.ts'];
const DIRS = ['src/deep', 'new', 'deep', 'build', 'src', 'moved', 'deep/er'];
type Op =
  | { op: 'write'; file: string; n: number }
  | { op: 'delete'; file: string }
  | { op: 'rename'; from: string; to: string }
  | { op: 'rmdir'; dir: string }
  | { op: 'mvdir'; from: string; to: string }
  | { op: 'chmod'; file: string }
  | { op: 'link'; file: string; target: string }
  | { op: 'ignore'; line: string };

const dirArb = fc.constantFrom(...DIRS);
const opsOf = (fileArb: fc.Arbitrary<string>): fc.Arbitrary<Op> => fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('write' as const), file: fileArb, n: fc.nat(3) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('delete' as const), file: fileArb }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('rename' as const), from: fileArb, to: fileArb }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('rmdir' as const), dir: dirArb }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('mvdir' as const), from: dirArb, to: dirArb }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('chmod' as const), file: fileArb }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('link' as const), file: fileArb, target: fc.constantFrom('src/a.ts', '../top.txt', 'nowhere') }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('ignore' as const), line: fc.constantFrom('*.txt', 'src/deep/', '!x.log', 'moved/') }) },
);

async function apply(root: string, o: Op): Promise<void> {
  const abs = (rel: string) => path.join(root, rel);
  try {
    switch (o.op) {
      case 'write':
        await mkdir(path.dirname(abs(o.file)), { recursive: true });
        return await writeFile(abs(o.file), `${o.file} ${o.n}\n`.repeat(o.n + 1));
      case 'delete':
        return await rm(abs(o.file), { force: true });
      case 'rename':
      case 'mvdir':
        if (o.to === o.from || o.to.startsWith(`${o.from}/`)) return;
        await mkdir(path.dirname(abs(o.to)), { recursive: true });
        return await rename(abs(o.from), abs(o.to));
      case 'rmdir':
        return await rm(abs(o.dir), { recursive: true, force: true });
      case 'chmod':
        return await chmod(abs(o.file), 0o755);
      case 'link':
        await rm(abs(o.file), { force: true });
        await mkdir(path.dirname(abs(o.file)), { recursive: true });
        return await symlink(o.target, abs(o.file));
      case 'ignore': {
        const file = abs('.gitignore');
        const lines = (await readFile(file, 'utf8').catch(() => '')).split('\n').filter(Boolean);
        const next = lines.includes(o.line) ? lines.filter((l) => l !== o.line) : [...lines, o.line];
        return await writeFile(file, next.join('\n') + '\n');
      }
    }
  } catch {
    // A path that is not there, a folder where a file is asked: nothing changed, which is a case too.
  }
}

for (const [trackedModules, runs] of [
  [false, 40],
  [true, 15],
] as const) {
  // Without a tracked node_modules the snapshots are made in this process; with one (a folder
  // the watcher never watches) git is told the paths and that folder.
  it(`after any sequence of changes, a snapshot of the changed paths is the tree a walk finds${trackedModules ? ', with a tracked node_modules' : ''}`, { timeout: 600_000 }, async () => {
    const w = await narrowWorld(open, { trackedModules });
    const opArb = opsOf(fc.constantFrom(...FILES.filter((f) => trackedModules || !f.startsWith('pkg/node_modules/'))));
    await w.both();
    const modes = { walk: 0, paths: 0, hashed: 0, none: 0 };
    let seq = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(opArb, { minLength: 0, maxLength: 4 }), { minLength: 1, maxLength: 5 }), async (batches) => {
        seq++;
        for (const batch of batches) {
          for (const o of batch) await apply(w.root, o);
          const mode = await w.both();
          modes[mode!]++;
        }
      }),
      // LOUPE_NARROW_SEED (and LOUPE_NARROW_PATH) replay a failure fast-check reported.
      { numRuns: Number(process.env.LOUPE_NARROW_RUNS ?? runs), endOnFailure: true, ...(process.env.LOUPE_NARROW_SEED ? { seed: Number(process.env.LOUPE_NARROW_SEED), path: process.env.LOUPE_NARROW_PATH } : {}) },
    );
    console.info(`narrow snapshots over ${seq} sequences: ${JSON.stringify(modes)}`);
    // Most snapshots looked at the changed paths only, and in the way this world is for.
    expect(modes.hashed + modes.paths + modes.none).toBeGreaterThan(modes.walk * 2);
    expect(trackedModules ? modes.paths : modes.hashed).toBeGreaterThan(modes.walk);
  });
}
