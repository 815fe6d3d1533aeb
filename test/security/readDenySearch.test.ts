// A read rule that keeps a file away holds for every tool that returns file content or names:
// grep (every mode, every glob, every path), code_search and list_files. For each rule below, a
// generated corpus of files it covers (nested, case variants, symlinks to them) each holds a
// unique secret; files it does not cover hold a public token. No search may return a secret,
// a covered file's name, or a count that depends on one; every public file stays findable.
import { symlink } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createToolRegistry } from '../../src/main/agent/tools/registry';
import type { ToolResult } from '../../src/main/agent/tools/types';
import { attendedGate } from '../support/attendedGate';
import { harness, type Harness } from '../support/toolHarness';

interface Case {
  rule: { pattern: string; action: 'deny' | 'ask' };
  /** Generators of paths the rule covers. */
  covered: fc.Arbitrary<string>;
  /** Paths it does not cover. */
  open: string[];
  /** Globs a model would try to reach the covered files with. */
  globs: string[];
}

const dirs = fc.constantFrom('', 'sub/', 'a/b/', 'Deep/er/', 'x.y/', 'app/config/');
const cased = (name: string) =>
  fc.array(fc.boolean(), { minLength: name.length, maxLength: name.length }).map((up) => [...name].map((c, i) => (up[i] ? c.toUpperCase() : c)).join(''));
const under = (names: fc.Arbitrary<string>) => fc.tuple(dirs, names).map(([d, n]) => d + n);

const CASES: Case[] = [
  { rule: { pattern: '.env', action: 'deny' }, covered: under(cased('.env')), open: ['.env.example', 'env.txt', 'sub/x.env'], globs: ['.env*', '**/.env', '*', '**/*', '.[eE]nv', '{.env,x}'] },
  {
    rule: { pattern: '**/.env*', action: 'deny' },
    covered: under(fc.tuple(cased('.env'), fc.constantFrom('', '.local', '.production', '.Local.bak')).map(([a, b]) => a + b)),
    open: ['env', 'x.env', 'sub/not.env.txt'],
    globs: ['.env*', '**/.env*', '*env*', '**'],
  },
  { rule: { pattern: 'secrets/**', action: 'deny' }, covered: fc.tuple(cased('secrets'), fc.constantFrom('/a.txt', '/deep/b.json', '/.hidden')).map(([a, b]) => a + b), open: ['notsecrets/a.txt', 'secrets.md'], globs: ['secrets/**', '**/secrets/*', '*/*'] },
  { rule: { pattern: 'secrets', action: 'deny' }, covered: under(fc.tuple(cased('secrets'), fc.constantFrom('/a.txt', '/x/y.txt')).map(([a, b]) => a + b)), open: ['secrets.md', 'sub/secretsx/a.txt'], globs: ['**/secrets/**', '*'] },
  { rule: { pattern: '*.pem', action: 'deny' }, covered: under(fc.tuple(fc.constantFrom('key', 'id_rsa', 'a.b'), cased('.pem')).map(([a, b]) => a + b)), open: ['pem.txt', 'key.pem.txt'], globs: ['*.pem', '**/*.pem', '*.[pP][eE][mM]'] },
  { rule: { pattern: 'private/**', action: 'ask' }, covered: fc.tuple(cased('private'), fc.constantFrom('/a.txt', '/b/c.md')).map(([a, b]) => a + b), open: ['privateer/a.txt', 'public/private.txt'], globs: ['private/**', '**'] },
];

const tools = createToolRegistry();
let h: Harness;
afterEach(() => h?.cleanup());

/** Every path and line of text a search result carries, in its output and its data. */
function exposed(r: ToolResult): string {
  return `${r.output}\n${JSON.stringify(r.data ?? {})}\n${JSON.stringify(r.error ?? {})}`;
}

function pathsIn(r: ToolResult): string[] {
  const d = (r.data ?? {}) as Record<string, unknown>;
  const out: string[] = [];
  for (const key of ['files', 'lines', 'counts', 'matches']) {
    for (const item of (d[key] as unknown[] | undefined) ?? []) out.push(typeof item === 'string' ? item : (item as { path: string }).path);
  }
  return out;
}

describe.each(CASES.map((c, i) => [`${c.rule.action} read "${c.rule.pattern}"`, c, i] as const))('%s', (_name, c, seed) => {
  it('keeps every covered file out of grep, code_search and list_files', async () => {
    h = await harness();
    const covered = [...new Set(fc.sample(c.covered, { numRuns: 12, seed }))];
    const secrets = new Map<string, string>();
    for (const [i, rel] of covered.entries()) {
      const token = `SECRET_${seed}_${i}_${rel.length}x`;
      secrets.set(rel, token);
      await h.write(rel, `KEY=${token}\nshared line TOKEN\n`);
    }
    for (const [i, rel] of c.open.entries()) await h.write(rel, `VALUE=PUBLIC_${i}\nshared line TOKEN\n`);
    // Links to a covered file and folder: searching through them reaches the same content.
    await symlink(path.join(h.root, covered[0]), path.join(h.root, 'link-to-covered'));
    await symlink(path.join(h.root, path.dirname(covered[0])), path.join(h.root, 'link-to-dir'));
    await h.write('.loupe/config.json', JSON.stringify({ permissions: [{ kind: 'read', ...c.rule }] }));

    const calls: [string, Record<string, unknown>][] = [];
    for (const mode of ['content', 'files_with_matches', 'count']) {
      calls.push(['grep', { pattern: 'SECRET|PUBLIC|TOKEN', output_mode: mode, '-C': 2 }]);
      calls.push(['grep', { pattern: 'KEY', output_mode: mode, case_insensitive: true, multiline: true }]);
      for (const glob of c.globs) calls.push(['grep', { pattern: '.', glob, output_mode: mode }]);
      for (const rel of [...covered, 'link-to-covered', 'link-to-dir']) calls.push(['grep', { pattern: '.', path: rel, output_mode: mode }]);
      for (const rel of covered) calls.push(['grep', { pattern: '.', path: path.dirname(rel) === '.' ? undefined : path.dirname(rel), output_mode: mode }]);
    }
    calls.push(['code_search', { pattern: 'SECRET|KEY|TOKEN' }]);
    for (const rel of covered) calls.push(['code_search', { pattern: 'KEY', path: rel }]);
    for (const rel of covered) calls.push(['read_file', { path: rel }]);
    calls.push(['read_file', { path: 'link-to-covered' }]);
    calls.push(['list_files', {}]);
    for (const glob of c.globs) calls.push(['list_files', { pattern: glob }]);
    for (const rel of covered) calls.push(['list_files', { pattern: path.basename(rel) }], ['list_files', { pattern: `**/${path.basename(rel)}` }]);

    for (const [tool, args] of calls) {
      const r = await h.call(tool, args);
      const where = `${tool} ${JSON.stringify(args)}`;
      if (tool === 'read_file') expect(r.error?.code, where).toBe('PERMISSION_DENIED');
      if (!r.ok) {
        expect(r.error?.code, where).toBe('PERMISSION_DENIED');
        continue;
      }
      const text = exposed(r);
      for (const token of secrets.values()) expect(text, where).not.toContain(token);
      for (const p of pathsIn(r)) expect(covered.includes(p) || p.startsWith('link-to-'), `${where} returned ${p}`).toBe(false);
      // Counts may not depend on covered files: every TOKEN line counted is a public one.
      if (tool === 'grep' && args.output_mode === 'count' && args.pattern === 'SECRET|PUBLIC|TOKEN') {
        expect(r.data).toMatchObject({ totalCount: c.open.length * 2, total: c.open.length });
      }
    }

    // Everything the rule does not cover is still found.
    const all = await h.call('grep', { pattern: 'PUBLIC', output_mode: 'files_with_matches' });
    expect((all.data as { files: string[] }).files.sort()).toEqual([...c.open].sort());
    const listed = await h.call('list_files', {});
    for (const rel of c.open) expect(listed.output).toContain(rel);
    expect(listed.output).toContain('Read rules deny or hold for approval');
  });
});

it('a search with no read limits carries no note', async () => {
  h = await harness();
  await h.write('a.txt', 'x\n');
  expect((await h.call('grep', { pattern: 'x' })).output).not.toContain('Read rules');
});

it('a person who approves searching a folder held for approval sees it; denied files stay hidden', async () => {
  h = await harness();
  await h.write('private/a.txt', 'TOKEN private\n');
  await h.write('private/.env', 'TOKEN SECRET_inside\n');
  await h.write('public.txt', 'TOKEN public\n');
  await h.write('.loupe/config.json', JSON.stringify({ permissions: [{ kind: 'read', pattern: 'private/**', action: 'ask' }, { kind: 'read', pattern: '.env', action: 'deny' }] }));
  const asked: string[] = [];
  const ctx = { ...h.ctx, permissions: attendedGate(h.root, 'once', asked) };
  const inFolder = await tools.call('grep', { pattern: 'TOKEN', path: 'private', output_mode: 'files_with_matches' }, ctx);
  expect(inFolder.data).toMatchObject({ files: ['private/a.txt'] });
  expect(asked).toEqual(['search private for TOKEN']);
  // Searching the whole workspace was not approved for private/: it stays out.
  const everywhere = await tools.call('grep', { pattern: 'TOKEN', output_mode: 'files_with_matches' }, ctx);
  expect(everywhere.data).toMatchObject({ files: ['public.txt'] });
  expect(JSON.stringify([inFolder, everywhere])).not.toContain('SECRET_inside');
});
