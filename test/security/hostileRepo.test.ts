// A repository is data, not a program: opening, browsing, diffing, editing, rolling back and
// committing through Loupe must run nothing a cloned repository names. The repository below
// defines every executable hook git knows, in its own config, in a config it includes, in an
// embedded repository and in a submodule; each program touches a marker file when it runs.
// Plain git on the same repository is run first, to prove the traps are live.
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolContext } from '../../src/main/agent/tools/context';
import { createToolRegistry } from '../../src/main/agent/tools/registry';
import type { ToolResult } from '../../src/main/agent/tools/types';
import { Workspace } from '../../src/main/host/workspace';
import { gitStatus } from '../../src/main/services/git/gitStatus';
import { testServices } from '../support/services';
import { tempDir } from '../support/tmp';

/** Every hook name git runs (githooks(5)), in .git/hooks and in a core.hooksPath folder. */
const HOOKS = [
  'applypatch-msg', 'pre-applypatch', 'post-applypatch', 'pre-commit', 'pre-merge-commit', 'prepare-commit-msg',
  'commit-msg', 'post-commit', 'pre-rebase', 'post-checkout', 'post-merge', 'pre-push', 'pre-receive', 'update',
  'proc-receive', 'post-receive', 'post-update', 'reference-transaction', 'push-to-checkout', 'pre-auto-gc',
  'post-rewrite', 'sendemail-validate', 'fsmonitor-watchman', 'p4-changelist', 'p4-prepare-changelist',
  'p4-post-changelist', 'p4-pre-submit', 'post-index-change',
];
/** Filter names a .gitattributes line can carry, including ones `-c key=value` would split. */
const FILTER_NAMES = ['evil', 'a=b', 'x.y', 'UPPER', 'dash-ed', 'under_score', 'n1', 'e=q=r'];

let sandbox: string;
let cleanup: () => Promise<void>;
let root: string;
let marks: string;

const plainGit = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=T', '-c', 'init.defaultBranch=main', '-c', 'protocol.file.allow=always', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
/** Plain git, tolerating the failures a hostile program causes (a filter that dies). */
const tryGit = (cwd: string, ...args: string[]) => {
  try {
    return plainGit(cwd, ...args);
  } catch {
    return '';
  }
};
const marked = async () => (await readdir(marks)).sort();
const clearMarks = async () => {
  await rm(marks, { recursive: true, force: true });
  await mkdir(marks);
};

/** A program that leaves `<marks>/<name>` behind and otherwise behaves (passes stdin through). */
async function trap(name: string): Promise<string> {
  const file = path.join(sandbox, 'bin', name.replace(/[^\w.-]/g, '_'));
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `#!/bin/sh\ntouch '${path.join(marks, name.replace(/[^\w.=-]/g, '_'))}'\n[ $# -eq 0 ] && exec cat\nexit 0\n`);
  await chmod(file, 0o755);
  return file;
}

async function hooksIn(dir: string, prefix: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const h of HOOKS) {
    const file = path.join(dir, h);
    await writeFile(file, `#!/bin/sh\ntouch '${path.join(marks, `${prefix}-${h}`)}'\n`);
    await chmod(file, 0o755);
  }
}

/** Every setting git knows that names a program, pointed at traps named `<where>-<setting>`. */
async function arm(gitDir: string, where: string, filters: string[]): Promise<void> {
  const set = async (key: string, value?: string) => plainGit(gitDir, '--git-dir', gitDir, 'config', key, value ?? (await trap(`${where}-${key}`)));
  for (const f of filters) {
    await set(`filter.${f}.clean`);
    await set(`filter.${f}.smudge`);
    await set(`filter.${f}.required`, 'true');
  }
  const programs = ['filter.proc.process', 'diff.evil.textconv', 'diff.evil.command', 'merge.evil.driver', 'diff.external', 'core.fsmonitor', 'core.pager', 'core.editor', 'sequence.editor', 'core.askPass', 'core.sshCommand', 'credential.helper', 'gpg.program', 'gpg.ssh.program', 'uploadpack.packObjectsHook'];
  for (const key of programs) await set(key);
  const switches: [string, string][] = [['filter.proc.required', 'true'], ['gpg.format', 'openpgp'], ['commit.gpgSign', 'true'], ['tag.gpgSign', 'true'], ['log.showSignature', 'true'], ['gc.auto', '1'], ['core.untrackedCache', 'true']];
  for (const [key, value] of switches) await set(key, value);
  await hooksIn(path.join(gitDir, 'hooks'), `${where}-hooks`);
  const hooksPath = path.join(sandbox, `${where}-hookspath`);
  await hooksIn(hooksPath, `${where}-hooksPath`);
  await set('core.hooksPath', hooksPath);
}

const ATTRIBUTES = [
  '*.txt filter=evil diff=evil merge=evil',
  '*.proc filter=proc',
  '*.inc filter=inc diff=inc',
  ...FILTER_NAMES.slice(1).map((f, i) => `*.f${i} filter=${f}`),
].join('\n');

/** A repository with one committed file whose attributes name `filter`. */
async function nestedRepo(dir: string, filter: string, file: string): Promise<string> {
  await mkdir(dir);
  plainGit(dir, 'init', '-q');
  await writeFile(path.join(dir, '.gitattributes'), `* filter=${filter} diff=evil\n`);
  await writeFile(path.join(dir, file), `${filter} content\n`);
  plainGit(dir, 'add', '.');
  plainGit(dir, 'commit', '-q', '-m', filter);
  return dir;
}

beforeAll(async () => {
  ({ dir: sandbox, cleanup } = await tempDir('loupe-hostile-'));
  root = path.join(sandbox, 'ws');
  marks = path.join(sandbox, 'marks');
  await mkdir(root);
  await mkdir(marks);
  plainGit(root, 'init', '-q');
  plainGit(root, 'config', 'user.email', 't@example.com');
  plainGit(root, 'config', 'user.name', 'T');
  const files: Record<string, string> = {
    '.gitattributes': `${ATTRIBUTES}\n`,
    'a.txt': 'alpha\n',
    'd.txt': 'one\ntwo\nthree\nfour\nfive\nsix\nseven\n',
    'p.proc': 'process me\n',
    'c.inc': 'included\n',
    // A tracked file the repository's config includes: whatever it defines is repository config too.
    'included.gitconfig': '',
  };
  FILTER_NAMES.slice(1).forEach((_, i) => (files[`file.f${i}`] = `filtered ${i}\n`));
  for (const [rel, content] of Object.entries(files)) await writeFile(path.join(root, rel), content);
  plainGit(root, 'add', '.');
  plainGit(root, 'commit', '-q', '-m', 'base');

  // An embedded repository, added as a bare gitlink (no .gitmodules), with its own traps.
  const emb = await nestedRepo(path.join(root, 'emb'), 'embf', 'f.txt');
  tryGit(root, 'add', 'emb');

  // An embedded repository never added: a folder of the work tree that is a repository itself.
  const loose = await nestedRepo(path.join(root, 'loose'), 'loosef', 'l.txt');

  // A real submodule, with traps in its own config under .git/modules.
  const src = await nestedRepo(path.join(sandbox, 'subsrc'), 'subf', 's.txt');
  plainGit(root, 'submodule', '-q', 'add', src, 'sub');
  // A gitlink to one of the repository's own commits: `git show HEAD:link` prints that commit's patch.
  plainGit(root, 'update-index', '--add', '--cacheinfo', `160000,${plainGit(root, 'rev-parse', 'HEAD').trim()},link`);
  plainGit(root, 'commit', '-q', '-m', 'embedded and submodule');

  await arm(path.join(root, '.git'), 'repo', FILTER_NAMES);
  await arm(path.join(emb, '.git'), 'emb', ['embf']);
  await arm(path.join(root, '.git/modules/sub'), 'sub', ['subf']);
  await arm(path.join(loose, '.git'), 'loose', ['loosef']);
  plainGit(root, 'config', 'include.path', '../included.gitconfig');
  plainGit(root, 'config', '--file', path.join(root, 'included.gitconfig'), 'filter.inc.clean', await trap('include-filter.inc.clean'));
  plainGit(root, 'config', '--file', path.join(root, 'included.gitconfig'), 'filter.inc.smudge', await trap('include-filter.inc.smudge'));
  plainGit(root, 'config', '--file', path.join(root, 'included.gitconfig'), 'diff.inc.textconv', await trap('include-diff.inc.textconv'));
  // Dirty work in both nested repositories, so a status that recursed would run their filters.
  await writeFile(path.join(emb, 'f.txt'), 'embedded, changed\n');
  await writeFile(path.join(root, 'sub/s.txt'), 'sub, changed\n');
  for (const rel of Object.keys(files)) if (rel !== '.gitattributes' && rel !== 'included.gitconfig') await writeFile(path.join(root, rel), `${files[rel]}touched\n`);
  // Newer than any index: git must re-read (and so clean) them on every status, never trust the stat.
  const later = new Date(Date.now() + 3600_000);
  await writeFile(path.join(loose, 'l.txt'), 'loose, changed\n');
  for (const rel of ['emb/f.txt', 'sub/s.txt', 'loose/l.txt', ...Object.keys(files)]) await utimes(path.join(root, rel), later, later);
  await clearMarks();
});
afterAll(() => cleanup());

describe('a hostile repository', () => {
  it('is live: plain git runs its filters, fsmonitor, nested repositories, textconv, drivers and hooks', async () => {
    tryGit(root, '-c', 'filter.proc.process=', '-c', 'filter.proc.required=false', 'status');
    tryGit(path.join(root, 'loose'), 'status');
    // A status recursing into a nested repository cleans its changed file only when the stat
    // leaves it in doubt (seen to skip it once under load); a diff in each always does.
    tryGit(path.join(root, 'emb'), 'diff', '--stat');
    tryGit(path.join(root, 'sub'), 'diff', '--stat');
    tryGit(root, 'diff', '--stat', '--', 'p.proc');
    // Status only cleans racy files; a diff cleans every changed one.
    tryGit(root, 'diff', '--stat', '--no-ext-diff', '--no-textconv', '--', 'a.txt', 'c.inc', ...FILTER_NAMES.slice(1).map((_, i) => `file.f${i}`));
    // One path each: the process filter (a trap, not a real filter server) kills a whole-tree diff.
    tryGit(root, 'diff', '--', 'a.txt');
    tryGit(root, 'show', 'HEAD:link');
    tryGit(root, 'diff', '--', 'included.gitconfig');
    tryGit(root, '-c', 'diff.external=', 'log', '-p', '--', 'a.txt');
    tryGit(root, 'update-ref', 'refs/probe', 'HEAD');
    tryGit(root, 'update-ref', '-d', 'refs/probe');
    // A status that may write the index (Loupe's lets git store its untracked cache) runs post-index-change.
    tryGit(root, '-c', 'filter.proc.process=', '-c', 'filter.proc.required=false', '-c', 'core.untrackedCache=true', 'status');
    const ran = await marked();
    for (const f of FILTER_NAMES) expect(ran).toContain(`repo-filter.${f}.clean`);
    expect(ran).toEqual(
      expect.arrayContaining([
        'repo-core.fsmonitor',
        'loose-core.fsmonitor',
        'loose-filter.loosef.clean',
        'repo-filter.proc.process',
        'include-filter.inc.clean',
        'emb-filter.embf.clean',
        'sub-filter.subf.clean',
        'repo-diff.external',
        'repo-diff.evil.command',
        'repo-diff.evil.textconv',
        'repo-hooksPath-reference-transaction',
        'repo-hooksPath-post-index-change',
      ]),
    );
    await clearMarks();
  });

  it('runs none of them when Loupe opens, browses, diffs, edits, rolls back and commits', async () => {
    // The control stored an untracked cache; drop it so the write below shows.
    plainGit(root, '-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', 'update-index', '--no-untracked-cache');
    await clearMarks();
    const ws = await Workspace.open(root, () => undefined, (real) => testServices(real));
    const ctx = createToolContext(ws.services, { corrector: null });
    const registry = createToolRegistry();
    const call = async (tool: string, args: Record<string, unknown>): Promise<ToolResult> => {
      const r = await registry.call(tool, args, ctx);
      expect(r.error, `${tool} ${JSON.stringify(args)}`).toBeUndefined();
      return r;
    };
    const id = (r: ToolResult) => r.data!.modification_id as string;
    try {
      // Open: badges.
      expect(ws.info.isGitRepo).toBe(true);
      const badges = await ws.gitStatus();
      expect(badges['a.txt']).toBe('M');
      expect(await ws.list('')).toBeTruthy();
      expect(await marked(), 'opening ran them').toEqual([]);
      // The status a slow folder gets now and then, which lets git write the index: written, yet nothing ran.
      const before = await readFile(path.join(root, '.git', 'index'));
      expect((await gitStatus(root, { writeIndex: true }))['a.txt']).toBe('M');
      const after = await readFile(path.join(root, '.git', 'index'));
      expect(before.includes('UNTR')).toBe(false);
      expect(after.includes('UNTR')).toBe(true);
      expect(await marked(), 'a status that writes the index ran them').toEqual([]);

      // Browse.
      for (const rel of ['a.txt', 'p.proc', 'c.inc', 'file.f0', 'emb/f.txt', 'sub/s.txt', 'loose/l.txt']) await call('read_file', { path: rel });
      await call('list_files', {});
      await call('grep', { pattern: 'touched' });
      expect(await marked(), 'browsing ran them').toEqual([]);

      // Compare with HEAD: the stored bytes, not a textconv rendering.
      expect(await ws.review.fileDiff('a.txt')).toMatchObject({ before: 'alpha\n', after: 'alpha\ntouched\n' });
      expect(await ws.review.fileDiff('c.inc')).toMatchObject({ before: 'included\n' });
      // A gitlink is a folder: no commit printed through `git show`, a plain refusal instead.
      await expect(ws.review.fileDiff('sub')).rejects.toMatchObject({ code: 'INVALID_PATH' });
      expect((await ws.review.fileDiff('link')).before).toBeNull();
      expect((await ws.review.fileDiff('loose/l.txt')).before).toBeNull();
      expect(await marked(), 'diffing ran them').toEqual([]);

      // Edit, through every write tool.
      const e1 = await call('edit_file', { path: 'a.txt', old_str: 'alpha', new_str: 'ALPHA' });
      const w1 = await call('write_file', { path: 'p.proc', content: 'processed\n' });
      const w2 = await call('write_file', { path: 'c.inc', content: 'inc\n' });
      const w3 = await call('write_file', { path: 'new.txt', content: 'new\n' });
      for (let i = 0; i < FILTER_NAMES.length - 1; i++) {
        await call('read_file', { path: `file.f${i}` });
        await call('write_file', { path: `file.f${i}`, content: `rewritten ${i}\n` });
      }
      await call('read_file', { path: 'd.txt' });
      const d1 = await call('code_modify', { file_path: 'd.txt', operation: 'replace', line_range: [1, 1], new_content: 'ONE' });
      await call('read_file', { path: 'd.txt' });
      const d2 = await call('code_modify', { file_path: 'd.txt', operation: 'replace', line_range: [7, 7], new_content: 'SEVEN' });
      await call('write_file', { path: 'emb/f.txt', content: 'embedded, by the agent\n' });
      await call('write_file', { path: 'sub/s.txt', content: 'sub, by the agent\n' });
      await call('write_file', { path: 'loose/l.txt', content: 'loose, by the agent\n' });
      await call('write_file', { path: 'loose/new.txt', content: 'new in loose\n' });
      await ws.gitStatus();
      expect(await marked(), 'editing ran them').toEqual([]);

      // Roll back: a plain restore, a three-way merge (d1 under d2), and from the review pane.
      const r1 = await call('code_rollback', { modification_id: id(w3) });
      expect(r1.data).toMatchObject({ status: 'rolled_back' });
      const r2 = await call('code_rollback', { modification_id: id(d1) });
      expect(r2.data).toMatchObject({ merged: true });
      await ws.review.rollback({ modification_id: id(w2) });
      expect(await ws.review.diff(id(e1))).toMatchObject({ before: 'alpha\ntouched\n' });
      expect(await marked(), 'rolling back ran them').toEqual([]);

      // Commit what is approved.
      for (const m of [e1, w1, d2]) await ws.review.approve(id(m));
      await ws.review.approve(r2.data!.rollback_id as string);
      const commit = await ws.review.commitApproved('hostile repository commit');
      expect(commit.files.sort()).toEqual(['a.txt', 'd.txt', 'p.proc']);
      const raw = plainGit(root, 'cat-file', 'commit', commit.commit);
      expect(raw).not.toContain('gpgsig');
      expect(plainGit(root, 'cat-file', 'blob', `${commit.commit}:a.txt`)).toBe('ALPHA\ntouched\n');
      await ws.gitStatus();
    } finally {
      await ws.dispose();
    }
    expect(await marked()).toEqual([]);
    expect(await readFile(path.join(root, 'd.txt'), 'utf8')).toContain('SEVEN');
  });
});
