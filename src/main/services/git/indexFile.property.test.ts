// The in-process index reader gives, for every path asked, what `git ls-files -s` prints at
// stage 0, over generated indexes: versions 2, 3 and 4, nested and unicode names, names longer
// than the 12-bit length field, links, submodule entries, executables and conflicts; or it says
// it cannot (null) and git is asked. Some indexes must be read, or the property proves nothing.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { git, tempDir } from '../../../../test/support/tmp';
import { readIndexEntries } from './indexFile';

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => ({ dir, cleanup } = await tempDir('loupe-indexfile-')));
afterAll(() => cleanup());

const segment = fc.constantFrom('src', 'a', 'b.ts', 'ünï', 'sp ace', 'x-1', 'deep', 'Z', 'a.b', 'é.txt', 'node_modules', '.hidden');
const name = fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => s.join('/'));
const kind = fc.constantFrom('100644', '100755', '120000', '160000');
const EMPTY_TREE_COMMIT = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

/** ls-files -s at stage 0, as path → "mode oid". */
function lsFiles(repo: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const rec of execFileSync('git', ['ls-files', '-s', '-z'], { cwd: repo, encoding: 'utf8' }).split('\0')) {
    const m = /^(\d{6}) ([0-9a-f]{40}) (\d)\t(.*)$/s.exec(rec);
    if (m && m[3] === '0') out.set(m[4], `${m[1]} ${m[2]}`);
  }
  return out;
}

it('answers as git ls-files -s does, or not at all', { timeout: 300_000 }, async () => {
  let n = 0;
  let read = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.uniqueArray(fc.tuple(name, kind, fc.nat(3)), { minLength: 1, maxLength: 12, selector: ([p]) => p }),
      fc.constantFrom(2, 3, 4),
      fc.boolean(),
      fc.boolean(),
      fc.boolean(),
      async (entries, version, long, conflict, special) => {
        const repo = path.join(dir, `r${n++}`);
        git(dir, 'init', '-q', repo);
        const blob = (s: string) => execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: repo, input: s, encoding: 'utf8' }).trim();
        // A path is not also a folder of another: git refuses such an index.
        const paths = entries.map(([p]) => p).filter((p, _, all) => !all.some((q) => q.startsWith(`${p}/`)));
        const info: string[] = [];
        for (const [p, mode, v] of entries) {
          if (!paths.includes(p)) continue;
          info.push(`${mode} ${mode === '160000' ? EMPTY_TREE_COMMIT : blob(`${p} ${v}`)}\t${p}`);
        }
        // Longer than the 12-bit length field of a version 2 or 3 entry (no such file is needed).
        if (long) info.push(`100644 ${blob('long')}\t${'d'.repeat(200)}/${'n'.repeat(4000)}.txt`);
        execFileSync('git', ['update-index', '--index-info'], { cwd: repo, input: info.join('\n') + '\n' });
        if (conflict) {
          const c = paths[0];
          execFileSync('git', ['update-index', '--index-info'], { cwd: repo, input: `0 ${'0'.repeat(40)}\t${c}\n100644 ${blob('base')} 1\t${c}\n100644 ${blob('ours')} 2\t${c}\n100644 ${blob('theirs')} 3\t${c}\n` });
        }
        if (special && !conflict) git(repo, 'update-index', '--skip-worktree', '--', paths[paths.length - 1]);
        git(repo, 'update-index', '--index-version', String(version));
        const want = lsFiles(repo);
        const ask = new Set([...paths, ...(long ? [`${'d'.repeat(200)}/${'n'.repeat(4000)}.txt`] : []), 'absent.txt', 'src/absent']);
        const got = readIndexEntries(readFileSync(path.join(repo, '.git', 'index')), ask);
        if (special && !conflict) {
          expect(got, 'a skip-worktree entry is left to git').toBeNull();
          return;
        }
        expect(got, `version ${version}`).not.toBeNull();
        read++;
        const asMap = new Map([...got!].map(([k, e]) => [k, `${e.mode} ${e.oid}`]));
        expect(asMap).toEqual(new Map([...want].filter(([k]) => ask.has(k))));
      },
    ),
    { numRuns: Number(process.env.LOUPE_INDEXFILE_RUNS ?? 60) },
  );
  expect(read).toBeGreaterThan(10);
});

it('a split index, a damaged file and another format are left to git', async () => {
  const repo = path.join(dir, 'split');
  git(dir, 'init', '-q', repo);
  execFileSync('git', ['update-index', '--add', '--cacheinfo', `100644,${'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391'},a.txt`], { cwd: repo });
  const whole = readFileSync(path.join(repo, '.git', 'index'));
  expect(readIndexEntries(whole, new Set(['a.txt']))?.get('a.txt')).toEqual({ mode: '100644', oid: 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391' });
  expect(readIndexEntries(whole.subarray(0, whole.length - 30), new Set(['a.txt']))).toBeNull();
  expect(readIndexEntries(Buffer.from('not an index at all, but long enough'), new Set(['a.txt']))).toBeNull();
  git(repo, 'update-index', '--split-index');
  expect(readIndexEntries(readFileSync(path.join(repo, '.git', 'index')), new Set(['a.txt']))).toBeNull();
});
