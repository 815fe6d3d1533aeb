import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../../../../test/support/toolHarness';
import { git } from '../../../../test/support/tmp';

let h: Harness;
afterEach(() => h?.cleanup());

describe('write_file', () => {
  it('creates new files (and their folders) freely, staged and logged', async () => {
    h = await harness({ git: true });
    const r = await h.call('write_file', { path: 'src/deep/new.ts', content: 'export {};\n', reason: 'scaffold', correlation_id: 'req-1' });
    expect(r.ok).toBe(true);
    expect(r.data).toMatchObject({ path: 'src/deep/new.ts', operation: 'create', lines: 1, git_staged: true, modification_id: expect.stringMatching(/^mod-/) });
    expect(await h.read('src/deep/new.ts')).toBe('export {};\n');
    expect(git(h.root, 'diff', '--cached', '--name-only').trim()).toBe('src/deep/new.ts');
    const entry = (await h.ctx.modlog.read()).entries[0];
    expect(entry).toMatchObject({ tool: 'write_file', operation: 'create', reason: 'scaffold', correlation_id: 'req-1', session_id: h.ctx.session.id });
  });

  it('overwrites an existing file only after a read, and only if unchanged since', async () => {
    h = await harness();
    await h.write('a.txt', 'one\n');
    expect((await h.call('write_file', { path: 'a.txt', content: 'two\n' })).error?.code).toBe('FILE_NOT_READ');
    await h.call('read_file', { path: 'a.txt' });
    await h.write('a.txt', 'changed elsewhere\n');
    expect((await h.call('write_file', { path: 'a.txt', content: 'two\n' })).error?.code).toBe('FILE_CHANGED_SINCE_READ');
    expect(await h.read('a.txt')).toBe('changed elsewhere\n');
    await h.call('read_file', { path: 'a.txt' });
    expect((await h.call('write_file', { path: 'a.txt', content: 'two\n' })).data).toMatchObject({ operation: 'overwrite' });
    // Its own write counts as seen: a second write needs no new read.
    expect((await h.call('write_file', { path: 'a.txt', content: 'three\n' })).ok).toBe(true);
  });

  it('a rewrite that changes two lines of twenty logs two changed lines, not twenty', async () => {
    h = await harness();
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
    await h.write('long.txt', lines.join('\n') + '\n');
    await h.call('read_file', { path: 'long.txt' });
    const next = lines.map((l, i) => (i === 4 || i === 9 ? `${l} changed` : l));
    expect((await h.call('write_file', { path: 'long.txt', content: next.join('\n') + '\n' })).ok).toBe(true);
    const entry = (await h.ctx.modlog.read()).entries.at(-1);
    expect(entry).toMatchObject({ operation: 'overwrite', lines_changed: 2 });
  });

  it('keeps an existing file’s CRLF endings and BOM', async () => {
    h = await harness();
    await h.write('w.txt', '\uFEFFa\r\nb\r\n');
    await h.call('read_file', { path: 'w.txt' });
    const r = await h.call('write_file', { path: 'w.txt', content: 'a\nc\n' });
    expect(r.output).toContain('CRLF line endings and the UTF-8 BOM');
    expect(await h.read('w.txt')).toBe('\uFEFFa\r\nc\r\n');
  });

  it('never writes through a symlink, nor outside the workspace', async () => {
    h = await harness();
    await h.write('real.txt', 'r');
    await h.link('alias.txt', 'real.txt');
    await writeFile(path.join(h.sandbox, 'existing.txt'), 'theirs');
    await h.link('out-link.txt', path.join(h.sandbox, 'existing.txt'));
    await h.link('dangling.txt', path.join(h.sandbox, 'outside.txt'));
    await h.call('read_file', { path: 'real.txt' });
    expect((await h.call('write_file', { path: 'alias.txt', content: 'x' })).error?.code).toBe('INVALID_PATH');
    expect((await h.call('write_file', { path: 'out-link.txt', content: 'x' })).error?.code).toBe('PATH_OUTSIDE_WORKSPACE');
    expect((await h.call('write_file', { path: 'dangling.txt', content: 'x' })).error?.code).toBe('INVALID_PATH');
    expect(await readFile(path.join(h.sandbox, 'existing.txt'), 'utf8')).toBe('theirs');
    expect((await h.call('write_file', { path: '../outside.txt', content: 'x' })).error?.code).toBe('PATH_OUTSIDE_WORKSPACE');
    expect(existsSync(path.join(h.sandbox, 'outside.txt'))).toBe(false);
    expect(await h.read('real.txt')).toBe('r');
  });

  it('refuses to write Loupe’s or git’s own state', async () => {
    h = await harness({ git: true });
    expect((await h.call('write_file', { path: '.git/hooks/pre-commit', content: 'rm -rf /' })).error?.code).toBe('INVALID_PATH');
    expect((await h.call('write_file', { path: '.loupe/config.json', content: '{}' })).error?.code).toBe('INVALID_PATH');
  });

  it('writes nothing when the content is already there', async () => {
    h = await harness();
    await h.write('same.txt', 'x');
    await h.call('read_file', { path: 'same.txt' });
    expect((await h.call('write_file', { path: 'same.txt', content: 'x' })).data).toMatchObject({ operation: 'none' });
    expect((await h.ctx.modlog.read()).entries).toEqual([]);
  });

  it('refuses to overwrite a binary file', async () => {
    h = await harness();
    await writeFile(path.join(h.root, 'b.bin'), Buffer.from([0, 1, 2]));
    expect((await h.call('write_file', { path: 'b.bin', content: 'x' })).error?.code).toBe('BINARY_FILE');
    expect(await readFile(path.join(h.root, 'b.bin'))).toEqual(Buffer.from([0, 1, 2]));
  });
});
