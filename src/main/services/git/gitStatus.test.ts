import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git, tempDir, writeTree } from '../../../../test/support/tmp';
import { gitStatus, isGitRepo, parsePorcelainV2Z, toBadges } from './gitStatus';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir()));
afterEach(() => cleanup());

describe('gitStatus', () => {
  it('badges modified, added, deleted, renamed and untracked files', async () => {
    git(dir, 'init', '-q');
    await writeTree(dir, { 'mod.ts': 'a', 'del.ts': 'b', 'old.ts': 'c\n'.repeat(20), 'keep.ts': 'k' });
    git(dir, 'add', '.');
    git(dir, 'commit', '-qm', 'init');
    await writeFile(path.join(dir, 'mod.ts'), 'changed');
    await rm(path.join(dir, 'del.ts'));
    await rename(path.join(dir, 'old.ts'), path.join(dir, 'new.ts'));
    git(dir, 'add', '-A', 'old.ts', 'new.ts');
    await writeTree(dir, { 'added.ts': 'x', 'dir with space/untracked.ts': 'u' });
    git(dir, 'add', 'added.ts');
    expect(await gitStatus(dir)).toEqual({
      'mod.ts': 'M',
      'del.ts': 'D',
      'new.ts': 'R',
      'added.ts': 'A',
      'dir with space/untracked.ts': '?',
    });
  });

  it('scopes badges to a workspace that is a subfolder of the repository', async () => {
    git(dir, 'init', '-q');
    await writeTree(dir, { 'outside.ts': 'o', 'pkg/inside.ts': 'i' });
    const pkg = path.join(dir, 'pkg');
    expect(await gitStatus(pkg)).toEqual({ 'inside.ts': '?' });
  });

  it('knows a plain folder is not a repository', async () => {
    await mkdir(path.join(dir, 'plain'));
    expect(await isGitRepo(path.join(dir, 'plain'))).toBe(false);
  });

  it('never runs the repository hooks or fsmonitor', async () => {
    git(dir, 'init', '-q');
    const marker = path.join(dir, 'pwned');
    await writeTree(dir, { 'hook.sh': `#!/bin/sh\ntouch ${marker}\n`, 'a.ts': '' });
    git(dir, 'config', 'core.fsmonitor', path.join(dir, 'hook.sh'));
    await import('node:fs/promises').then((fs) => fs.chmod(path.join(dir, 'hook.sh'), 0o755));
    await gitStatus(dir);
    await expect(import('node:fs/promises').then((fs) => fs.access(marker))).rejects.toThrow();
  });

  it('only a status asked to write the index writes it, and one stopped at its bound leaves no index.lock', async () => {
    git(dir, 'init', '-q');
    await writeTree(dir, { 'a.ts': 'a', 'u.ts': 'u' });
    git(dir, 'add', 'a.ts');
    const index = path.join(dir, '.git', 'index');
    const before = await readFile(index);
    await gitStatus(dir);
    expect((await readFile(index)).equals(before), 'a plain status wrote the index').toBe(true);
    expect(await gitStatus(dir, { writeIndex: true })).toEqual({ 'a.ts': 'A', 'u.ts': '?' });
    expect((await readFile(index)).includes('UNTR'), 'the untracked cache is stored').toBe(true);

    // Hung (a FIFO where git reads ignore rules) while holding the lock, then stopped.
    await mkdir(path.join(dir, 'stuck'));
    execFileSync('mkfifo', [path.join(dir, 'stuck', '.gitignore')]);
    await expect(gitStatus(dir, { writeIndex: true, timeoutMs: 500 })).rejects.toMatchObject({ code: 'TIMEOUT' });
    expect(existsSync(path.join(dir, '.git', 'index.lock'))).toBe(false);
  });

  it('parses renames with their original path field, paths with spaces, conflicts and untracked files', () => {
    const h = '0'.repeat(40);
    const out = [
      '# branch.oid ' + h,
      `2 R. N... 100644 100644 100644 ${h} ${h} R100 new name.ts`,
      'old name.ts',
      `1 .M N... 100644 100644 100644 ${h} ${h} c d.ts`,
      `u UU N... 100644 100644 100644 100644 ${h} ${h} ${h} both.ts`,
      '? dir/x y.ts',
      '! ignored.log',
      '',
    ].join('\0');
    const entries = parsePorcelainV2Z(out);
    expect(entries.get('new name.ts')).toEqual({ xy: 'R.', from: 'old name.ts' });
    expect(toBadges(entries)).toEqual({ 'new name.ts': 'R', 'c d.ts': 'M', 'both.ts': 'U', 'dir/x y.ts': '?', 'ignored.log': '!' });
  });
});
