import { execFileSync } from 'node:child_process';
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir, writeTree } from '../../../../test/support/tmp';
import { findInstructions, foldersOf, relativeInside } from './instructionFiles';

let tmp: { dir: string; cleanup: () => Promise<void> };
let root: string;
let outside: string;
beforeEach(async () => {
  tmp = await tempDir('loupe-instr-');
  root = path.join(tmp.dir, 'ws');
  outside = path.join(tmp.dir, 'outside');
  await mkdir(root);
  await mkdir(outside);
  await writeFile(path.join(outside, 'secret.md'), 'OUTSIDE-SECRET\n');
});
afterEach(() => tmp.cleanup());

const find = (touched: string[] = [], extra: Partial<Parameters<typeof findInstructions>[0]> = {}) => findInstructions({ root, personalDir: null, touched, ...extra });
const paths = (r: Awaited<ReturnType<typeof find>>) => r.files.map((f) => f.path);

describe('instruction files', () => {
  it('finds every form at the root, in order, with when each applies', async () => {
    await writeTree(root, {
      'AGENTS.md': 'agents\n',
      'CLAUDE.md': 'claude\n',
      '.github/copilot-instructions.md': 'copilot\n',
      '.cursorrules': 'legacy cursor\n',
      '.cursor/rules/always.mdc': '---\nalwaysApply: true\n---\nalways rule\n',
      '.cursor/rules/ts.mdc': '---\nglobs: "*.ts"\n---\nts rule\n',
      '.cursor/rules/db.mdc': '---\ndescription: Database conventions\n---\ndb body\n',
      '.cursor/rules/manual.mdc': '---\ndescription:\nglobs:\n---\nonly when named\n',
      '.cursor/rules/sub/deep.mdc': '---\nalwaysApply: true\n---\ndeep rule\n',
    });
    const r = await find();
    expect(r.skipped).toEqual([]);
    expect(r.files.map((f) => [f.path, f.kind, f.applies.when, f.text.trim()])).toEqual([
      ['AGENTS.md', 'AGENTS.md', 'always', 'agents'],
      ['CLAUDE.md', 'CLAUDE.md', 'always', 'claude'],
      ['.github/copilot-instructions.md', 'copilot-instructions', 'always', 'copilot'],
      ['.cursorrules', '.cursorrules', 'always', 'legacy cursor'],
      ['.cursor/rules/always.mdc', 'cursor-rule', 'always', 'always rule'],
      ['.cursor/rules/db.mdc', 'cursor-rule', 'on_request', ''],
      ['.cursor/rules/sub/deep.mdc', 'cursor-rule', 'always', 'deep rule'],
    ]);
    // A glob rule applies once a matching file is worked on, at any depth for a slash-less glob.
    const withTs = await find(['src/app/main.ts']);
    expect(withTs.files.find((f) => f.path === '.cursor/rules/ts.mdc')).toMatchObject({ applies: { when: 'globs', globs: ['*.ts'] }, text: 'ts rule\n' });
  });

  it('a folder’s AGENTS.md and CLAUDE.md apply only for work in that folder, shallow first', async () => {
    await writeTree(root, {
      'packages/api/AGENTS.md': 'api agents\n',
      'packages/api/CLAUDE.md': 'api claude\n',
      'packages/api/src/AGENTS.md': 'api src\n',
      'packages/web/AGENTS.md': 'web\n',
      'packages/api/src/server.ts': 'x\n',
      'node_modules/dep/AGENTS.md': 'a dependency’s own\n',
    });
    expect(paths(await find())).toEqual([]);
    expect(paths(await find(['packages/api/src/server.ts']))).toEqual(['packages/api/AGENTS.md', 'packages/api/CLAUDE.md', 'packages/api/src/AGENTS.md']);
    // A folder named as a path (a search or a listing there) counts; absolute paths inside do too.
    expect(paths(await find([path.join(root, 'packages/web')]))).toEqual(['packages/web/AGENTS.md']);
    // Outside the workspace or in a dependency: nothing.
    expect(paths(await find(['../outside/x', '/etc/passwd', 'node_modules/dep/index.js']))).toEqual([]);
  });

  it('the person’s own AGENTS.md comes first, and a link there is theirs to follow', async () => {
    const home = path.join(tmp.dir, 'home');
    await writeTree(home, { 'dotfiles/agents.md': 'personal\n' });
    await symlink(path.join(home, 'dotfiles/agents.md'), path.join(home, 'AGENTS.md'));
    await writeTree(root, { 'AGENTS.md': 'project\n' });
    const r = await find([], { personalDir: home });
    expect(r.files.map((f) => [f.path, f.kind])).toEqual([
      [path.join(home, 'AGENTS.md'), 'personal'],
      ['AGENTS.md', 'AGENTS.md'],
    ]);
  });

  it('a link inside the workspace is read at its target, once', async () => {
    await writeTree(root, { 'AGENTS.md': 'shared rules\n', 'docs/copy.md': 'shared rules\n' });
    await symlink('AGENTS.md', path.join(root, 'CLAUDE.md'));
    await symlink('docs/copy.md', path.join(root, '.cursorrules'));
    const r = await find();
    expect(paths(r)).toEqual(['AGENTS.md']);
    expect(r.skipped).toEqual([
      { path: 'CLAUDE.md', reason: 'the same as AGENTS.md, included once' },
      { path: '.cursorrules', reason: 'the same as AGENTS.md, included once' },
    ]);
  });

  it('a FIFO is skipped with a notice, never waited on', async () => {
    execFileSync('mkfifo', [path.join(root, 'AGENTS.md')]);
    await mkdir(path.join(root, 'pkg'));
    execFileSync('mkfifo', [path.join(root, 'pkg/CLAUDE.md')]);
    const r = await find(['pkg/a.ts']);
    expect(r.files).toEqual([]);
    expect(r.skipped).toEqual([
      { path: 'AGENTS.md', reason: 'is a FIFO, socket or device, not a file, so it is not read' },
      { path: 'pkg/CLAUDE.md', reason: 'is a FIFO, socket or device, not a file, so it is not read' },
    ]);
  });

  it('a link out of the workspace is skipped with a notice and never read, however it is spelled', async () => {
    const spellings = fc.constantFrom(
      path.join(outside, 'secret.md'),
      '../outside/secret.md',
      '../../' + path.relative(path.dirname(tmp.dir), outside) + '/secret.md',
      'inner-link',
    );
    const names = fc.constantFrom('AGENTS.md', 'CLAUDE.md', '.cursorrules', '.github/copilot-instructions.md', '.cursor/rules/x.mdc', 'pkg/AGENTS.md');
    await fc.assert(
      fc.asyncProperty(names, spellings, async (name, target) => {
        await rm(root, { recursive: true, force: true });
        await mkdir(path.join(root, path.dirname(name)), { recursive: true });
        await mkdir(path.join(root, 'pkg'), { recursive: true });
        // A chain: a link inside that itself leads out.
        await symlink(path.join(outside, 'secret.md'), path.join(root, 'inner-link'));
        const abs = path.join(root, name);
        const rel = target === 'inner-link' ? path.relative(path.dirname(abs), path.join(root, 'inner-link')) : target.startsWith('..') ? path.join(path.relative(path.dirname(abs), root), target) : target;
        await symlink(rel, abs);
        const r = await find(['pkg/a.ts']);
        expect(JSON.stringify(r)).not.toContain('OUTSIDE-SECRET');
        expect(r.skipped).toContainEqual({ path: name, reason: 'is a link to a file outside the workspace, so it is not read' });
      }),
      { numRuns: 40 },
    );
  });

  it('a folder on the way that is a link is skipped with a notice', async () => {
    await writeTree(outside, { 'rules/x.mdc': '---\nalwaysApply: true\n---\nOUTSIDE-SECRET\n', 'copilot-instructions.md': 'OUTSIDE-SECRET\n' });
    await mkdir(path.join(root, '.cursor'));
    await symlink(path.join(outside, 'rules'), path.join(root, '.cursor/rules'));
    await symlink(outside, path.join(root, '.github'));
    const r = await find();
    expect(JSON.stringify(r)).not.toContain('OUTSIDE-SECRET');
    expect(r.skipped.map((s) => s.path).sort()).toEqual(['.cursor/rules', '.github/copilot-instructions.md']);
  });

  it('a file the read rules keep from the agent is not read, nor a link to one', async () => {
    await writeTree(root, { 'AGENTS.md': 'ok\n', 'private/notes.md': 'PRIVATE\n' });
    await symlink('private/notes.md', path.join(root, 'CLAUDE.md'));
    const r = await find([], { readRules: async () => (rel) => (rel.startsWith('private/') ? 'denied by a rule' : null) });
    expect(paths(r)).toEqual(['AGENTS.md']);
    expect(r.skipped).toEqual([{ path: 'CLAUDE.md', reason: 'denied by a rule' }]);
  });

  it('reads the files as they are now: an edit applies at the next call', async () => {
    await writeTree(root, { 'AGENTS.md': 'first\n' });
    expect((await find()).files[0].text).toBe('first\n');
    await writeFile(path.join(root, 'AGENTS.md'), 'second\n');
    expect((await find()).files[0].text).toBe('second\n');
    await rm(path.join(root, 'AGENTS.md'));
    expect((await find()).files).toEqual([]);
  });

  it('a cached text is used only while the file is the same: an edit, a FIFO or a link out in its place are seen', async () => {
    const cache = new Map();
    await writeTree(root, { 'AGENTS.md': 'aaaa\n', 'CLAUDE.md': 'cccc\n' });
    expect((await find([], { cache })).files.map((f) => f.text)).toEqual(['aaaa\n', 'cccc\n']);
    expect(cache.size).toBe(2);
    await writeFile(path.join(root, 'AGENTS.md'), 'bbbb\n'); // same size
    await rm(path.join(root, 'CLAUDE.md'));
    execFileSync('mkfifo', [path.join(root, 'CLAUDE.md')]);
    let r = await find([], { cache });
    expect(r.files.map((f) => f.text)).toEqual(['bbbb\n']);
    expect(r.skipped).toEqual([{ path: 'CLAUDE.md', reason: 'is a FIFO, socket or device, not a file, so it is not read' }]);
    await rm(path.join(root, 'AGENTS.md'));
    await symlink(path.join(outside, 'secret.md'), path.join(root, 'AGENTS.md'));
    r = await find([], { cache });
    expect(JSON.stringify(r)).not.toContain('OUTSIDE-SECRET');
    expect(r.skipped.map((x) => x.path)).toEqual(['AGENTS.md', 'CLAUDE.md']);
  });

  it('skips a file that is not text, or too large', async () => {
    await writeFile(path.join(root, 'AGENTS.md'), Buffer.from([0x41, 0, 0x42]));
    await writeFile(path.join(root, 'CLAUDE.md'), 'x'.repeat(1024 * 1024 + 1));
    expect((await find()).skipped.map((s) => s.reason)).toEqual(['is not text', 'is over 1 MB, too large for standing instructions']);
  });
});

describe('touched paths', () => {
  it('keeps paths inside the workspace, as relative ones', () => {
    expect(relativeInside('/w', 'a/./b/../c.ts')).toBe('a/c.ts');
    expect(relativeInside('/w', '/w/a/b')).toBe('a/b');
    expect(relativeInside('/w', './')).toBe('');
    for (const p of ['..', '../x', '/etc', 'a/../../x', 'C:/x', 'a\0b']) expect(relativeInside('/w', p)).toBeNull();
  });

  it('lists each folder on the way, shallow first, stopping at dependencies and Loupe’s own', () => {
    expect(foldersOf('/w', ['a/b/c.ts', 'a/d', 'node_modules/x/y.js', '.git/hooks/pre-commit', 'z.ts'])).toEqual(['a', 'z.ts', 'a/b', 'a/d', 'a/b/c.ts']);
  });
});
