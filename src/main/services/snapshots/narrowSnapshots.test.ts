// Snapshots that look only at what the watcher saw change (docs/architecture.md, "What a command
// wrote") give the tree a full walk gives, and walk whenever the journal cannot promise that.
import { chmod, mkdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import fc from 'fast-check';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { git, tempDir } from '../../../../test/support/tmp';
import { ChangeJournal } from '../workspace/changeJournal';
import { WorkspaceWatcher } from '../workspace/watcher';
import { WorkTreeSnapshots } from './workTreeSnapshots';

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const f of open.splice(0).reverse()) await f();
});

/** A repository with a watcher feeding a journal, a narrowing snapshot and a walking one. */
async function world(opts: { limit?: number; repo?: boolean; trackedModules?: boolean } = {}) {
  const t = await tempDir('loupe-narrow-');
  open.push(t.cleanup);
  const root = path.join(t.dir, 'ws');
  await mkdir(path.join(root, 'src', 'deep'), { recursive: true });
  await writeFile(path.join(root, '.gitignore'), 'build/\n*.log\n/node_modules/\n');
  await writeFile(path.join(root, 'src', 'a.ts'), 'a\n');
  await writeFile(path.join(root, 'src', 'deep', 'b.ts'), 'b\n');
  if (opts.trackedModules) {
    await mkdir(path.join(root, 'pkg', 'node_modules', 'dep'), { recursive: true });
    await writeFile(path.join(root, 'pkg', 'node_modules', 'dep', 'index.js'), 'tracked dependency\n');
  }
  await mkdir(path.join(root, 'node_modules', 'x'), { recursive: true });
  await writeFile(path.join(root, 'node_modules', 'x', 'i.js'), 'ignored\n');
  if (opts.repo !== false) {
    git(root, 'init', '-q');
    git(root, 'add', '-A');
    git(root, 'commit', '-qm', 'base');
  }
  const journal = new ChangeJournal(opts.limit);
  const watcher = new WorkspaceWatcher(root, () => undefined, () => undefined, 100, 'dirs', journal.attach());
  await watcher.start();
  const narrow = new WorkTreeSnapshots(root, async () => null, journal);
  const walk = new WorkTreeSnapshots(root, async () => null);
  open.push(async () => {
    await watcher.stop();
    await narrow.dispose();
    await walk.dispose();
  });
  /**
   * Both snapshots now; the narrowing one must give the walking one's tree. Its ignored entries
   * are git's listing for the changed paths, whose folders may group otherwise than a walk's:
   * they are compared where it matters, in the counts below.
   */
  const both = async () => {
    const a = await narrow.take({ ignored: true });
    const b = await walk.take({ ignored: true });
    expect(a.tree).toBe(b.tree);
    return narrow.lastMode;
  };
  return { root, journal, narrow, walk, both, watcher };
}

it('after a first walk, a change is looked at alone and no change runs no git', async () => {
  const w = await world();
  expect(await w.both()).toBe('walk');
  expect(await w.both()).toBe('none');
  await writeFile(path.join(w.root, 'src', 'a.ts'), 'changed\n');
  expect(await w.both()).toBe('paths');
  await rm(path.join(w.root, 'src', 'deep'), { recursive: true });
  expect(await w.both()).toBe('paths');
  await mkdir(path.join(w.root, 'new', 'x'), { recursive: true });
  await writeFile(path.join(w.root, 'new', 'x', 'f.ts'), 'f\n');
  await writeFile(path.join(w.root, 'build.log'), 'ignored\n');
  expect(await w.both()).toBe('paths');
  await rename(path.join(w.root, 'new'), path.join(w.root, 'moved'));
  await chmod(path.join(w.root, 'src', 'a.ts'), 0o755);
  await symlink('src/a.ts', path.join(w.root, 'link'));
  expect(await w.both()).toBe('paths');
  expect(await w.both()).toBe('none');
});

it('a node_modules that git does not ignore is never watched, so every snapshot looks at it', async () => {
  const w = await world({ trackedModules: true });
  expect(await w.both()).toBe('walk');
  expect(await w.both()).toBe('paths');
  await writeFile(path.join(w.root, 'pkg', 'node_modules', 'dep', 'index.js'), 'changed dependency\n');
  expect(await w.both()).toBe('paths');
});

it('walks when an ignore file changed, when more events came than the kernel surely kept, and when the watcher stopped', async () => {
  const w = await world({ limit: 200 });
  await w.both();
  await writeFile(path.join(w.root, 'src', '.gitignore'), 'a.ts\n');
  expect(await w.both()).toBe('walk');
  for (let i = 0; i < 300; i++) await writeFile(path.join(w.root, `f${i}.ts`), `${i}\n`);
  expect(await w.both()).toBe('walk');
  await writeFile(path.join(w.root, 'f0.ts'), 'again\n');
  expect(await w.both()).toBe('paths');
  await w.watcher.stop();
  await writeFile(path.join(w.root, 'f1.ts'), 'unseen by any watcher\n');
  expect(await w.both()).toBe('walk');
  expect(await w.both()).toBe('walk');
});

it('counts the ignored entries a change made as a walk counts them', async () => {
  const w = await world();
  const counts: [number | null, number | null][] = [];
  let [a, b] = [await w.narrow.take({ ignored: true }), await w.walk.take({ ignored: true })];
  const step = async () => {
    const [a2, b2] = [await w.narrow.take({ ignored: true }), await w.walk.take({ ignored: true })];
    expect(w.narrow.lastMode).toBe('paths');
    counts.push([WorkTreeSnapshots.ignoredChanged(a, a2), WorkTreeSnapshots.ignoredChanged(b, b2)]);
    [a, b] = [a2, b2];
  };
  await writeFile(path.join(w.root, 'new.log'), 'new ignored file\n');
  await step();
  await mkdir(path.join(w.root, 'build'));
  await writeFile(path.join(w.root, 'build', 'out.js'), 'output\n');
  await step();
  await rm(path.join(w.root, 'new.log'));
  await writeFile(path.join(w.root, 'build', 'more.js'), 'more\n');
  await step();
  expect(counts).toEqual([
    [1, 1],
    [1, 1],
    [2, 2],
  ]);
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
  | { op: 'ignore'; line: string };

const fileArb = fc.constantFrom(...FILES);
const dirArb = fc.constantFrom(...DIRS);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('write' as const), file: fileArb, n: fc.nat(3) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('delete' as const), file: fileArb }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('rename' as const), from: fileArb, to: fileArb }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('rmdir' as const), dir: dirArb }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('mvdir' as const), from: dirArb, to: dirArb }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('chmod' as const), file: fileArb }) },
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

it('after any sequence of changes, a snapshot of the changed paths is the tree a walk finds', { timeout: 600_000 }, async () => {
  const w = await world({ trackedModules: true });
  await w.both();
  const modes = { walk: 0, paths: 0, none: 0 };
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
    { numRuns: Number(process.env.LOUPE_NARROW_RUNS ?? 50), endOnFailure: true },
  );
  console.info(`narrow snapshots over ${seq} sequences: ${JSON.stringify(modes)}`);
  // Most snapshots looked at the changed paths only: the property is about those.
  expect(modes.paths + modes.none).toBeGreaterThan(modes.walk * 2);
});
