// The snapshots behind a command's record run none of the repository's programs, keep exact
// bytes whatever its attributes say, trust no object whose bytes do not match its id, and leave
// nothing behind when the workspace closes.
import { deflateSync } from 'node:zlib';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { git, tempDir } from '../../../../test/support/tmp';
import { testServices } from '../../../../test/support/services';
import { gitOid } from './workTreeSnapshots';

let cleanup: (() => Promise<void>) | null = null;
afterEach(async () => {
  await cleanup?.();
  cleanup = null;
});

async function repo() {
  const t = await tempDir();
  cleanup = t.cleanup;
  const root = path.join(t.dir, 'ws');
  await mkdir(root);
  return { root, dir: t.dir, services: () => testServices(root, { configDir: path.join(t.dir, 'user') }) };
}

it("a repository's filters, eol and textconv settings run nothing and change no byte of what is kept", async () => {
  const { root, dir, services } = await repo();
  const marker = path.join(dir, 'MARKER');
  await writeFile(path.join(root, '.gitattributes'), '* filter=evil text eol=crlf ident diff=evil working-tree-encoding=UTF-16\n');
  // CRLF endings and an expanded $Id$: text and ident would store other bytes than these.
  await writeFile(path.join(root, 'a.txt'), 'line one\r\nline two $Id: 0123abcd $\r\n');
  git(root, 'init', '-q');
  for (const [k, v] of [
    ['filter.evil.clean', `sh -c 'touch ${marker}; tr a-z A-Z'`],
    ['filter.evil.smudge', `sh -c 'touch ${marker}; cat'`],
    ['filter.evil.required', 'true'],
    ['diff.evil.textconv', `sh -c 'touch ${marker}'`],
  ])
    git(root, 'config', k, v);
  const s = services();
  const { capture } = await s.captures.around({ tool: 'bash', command: 'edit', sessionId: 's' }, () => writeFile(path.join(root, 'a.txt'), 'line one\r\nline TWO $Id: 0123abcd $\r\n'));
  expect(existsSync(marker)).toBe(false);
  expect(capture.files.map((f) => [f.file, f.change])).toEqual([['a.txt', 'changed']]);
  const fold = await s.modlog.index().sync();
  const e = fold.get(capture.files[0].modification_id)!.entry;
  expect((await s.modlog.blobs.get(e.before_sha256!)).toString()).toBe('line one\r\nline two $Id: 0123abcd $\r\n');
  expect((await s.modlog.blobs.get(e.after_sha256!)).toString()).toBe('line one\r\nline TWO $Id: 0123abcd $\r\n');
  await s.dispose();
});

it('an object whose bytes do not match its id is refused: the command is said unrecorded, never recorded wrong', async () => {
  const { root, services } = await repo();
  await writeFile(path.join(root, 'a.txt'), 'the real bytes\n');
  git(root, 'init', '-q');
  git(root, 'add', '-A');
  git(root, 'commit', '-qm', 'seed');
  // The repository's own object for a.txt now inflates to other bytes under the same id.
  const oid = gitOid(Buffer.from('the real bytes\n'));
  const obj = path.join(root, '.git', 'objects', oid.slice(0, 2), oid.slice(2));
  await rm(obj, { force: true });
  const forged = Buffer.from('attacker bytes!\n');
  await writeFile(obj, deflateSync(Buffer.concat([Buffer.from(`blob ${forged.length}\0`), forged])));
  const s = services();
  const { capture } = await s.captures.around({ tool: 'bash', command: 'rm a.txt', sessionId: 's' }, () => rm(path.join(root, 'a.txt')));
  expect(capture.group_id).toBeNull();
  expect(capture.error).toMatch(/does not hold the content its name promises/);
  expect((await s.modlog.index().sync()).size).toBe(0);
  await s.dispose();
});

it("each process's snapshot folder is its own, and goes with the workspace", async () => {
  const { root, services } = await repo();
  await writeFile(path.join(root, 'a.txt'), 'a\n');
  const a = services();
  const b = services();
  await a.captures.around({ tool: 'bash', command: 'x', sessionId: 's' }, async () => {});
  await b.captures.around({ tool: 'bash', command: 'x', sessionId: 's' }, async () => {});
  const folders = await readdir(path.join(root, '.loupe', 'snapshots'));
  expect(folders).toHaveLength(2);
  expect(folders.every((f) => f.startsWith(`${process.pid}-`))).toBe(true);
  // A folder a dead process left is swept by the next one to start.
  await mkdir(path.join(root, '.loupe', 'snapshots', '999999-deadbeef', 'objects'), { recursive: true });
  await a.dispose();
  await b.dispose();
  const c = services();
  await c.captures.around({ tool: 'bash', command: 'x', sessionId: 's' }, async () => {});
  expect((await readdir(path.join(root, '.loupe', 'snapshots'))).filter((f) => !f.startsWith(`${process.pid}-`))).toEqual([]);
  await c.dispose();
  expect(await readdir(path.join(root, '.loupe', 'snapshots'))).toEqual([]);
  // Nothing of it ever reaches the repository's own index or objects' count of loose files beyond its own.
  expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('a\n');
});
