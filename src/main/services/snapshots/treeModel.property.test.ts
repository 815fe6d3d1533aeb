// The trees made in this process are the trees git makes: after generated sets of files and
// generated changes (files made, changed, removed, turned into folders and back; names that sort
// differently with and without a trailing `/`), the top tree's id equals `git write-tree` of an
// index holding the same entries, and the reported changes are exactly the entries that differ.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tempDir } from '../../../../test/support/tmp';
import { objectId } from './gitObjects';
import { TreeModel, type TreeEntry } from './treeModel';

let dir: string;
let cleanup: () => Promise<void>;
let indexes = 0;
beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('loupe-tree-model-'));
  execFileSync('git', ['init', '-q', '--bare', path.join(dir, 'git')]);
});
afterAll(() => cleanup());

const NAMES = ['a', 'a.b', 'a-b', 'a0', 'b', 'ü', 'a b'];
const pathArb = fc.array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 3 }).map((p) => p.join('/'));
const entryArb: fc.Arbitrary<TreeEntry> = fc.record({
  mode: fc.constantFrom('100644', '100755', '120000'),
  oid: fc.nat(50).map((n) => objectId('blob', Buffer.from(String(n)))),
});

/** Files only: a path below another file's path drops that file (as on disk, a name is a file or a folder). */
function settle(files: Map<string, TreeEntry>, p: string, e: TreeEntry | null): void {
  for (const k of [...files.keys()]) if (k === p || k.startsWith(`${p}/`) || p.startsWith(`${k}/`)) files.delete(k);
  if (e) files.set(p, e);
}

function gitTree(files: Map<string, TreeEntry>): { tree: string; listing: Buffer } {
  const env = { ...process.env, GIT_DIR: path.join(dir, 'git'), GIT_INDEX_FILE: path.join(dir, `index-${++indexes}`) };
  const rows = [...files].map(([p, e]) => `${e.mode} ${e.oid}\t${p}\0`).join('');
  execFileSync('git', ['update-index', '-z', '--index-info'], { env, input: rows });
  const tree = execFileSync('git', ['write-tree', '--missing-ok'], { env, encoding: 'utf8' }).trim();
  // Writing the trees stores them: ls-tree can list what it made.
  const listing = execFileSync('git', ['ls-tree', '-r', '-t', '-z', '--full-tree', tree], { env });
  return { tree, listing };
}

it('makes the trees git makes, and says what changed', { timeout: 300_000 }, () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(pathArb, entryArb)), fc.array(fc.tuple(pathArb, fc.option(entryArb, { freq: 3 })), { minLength: 1, maxLength: 6 }), (start, edits) => {
      const files = new Map<string, TreeEntry>();
      for (const [p, e] of start) settle(files, p, e);
      const first = gitTree(files);
      const model = TreeModel.parse(first.listing, first.tree)!;
      const before = new Map(files);
      const changes = new Map<string, TreeEntry | null>();
      for (const [p, e] of edits) {
        settle(files, p, e);
        // What pathSnapshot hands over: each path's state now, and every file that went, by name.
        for (const k of [...changes.keys()]) if (k.startsWith(`${p}/`) || p.startsWith(`${k}/`)) changes.delete(k);
        changes.set(p, e);
      }
      for (const k of before.keys()) if (!files.has(k) && !changes.has(k)) changes.set(k, null);
      const { tree, delta } = model.update(changes);
      expect(tree).toBe(gitTree(files).tree);
      const expected = new Map<string, [TreeEntry | null, TreeEntry | null]>();
      for (const k of new Set([...before.keys(), ...files.keys()])) {
        const [x, y] = [before.get(k) ?? null, files.get(k) ?? null];
        if (x?.mode !== y?.mode || x?.oid !== y?.oid) expected.set(k, [x, y]);
      }
      const sorted = (m: Map<string, unknown>) => [...m].sort(([a], [b]) => (a < b ? -1 : 1));
      expect(sorted(delta)).toEqual(sorted(expected));
    }),
    { numRuns: 80 },
  );
});
