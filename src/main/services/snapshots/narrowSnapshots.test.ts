// Snapshots that look only at what the watcher saw change (docs/architecture.md, "What a command
// wrote") give the tree a full walk gives, and walk whenever the journal cannot promise that.
import { chmod, mkdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { narrowWorld } from '../../../../test/support/narrowWorld';
import { git } from '../../../../test/support/tmp';
import { WorkTreeSnapshots } from './workTreeSnapshots';

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const f of open.splice(0).reverse()) await f();
});
const world = (opts?: Parameters<typeof narrowWorld>[1]) => narrowWorld(open, opts);

it('after a first walk, a change is hashed here alone and no change runs no git', async () => {
  const w = await world();
  expect(await w.both()).toBe('walk');
  expect(await w.both()).toBe('none');
  await writeFile(path.join(w.root, 'src', 'a.ts'), 'changed\n');
  expect(await w.both()).toBe('hashed');
  await rm(path.join(w.root, 'src', 'deep'), { recursive: true });
  expect(await w.both()).toBe('hashed');
  await mkdir(path.join(w.root, 'new', 'x'), { recursive: true });
  await writeFile(path.join(w.root, 'new', 'x', 'f.ts'), 'f\n');
  await writeFile(path.join(w.root, 'build.log'), 'ignored\n');
  expect(await w.both()).toBe('hashed');
  await rename(path.join(w.root, 'new'), path.join(w.root, 'moved'));
  await chmod(path.join(w.root, 'src', 'a.ts'), 0o755);
  await symlink('src/a.ts', path.join(w.root, 'link'));
  expect(await w.both()).toBe('hashed');
  expect(await w.both()).toBe('none');
});

it('what git must decide (a nested repository) goes to git, told also what was hashed here since', async () => {
  const w = await world();
  await w.both();
  await writeFile(path.join(w.root, 'src', 'a.ts'), 'hashed here\n');
  await rm(path.join(w.root, 'src', 'deep', 'b.ts'));
  expect(await w.both()).toBe('hashed');
  // The private index is behind on those two files now; a path git must see brings it up.
  await mkdir(path.join(w.root, 'vendor', 'lib'), { recursive: true });
  git(path.join(w.root, 'vendor', 'lib'), 'init', '-q');
  await writeFile(path.join(w.root, 'vendor', 'lib', 'x.ts'), 'x\n');
  git(path.join(w.root, 'vendor', 'lib'), 'add', '-A');
  git(path.join(w.root, 'vendor', 'lib'), 'commit', '-qm', 'nested');
  await writeFile(path.join(w.root, 'src', 'deep', 'b.ts'), 'back, with other bytes\n');
  expect(await w.both()).toBe('paths');
  await writeFile(path.join(w.root, 'src', 'a.ts'), 'and again\n');
  await rm(path.join(w.root, 'src', 'deep', 'b.ts'));
  expect(await w.both()).toBe('hashed');
  // A walk after snapshots made here: the index is brought up first as well, or the file that
  // went would still be tracked there and kept although the rules now ignore it.
  await writeFile(path.join(w.root, '.gitignore'), 'build/\n*.log\n/node_modules/\nsrc/deep/\n');
  await writeFile(path.join(w.root, 'src', 'deep', 'b.ts'), 'ignored now\n');
  expect(await w.both()).toBe('walk');
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
  expect(await w.both()).toBe('hashed');
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
    expect(w.narrow.lastMode).toBe('hashed');
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
