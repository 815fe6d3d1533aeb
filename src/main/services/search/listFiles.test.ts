import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { utimes } from 'node:fs/promises';
import path from 'node:path';
import { rgPath } from '@vscode/ripgrep';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, tempDir, writeTree } from '../../../../test/support/tmp';
import { listFiles, newerFirst, type Recent } from './listFiles';
import { TopK } from './topK';

let root: string;
let cleanup: () => Promise<void>;

// Read rules as the tools pass them: a denied folder and a denied kind of file.
const visible = (rel: string) => !rel.startsWith('secret/') && !rel.endsWith('.env');

/** The listing the way it was built before it streamed: every file stat'ed, all sorted, then cut. */
function reference(args: string[], limit: number) {
  const out = spawnSync(rgPath, ['--no-config', '--files', '--hidden', '--glob', '!.git', '--glob', '!.loupe', '--null', ...args], { cwd: root, encoding: 'utf8' }).stdout;
  const rows = out
    .split('\0')
    .filter(Boolean)
    .map((p) => p.replace(/^\.\//, ''))
    .filter(visible)
    .map((p) => ({ path: p, mtimeMs: statSync(path.join(root, p)).mtimeMs }));
  rows.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files: rows.slice(0, limit), total: rows.length };
}

beforeAll(async () => {
  ({ dir: root, cleanup } = await tempDir('loupe-listfiles-'));
  const files: Record<string, string> = { '.gitignore': 'ignored/\n', 'ignored/x.ts': 'x', '.loupe/state.json': '{}', '.hidden/h.ts': 'h' };
  for (let i = 0; i < 600; i++) files[`pkg${i % 12}/f${i}.${i % 4 === 0 ? 'js' : 'ts'}`] = String(i);
  for (let i = 0; i < 40; i++) files[`secret/s${i}.ts`] = 'secret';
  for (let i = 0; i < 20; i++) files[`pkg${i}/.env`] = 'KEY=1';
  await writeTree(root, files);
  git(root, 'init', '-q');
  // Many equal times, so the order between ties (by path) is exercised, and denied files among the newest.
  let k = 0;
  for (const rel of Object.keys(files)) {
    const t = 1_700_000_000 + ((k++ * 7919) % 53);
    await utimes(path.join(root, rel), t, t);
  }
});
afterAll(() => cleanup());

describe('list_files streams stats and keeps the newest', () => {
  const cases: [string, Parameters<typeof listFiles>[1], string[]][] = [
    ['every file, default limit', {}, ['--', '.']],
    ['every file, limit 1', { limit: 1 }, ['--', '.']],
    ['every file, limit 7', { limit: 7 }, ['--', '.']],
    ['every file, limit 1000 (more than there are)', { limit: 1000 }, ['--', '.']],
    ['a glob', { pattern: '*.js', limit: 30 }, ['--glob', '*.js', '--', '.']],
    ['a folder', { path: 'pkg3', limit: 20 }, ['--', 'pkg3']],
    ['a denied folder', { path: 'secret' }, ['--', 'secret']],
  ];
  for (const [name, q, args] of cases) {
    it(`${name}: the same files, order and total as stat-all-then-sort`, async () => {
      const limit = q.limit ?? 100;
      const want = reference(args, limit);
      const got = await listFiles(root, { ...q, visible });
      expect(got.total).toBe(want.total);
      expect(got.files).toEqual(want.files);
      expect(got.files.some((f) => !visible(f.path))).toBe(false);
    });
  }

  it('counts only what the read rules let it show', async () => {
    const r = await listFiles(root, { visible, limit: 1000 });
    expect(r.total).toBe(600 + 2); // the package files, .gitignore and .hidden/h.ts
    expect(r.notes).toEqual([]);
  });
});

describe('TopK', () => {
  it('keeps exactly what a full sort would keep, in the same order', () => {
    const entry = fc.record({ path: fc.string({ maxLength: 4 }), mtimeMs: fc.integer({ min: 0, max: 5 }) });
    fc.assert(
      fc.property(fc.uniqueArray(entry, { selector: (e) => e.path, maxLength: 80 }), fc.integer({ min: 1, max: 30 }), (entries: Recent[], limit) => {
        const top = new TopK(limit, newerFirst);
        for (const e of entries) top.add(e);
        expect(top.sorted()).toEqual([...entries].sort(newerFirst).slice(0, limit));
      }),
      { numRuns: 300 },
    );
  });
});
