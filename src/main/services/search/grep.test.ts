import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { rgPath } from '@vscode/ripgrep';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, writeTree } from '../../../../test/support/tmp';
import { grep, type GrepResult } from './grep';
import { formatGrep } from './grepFormat';

let root: string;
let cleanup: () => Promise<void>;

/** rg exactly as a person would run it for the same question (the scope grep uses). */
function rawRg(args: string[], env: NodeJS.ProcessEnv = process.env): string {
  const r = spawnSync(rgPath, ['--hidden', '--glob', '!.git', '--glob', '!.loupe', ...args], { cwd: root, env, encoding: 'utf8' });
  return r.stdout;
}

beforeAll(async () => {
  ({ dir: root, cleanup } = await tempDir('loupe-grep-'));
  const files: Record<string, string> = {};
  // A generated tree: 40 folders, 400 files, a deterministic spread of hits.
  for (let i = 0; i < 400; i++) {
    const lines = [`// file ${i}`];
    for (let j = 0; j < i % 7; j++) lines.push(`const needle${j} = ${i * j}; // needle`);
    if (i % 11 === 0) lines.push('function Needle() {}');
    files[`pkg${i % 40}/mod${i}.${i % 3 === 0 ? 'py' : 'ts'}`] = lines.join('\n') + '\n';
  }
  Object.assign(files, {
    '.gitignore': 'ignored/\n',
    'ignored/skip.ts': 'needle in ignored\n',
    '.hidden/h.ts': 'needle hidden\n',
    '.loupe/state.json': 'needle in loupe state\n',
    'dash.txt': 'use --files here\nand -e too\n--pre=sh\n',
    'ctx.txt': 'one\ntwo\nthree TARGET\nfour\nfive\nsix\nseven\neight TARGET\nnine\n',
    'multi.txt': 'begin\nmiddle\nend\n',
  });
  await writeTree(root, files);
  await writeFile(path.join(root, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0x0a]));
  execFileSync('git', ['init', '-q'], { cwd: root });
});
afterAll(() => cleanup());

const files = (r: GrepResult) => (r.mode === 'files_with_matches' ? r.files : []);

describe('grep matches raw rg', () => {
  it('files_with_matches: exactly the files rg -l lists', async () => {
    const expected = rawRg(['-l', '--regexp', 'needle[0-9]', '--', '.'])
      .trim()
      .split('\n')
      .map((p) => p.replace(/^\.\//, ''))
      .sort();
    expect(expected.length).toBeGreaterThan(200);
    const r = await grep(root, { pattern: 'needle[0-9]', outputMode: 'files_with_matches', headLimit: 1000 });
    expect([...files(r)].sort()).toEqual(expected);
    expect(r.total).toBe(expected.length);
  });

  it('count: exactly the per-file counts rg -c prints', async () => {
    const expected = Object.fromEntries(
      rawRg(['-c', '--regexp', 'needle', '--', '.'])
        .trim()
        .split('\n')
        .map((l) => {
          const i = l.lastIndexOf(':');
          return [l.slice(0, i).replace(/^\.\//, ''), Number(l.slice(i + 1))];
        }),
    );
    const r = await grep(root, { pattern: 'needle', outputMode: 'count', headLimit: 1000 });
    if (r.mode !== 'count') throw new Error('mode');
    expect(Object.fromEntries(r.counts.map((c) => [c.path, c.count]))).toEqual(expected);
    expect(r.totalCount).toBe(Object.values(expected).reduce((a, b) => a + b, 0));
    // .gitignore'd and Loupe's own state are out; hidden files are in.
    expect(expected['ignored/skip.ts']).toBeUndefined();
    expect(expected['.loupe/state.json']).toBeUndefined();
    expect(expected['.hidden/h.ts']).toBe(1);
  });

  it('content: every matching line rg -n prints, paged 100 at a time with a note', async () => {
    const expected = rawRg(['-n', '--no-heading', '--with-filename', '--regexp', 'const needle', '--', '.']).trim().split('\n').length;
    const first = await grep(root, { pattern: 'const needle', outputMode: 'content' });
    if (first.mode !== 'content') throw new Error('mode');
    expect(first.total).toBe(expected);
    expect(first.lines).toHaveLength(100);
    const text = formatGrep(first);
    expect(text).toMatch(/^pkg\d+\/mod\d+\.(ts|py):\d+: const needle\d = \d+; \/\/ needle$/m);
    expect(text).toContain(`Showing matches 1-100 of ${expected}; ${expected - 100} more: call again with offset=100.`);
    const seen = new Set<string>();
    for (let offset = 0; offset < expected; offset += 250) {
      const page = await grep(root, { pattern: 'const needle', headLimit: 250, offset });
      if (page.mode !== 'content') throw new Error('mode');
      for (const l of page.lines) seen.add(`${l.path}:${l.line}`);
    }
    expect(seen.size).toBe(expected);
  });
});

describe('files and counts are paged from a bounded heap', () => {
  // Read rules as the tools pass them: a denied folder and a denied kind of file.
  const visible = (rel: string) => !rel.startsWith('pkg3/') && !rel.endsWith('.py');
  /** The way the pages were built before: everything rg -c prints, filtered, sorted, then cut. */
  const reference = () =>
    rawRg(['-c', '--null', '--regexp', 'needle', '--', '.'])
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const i = l.lastIndexOf('\0');
        return { path: l.slice(0, i).replace(/^\.\//, ''), count: Number(l.slice(i + 1)) };
      })
      .filter((c) => visible(c.path))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

  for (const [offset, headLimit] of [[0, 1], [0, 100], [7, 13], [150, 100], [0, 1000], [5000, 10]]) {
    it(`offset ${offset}, head_limit ${headLimit}: the same page and totals as sort-everything`, async () => {
      const all = reference();
      expect(all.length).toBeGreaterThan(150);
      const counts = await grep(root, { pattern: 'needle', outputMode: 'count', headLimit, offset, visible });
      if (counts.mode !== 'count') throw new Error('mode');
      expect(counts.counts).toEqual(all.slice(offset, offset + headLimit));
      expect(counts.total).toBe(all.length);
      expect(counts.totalCount).toBe(all.reduce((n, c) => n + c.count, 0));
      const listed = await grep(root, { pattern: 'needle', outputMode: 'files_with_matches', headLimit, offset, visible });
      expect(files(listed)).toEqual(all.slice(offset, offset + headLimit).map((c) => c.path));
      expect(listed.total).toBe(all.length);
    });
  }
});

describe('past the retained matches', () => {
  it('counts every visible match and none of a denied file, as before the cap', async () => {
    const { dir, cleanup: done } = await tempDir('loupe-grepcap-');
    try {
      const lines = (n: number) => Array.from({ length: n }, (_, i) => `hit ${i}`).join('\n') + '\n';
      await writeTree(dir, { 'a.txt': lines(9000), 'b "q".txt': lines(9000), 'c.txt': lines(9000), 'denied/d.txt': lines(9000) });
      const visible = (rel: string) => !rel.startsWith('denied/');
      const r = await grep(dir, { pattern: 'hit', visible });
      expect(r.total).toBe(27_000);
      expect(r.notes.join(' ')).toContain('Only the first 20000 matches were ordered');
      const all = await grep(dir, { pattern: 'hit' });
      expect(all.total).toBe(36_000);
    } finally {
      await done();
    }
  });
});

describe('grep cannot be steered by its inputs', () => {
  it('ignores a hostile RIPGREP_CONFIG_PATH (which really would run --pre)', async () => {
    const { dir, cleanup: done } = await tempDir('loupe-rgconf-');
    try {
      const marker = path.join(dir, 'pwned');
      const pre = path.join(dir, 'pre.sh');
      await writeFile(pre, `#!/bin/sh\ntouch ${marker}\ncat "$1"\n`);
      await chmod(pre, 0o755);
      const conf = path.join(dir, 'rgrc');
      await writeFile(conf, `--pre=${pre}\n`);
      const env = { ...process.env, RIPGREP_CONFIG_PATH: conf };
      // Control: the config is live for a plain rg.
      rawRg(['needle', 'ctx.txt'], env);
      expect(existsSync(marker)).toBe(true);
      execFileSync('rm', [marker]);

      const saved = process.env.RIPGREP_CONFIG_PATH;
      process.env.RIPGREP_CONFIG_PATH = conf;
      try {
        const r = await grep(root, { pattern: 'TARGET', outputMode: 'files_with_matches' });
        expect(files(r)).toEqual(['ctx.txt']);
      } finally {
        if (saved === undefined) delete process.env.RIPGREP_CONFIG_PATH;
        else process.env.RIPGREP_CONFIG_PATH = saved;
      }
      expect(existsSync(marker)).toBe(false);
    } finally {
      await done();
    }
  });

  it.each(['--files', '-e', '--pre=sh'])('searches for %s instead of obeying it', async (pattern) => {
    const r = await grep(root, { pattern, outputMode: 'files_with_matches' });
    expect(files(r)).toEqual(['dash.txt']);
  });
});

describe('grep options', () => {
  it('shows -C context as file-line- and separates groups', async () => {
    const r = await grep(root, { pattern: 'TARGET', path: 'ctx.txt', context: 1 });
    expect(formatGrep(r)).toBe(['ctx.txt-2- two', 'ctx.txt:3: three TARGET', 'ctx.txt-4- four', '--', 'ctx.txt-7- seven', 'ctx.txt:8: eight TARGET', 'ctx.txt-9- nine'].join('\n'));
  });

  it('pages with context: only the page\u2019s windows are shown', async () => {
    const r = await grep(root, { pattern: 'TARGET', path: 'ctx.txt', before: 2, headLimit: 1, offset: 1 });
    expect(formatGrep(r).split('\n').slice(0, 3)).toEqual(['ctx.txt-6- six', 'ctx.txt-7- seven', 'ctx.txt:8: eight TARGET']);
  });

  it('multiline, case-insensitive, glob and type filters', async () => {
    const multi = await grep(root, { pattern: 'begin\\nmiddle', multiline: true });
    expect(formatGrep(multi)).toBe('multi.txt:1: begin\nmulti.txt:2: middle');
    const ci = await grep(root, { pattern: 'function needle', caseInsensitive: true, outputMode: 'count', headLimit: 1000 });
    expect(ci.total).toBe(Math.ceil(400 / 11));
    const py = await grep(root, { pattern: 'needle', type: 'py', outputMode: 'files_with_matches', headLimit: 1000 });
    expect(files(py).every((f) => f.endsWith('.py'))).toBe(true);
    const glob = await grep(root, { pattern: 'needle', glob: 'pkg1/*.ts', outputMode: 'files_with_matches' });
    expect(files(glob).length).toBeGreaterThan(0);
    expect(files(glob).every((f) => f.startsWith('pkg1/') && f.endsWith('.ts'))).toBe(true);
  });

  it('decodes lines that are not UTF-8 (rg sends them as bytes)', async () => {
    const r = await grep(root, { pattern: 'needle', path: 'latin1.txt' });
    expect(formatGrep(r)).toBe('latin1.txt:1: caf\uFFFD needle');
  });

  it('says so when nothing matches', async () => {
    const r = await grep(root, { pattern: 'no-such-text-anywhere' });
    expect(r.total).toBe(0);
    expect(formatGrep(r)).toBe('No matches found.');
  });

  it('refuses a bad regex, an unknown type and a path outside the workspace with error codes', async () => {
    await expect(grep(root, { pattern: 'a(' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(grep(root, { pattern: 'a', type: 'nosuchtype' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(grep(root, { pattern: 'a', path: '../' })).rejects.toMatchObject({ code: 'PATH_OUTSIDE_WORKSPACE' });
    await expect(grep(root, { pattern: 'a', path: 'nope/' })).rejects.toMatchObject({ code: 'FILE_NOT_FOUND' });
  });

  it('is bounded in time: a search that cannot finish stops with TIMEOUT', async () => {
    const fifo = path.join(root, 'blocked.fifo');
    execFileSync('mkfifo', [fifo]);
    const t0 = Date.now();
    await expect(grep(root, { pattern: 'x', path: 'blocked.fifo', timeoutMs: 300 })).rejects.toMatchObject({ code: 'TIMEOUT' });
    expect(Date.now() - t0).toBeLessThan(3000);
  });

  it('stops when aborted', async () => {
    const ac = new AbortController();
    const p = grep(root, { pattern: 'x', path: 'blocked.fifo', signal: ac.signal });
    setTimeout(() => ac.abort(), 100);
    await expect(p).rejects.toMatchObject({ code: 'ABORTED' });
  });
});
