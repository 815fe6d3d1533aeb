import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventChannel } from '../../shared/contract';
import { git, tempDir, until, writeTree } from '../../../test/support/tmp';
import { Host } from './host';

let dir: string;
let cleanup: () => Promise<void>;
let host: Host;
let events: { ch: EventChannel; p: unknown }[];

beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
  host = new Host({ transport: 'websocket', configDir: path.join(dir, 'config') });
  events = [];
  host.onEvent((ch, p) => events.push({ ch, p }));
});
afterEach(async () => {
  await host.dispose();
  await cleanup();
});

describe('Host', () => {
  it('says no folder is open until one is', async () => {
    await expect(host.handle('tree.list', { dir: '' })).rejects.toMatchObject({ code: 'NO_WORKSPACE' });
    expect(await host.handle('workspace.current', undefined)).toBeNull();
  });

  it('opens a folder, remembers it, lists and reads files', async () => {
    const ws = path.join(dir, 'my-app');
    await writeTree(ws, { 'src/index.ts': 'const a = 1;\n', 'bin.dat': 'a\0b' });
    const info = await host.handle('workspace.open', { path: ws });
    // The index's progress lands in the same info object whenever it moves.
    expect(info).toMatchObject({ root: ws, name: 'my-app', isGitRepo: false });
    // A small folder's index may finish (and say so) before the opened event goes out.
    expect(events.find((e) => e.ch !== 'tree.indexProgress')).toEqual({ ch: 'workspace.opened', p: info });
    expect(await host.handle('workspace.recent', undefined)).toEqual([ws]);
    const file = await host.handle('file.read', { path: 'src/index.ts' });
    expect(file).toMatchObject({ content: 'const a = 1;\n', language: 'typescript', binary: false });
    const bin = await host.handle('file.read', { path: 'bin.dat' });
    expect(bin.binary).toBe(true);
    expect(bin.content).toBeUndefined();
  });

  it('refuses paths outside the folder, including via symlinks and same-prefix siblings', async () => {
    const ws = path.join(dir, 'app');
    await writeTree(ws, { 'a.txt': 'a' });
    await writeTree(dir, { 'app-secrets/key.txt': 'secret', 'outside.txt': 'o' });
    await symlink(path.join(dir, 'outside.txt'), path.join(ws, 'link.txt'));
    await symlink(path.join(dir, 'app-secrets'), path.join(ws, 'linkdir'));
    await host.open(ws);
    for (const p of ['../outside.txt', '../app-secrets/key.txt', path.join(dir, 'app-secrets/key.txt'), 'link.txt', 'linkdir/key.txt', '/etc/passwd']) {
      await expect(host.handle('file.read', { path: p }), p).rejects.toMatchObject({ code: 'PATH_OUTSIDE_WORKSPACE' });
    }
  });

  it('pushes tree and git badge changes when files change on disk', async () => {
    const ws = path.join(dir, 'repo');
    await mkdir(ws);
    git(ws, 'init', '-q');
    await writeTree(ws, { 'a.ts': '1' });
    git(ws, 'add', '.');
    git(ws, 'commit', '-qm', 'init');
    await host.open(ws);
    // As a client does: the first listing starts the watcher, then the index (done: watched).
    await host.handle('tree.list', { dir: '' });
    await until(() => events.some((e) => e.ch === 'tree.indexProgress' && (e.p as { done: boolean }).done));
    expect(await host.handle('tree.gitStatus', undefined)).toEqual({});
    await writeFile(path.join(ws, 'a.ts'), '2');
    await writeTree(ws, { 'lib/b.ts': 'new' });
    await until(() => events.some((e) => e.ch === 'tree.changed' && (e.p as { dirs: string[] }).dirs.includes('lib')));
    await until(() => events.some((e) => e.ch === 'file.changed' && (e.p as { paths: string[] }).paths.includes('a.ts')));
    await until(() =>
      events.some((e) => e.ch === 'tree.gitStatus' && JSON.stringify(e.p) === JSON.stringify({ status: { 'a.ts': 'M', 'lib/b.ts': '?' } })),
    );
  });

  it('rejects malformed params with INVALID_ARGUMENT instead of crashing', async () => {
    await expect(host.handle('workspace.open', null as never)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(host.handle('workspace.open', { path: 42 } as never)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(host.handle('workspace.open', { path: path.join(dir, 'missing') })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(host.handle('toString' as never, undefined as never)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});

describe('Host tree events', () => {
  it('announces a new empty folder so the tree can show it', async () => {
    const ws = path.join(dir, 'ws');
    await writeTree(ws, { 'a.txt': '' });
    await host.open(ws);
    expect((await host.handle('tree.list', { dir: '' })).entries.map((e) => e.name)).toEqual(['a.txt']);
    await mkdir(path.join(ws, 'fresh'));
    await until(() => events.some((e) => e.ch === 'tree.changed' && (e.p as { dirs: string[] }).dirs.includes('')));
    expect((await host.handle('tree.list', { dir: '' })).entries.map((e) => e.name)).toEqual(['fresh', 'a.txt']);
  });
});
