// The modification log's write path (docs/architecture.md) on real temp folders and real git repositories.
import { chmod, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { git, tempDir } from '../../../../test/support/tmp';
import { sha256 } from '../files/hash';
import { ModificationLog } from './modificationLog';
import type { ApplyRequest } from './types';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function workspace(withGit = false): Promise<{ root: string; log: ModificationLog; req: (file: string, content: string | null, extra?: Partial<ApplyRequest>) => ApplyRequest }> {
  const { dir, cleanup } = await tempDir('loupe-modlog-');
  cleanups.push(cleanup);
  if (withGit) git(dir, 'init', '-q');
  const log = new ModificationLog(dir);
  const req = (file: string, content: string | null, extra: Partial<ApplyRequest> = {}): ApplyRequest => ({
    file,
    abs: path.join(dir, file),
    content: content === null ? null : Buffer.from(content),
    tool: 'write_file',
    operation: content === null ? 'delete_file' : 'create',
    sessionId: 'ses-test',
    ...extra,
  });
  return { root: dir, log, req };
}

describe('ModificationLog.apply', () => {
  it('writes the file, stores both blobs and appends one fsync’d JSON line', async () => {
    const { root, log, req } = await workspace();
    const first = await log.apply(req('src/a.ts', 'one\n', { reason: 'start', correlationId: 'bug-42', linesAffected: [1, 1], linesChanged: 1 }));
    const second = await log.apply(req('src/a.ts', 'two\n', { operation: 'overwrite' }));
    expect(await readFile(path.join(root, 'src/a.ts'), 'utf8')).toBe('two\n');
    expect(first.entry).toMatchObject({
      type: 'modification',
      session_id: 'ses-test',
      correlation_id: 'bug-42',
      tool: 'write_file',
      operation: 'create',
      file: 'src/a.ts',
      lines_affected: [1, 1],
      lines_changed: 1,
      reason: 'start',
      before_sha256: null,
      after_sha256: sha256('one\n'),
      git_staged: false,
    });
    expect(first.modificationId).toMatch(/^mod-\d{8}-\d{6}-\d{3}$/);
    expect(second.modificationId > first.modificationId).toBe(true);
    expect(second.entry.before_sha256).toBe(sha256('one\n'));
    expect((await log.blobs.get(sha256('one\n'))).toString()).toBe('one\n');
    expect((await log.blobs.get(sha256('two\n'))).toString()).toBe('two\n');
    const { entries, skipped } = await log.read();
    expect(skipped).toBe(0);
    expect(entries.map((e) => e.modification_id)).toEqual([first.modificationId, second.modificationId]);
    expect(Date.parse(String(entries[0].timestamp))).not.toBeNaN();
  });

  it('keeps the mode bits of an existing file and leaves no temp file behind', async () => {
    const { root, log, req } = await workspace();
    await writeFile(path.join(root, 'run.sh'), 'echo 1\n');
    await chmod(path.join(root, 'run.sh'), 0o755);
    await writeFile(path.join(root, '.run.sh.0123456789ab.loupe-tmp'), 'left by a crash');
    await log.apply(req('run.sh', 'echo 2\n', { operation: 'overwrite' }));
    expect((await stat(path.join(root, 'run.sh'))).mode & 0o777).toBe(0o755);
    expect((await readdir(root)).filter((n) => n.endsWith('.loupe-tmp'))).toEqual([]);
  });

  it('deletes a file and records a null after-state', async () => {
    const { root, log, req } = await workspace();
    await writeFile(path.join(root, 'gone.txt'), 'bye');
    const res = await log.apply(req('gone.txt', null));
    expect(existsSync(path.join(root, 'gone.txt'))).toBe(false);
    expect(res.entry).toMatchObject({ operation: 'delete_file', before_sha256: sha256('bye'), after_sha256: null });
  });

  it('serialises writes per file: each entry starts where the previous one ended', async () => {
    const { log, req } = await workspace();
    await Promise.all(Array.from({ length: 12 }, (_, i) => log.apply(req('c.txt', `v${i}\n`))));
    const { entries } = await log.read();
    expect(entries).toHaveLength(12);
    for (let i = 1; i < entries.length; i++) expect(entries[i].before_sha256).toBe(entries[i - 1].after_sha256);
    expect(new Set(entries.map((e) => e.modification_id)).size).toBe(12);
  });

  it('two writers on one log (loupe serve and loupe mcp) never reuse an id, even within one second', async () => {
    const { root, log, req } = await workspace();
    const other = new ModificationLog(root);
    await log.apply(req('a.txt', 'a\n'));
    await other.apply(req('b.txt', 'b\n'));
    for (let i = 0; i < 10; i++) await Promise.all([log.apply(req('a.txt', `a${i}\n`)), other.apply(req('b.txt', `b${i}\n`))]);
    const ids = (await log.read()).entries.map((e) => e.modification_id as string);
    expect(ids).toHaveLength(22);
    expect(new Set(ids).size).toBe(22);
    // In log order, so the timeline's newest-first order is the order they happened.
    expect([...ids].sort()).toEqual(ids);
    expect(existsSync(path.join(root, '.loupe', 'modifications.lock'))).toBe(false);
  });

  it('refuses, and writes nothing, when the file changed since the caller read it', async () => {
    const { root, log, req } = await workspace();
    await writeFile(path.join(root, 'r.txt'), 'changed by someone');
    await expect(log.apply(req('r.txt', 'mine', { expectBeforeSha: sha256('what I read') }))).rejects.toMatchObject({ code: 'FILE_CHANGED_SINCE_READ' });
    await expect(log.apply(req('new.txt', 'x', { expectBeforeSha: sha256('something') }))).rejects.toMatchObject({ code: 'FILE_CHANGED_SINCE_READ' });
    expect(await readFile(path.join(root, 'r.txt'), 'utf8')).toBe('changed by someone');
    expect((await log.read()).entries).toEqual([]);
  });

  it('lets a caller hold the file lock around apply without deadlocking', async () => {
    const { log, req } = await workspace();
    const res = await log.withFileLock(req('l.txt', '').abs, () => log.apply(req('l.txt', 'locked')));
    expect(res.entry.after_sha256).toBe(sha256('locked'));
  });

  it('never writes inside .git/ or .loupe/', async () => {
    const { log, req } = await workspace(true);
    await expect(log.apply(req('.git/config', 'x'))).rejects.toMatchObject({ code: 'INVALID_PATH' });
    await expect(log.apply(req('.loupe/modifications.jsonl', 'x'))).rejects.toMatchObject({ code: 'INVALID_PATH' });
    await expect(log.apply(req('.GIT/hooks/pre-commit', 'x'))).rejects.toMatchObject({ code: 'INVALID_PATH' });
  });
});

describe('ModificationLog and git', () => {
  it('stages each write, records the index entry it replaced, and excludes .loupe/', async () => {
    const { root, log, req } = await workspace(true);
    await writeFile(path.join(root, 'tracked.txt'), 'base\n');
    git(root, 'add', 'tracked.txt');
    git(root, 'commit', '-q', '-m', 'base');
    const oid = git(root, 'rev-parse', ':tracked.txt').trim();
    const edit = await log.apply(req('tracked.txt', 'edited\n', { operation: 'edit' }));
    const created = await log.apply(req('sub/new.txt', 'new\n'));
    expect(edit.entry).toMatchObject({ git_staged: true, git_index_before: { mode: '100644', oid } });
    expect(created.entry).toMatchObject({ git_staged: true, git_index_before: null });
    expect(git(root, 'diff', '--cached', '--name-only').trim().split('\n').sort()).toEqual(['sub/new.txt', 'tracked.txt']);
    expect(git(root, 'status', '--porcelain')).not.toContain('.loupe');
    expect(await readFile(path.join(root, '.git/info/exclude'), 'utf8')).toMatch(/^\.loupe\/$/m);
  });

  it('stages a deletion', async () => {
    const { root, log, req } = await workspace(true);
    await writeFile(path.join(root, 'd.txt'), 'x');
    git(root, 'add', 'd.txt');
    git(root, 'commit', '-q', '-m', 'd');
    expect((await log.apply(req('d.txt', null))).gitStaged).toBe(true);
    expect(git(root, 'diff', '--cached', '--name-status').trim()).toBe('D\td.txt');
  });

  it('writes but does not stage an ignored file', async () => {
    const { root, log, req } = await workspace(true);
    await writeFile(path.join(root, '.gitignore'), 'build/\n');
    const res = await log.apply(req('build/out.js', 'x'));
    expect(res.gitStaged).toBe(false);
    expect(await readFile(path.join(root, 'build/out.js'), 'utf8')).toBe('x');
  });

  it('never runs a hostile repository’s hooks, fsmonitor or filter drivers', async () => {
    const { root, log, req } = await workspace(true);
    const marker = (name: string) => path.join(root, `pwned-${name}`);
    const script = async (name: string) => {
      const file = path.join(root, `${name}.sh`);
      await writeFile(file, `#!/bin/sh\ntouch '${marker(name)}'\ncat\n`);
      await chmod(file, 0o755);
      return file;
    };
    await mkdir(path.join(root, '.git/hooks'), { recursive: true });
    await writeFile(path.join(root, '.git/hooks/post-index-change'), `#!/bin/sh\ntouch '${marker('hook')}'\n`);
    await chmod(path.join(root, '.git/hooks/post-index-change'), 0o755);
    git(root, 'config', 'core.fsmonitor', await script('fsmonitor'));
    git(root, 'config', 'filter.evil.clean', await script('clean'));
    git(root, 'config', 'filter.evil.required', 'true');
    await writeFile(path.join(root, '.gitattributes'), '*.txt filter=evil\n');
    const res = await log.apply(req('victim.txt', 'data\n'));
    await (await log.git())!.statusOf('victim.txt');
    expect(res.gitStaged).toBe(true);
    expect((await readdir(root)).filter((n) => n.startsWith('pwned-'))).toEqual([]);
  });
});

describe('reading the log', () => {
  it('tolerates a torn last line and repairs it on the next append', async () => {
    const { root, log, req } = await workspace();
    await log.apply(req('a.txt', '1'));
    const file = path.join(root, '.loupe/modifications.jsonl');
    await writeFile(file, (await readFile(file, 'utf8')) + '{"type":"modification","modifica');
    expect(await log.read()).toMatchObject({ skipped: 1 });
    expect((await log.read()).entries).toHaveLength(1);
    await log.apply(req('a.txt', '2'));
    const lines = (await readFile(file, 'utf8')).split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((l) => JSON.parse(l).after_sha256)).toEqual([sha256('1'), sha256('2')]);
  });

  it('keeps a complete last entry that only lacks its newline', async () => {
    const { root, log, req } = await workspace();
    await log.apply(req('a.txt', '1'));
    const file = path.join(root, '.loupe/modifications.jsonl');
    await writeFile(file, (await readFile(file, 'utf8')).trimEnd());
    await log.apply(req('a.txt', '2'));
    expect(await log.read()).toMatchObject({ skipped: 0, entries: [{}, {}] });
  });

  it('continues the id sequence of an existing log', async () => {
    const { root, req } = await workspace();
    const a = await new ModificationLog(root).apply(req('a.txt', '1'));
    const b = await new ModificationLog(root).apply(req('a.txt', '2'));
    expect(b.modificationId > a.modificationId).toBe(true);
  });
});
