import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../../../../test/support/toolHarness';
import { git } from '../../../../test/support/tmp';

let h: Harness;
afterEach(() => h?.cleanup());

describe('read_file', () => {
  it('numbers lines cat -n style by default and reports language, lines and total', async () => {
    h = await harness();
    await h.write('src/a.ts', 'const a = 1;\n\nexport { a };\n');
    const r = await h.call('read_file', { path: 'src/a.ts' });
    expect(r.output).toBe('     1→const a = 1;\n     2→\n     3→export { a };');
    expect(r.data).toEqual({ path: 'src/a.ts', language: 'typescript', total_lines: 3, lines: [1, 3], git_status: null });
  });

  it('returns plain lines with offset/limit, numbered again with line_numbers', async () => {
    h = await harness();
    await h.write('n.txt', Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n'));
    const plain = await h.call('read_file', { path: 'n.txt', offset: 4, limit: 2 });
    expect(plain.output).toBe('line 4\nline 5\n[Showing lines 4-5 of 10. Call read_file with offset=6 for more.]');
    expect(plain.data).toMatchObject({ lines: [4, 5], total_lines: 10 });
    const numbered = await h.call('read_file', { path: 'n.txt', offset: 9, line_numbers: true });
    expect(numbered.output).toBe('     9→line 9\n    10→line 10\n[Showing lines 9-10 of 10.]');
  });

  it('shows 2000 lines at most and cuts long lines', async () => {
    h = await harness();
    await h.write('big.txt', Array.from({ length: 2500 }, (_, i) => (i === 0 ? 'x'.repeat(2100) : `l${i}`)).join('\n') + '\n');
    const r = await h.call('read_file', { path: 'big.txt' });
    expect(r.data).toMatchObject({ lines: [1, 2000], total_lines: 2500 });
    expect(r.output.split('\n')[0]).toBe(`     1→${'x'.repeat(2000)}… [100 more characters]`);
    expect(r.output).toContain('Call read_file with offset=2001 for more.');
  });

  it('strips CR and BOM from what it shows', async () => {
    h = await harness();
    await h.write('w.txt', '\uFEFFa\r\nb\r\n');
    expect((await h.call('read_file', { path: 'w.txt' })).output).toBe('     1→a\n     2→b');
  });

  it('says when a file is empty or the offset is past its end', async () => {
    h = await harness();
    await h.write('e.txt', '');
    expect((await h.call('read_file', { path: 'e.txt' })).output).toBe('[The file is empty.]');
    await h.write('s.txt', 'one\n');
    expect((await h.call('read_file', { path: 's.txt', offset: 5 })).output).toContain('past the end: the file has 1 lines');
  });

  it('refuses binary, oversized, missing and folder paths with their codes', async () => {
    h = await harness();
    await h.write('img.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]));
    await h.write('dir/x.txt', 'x');
    const huge = path.join(h.root, 'huge.log');
    await writeFile(huge, Buffer.alloc(10 * 1024 * 1024 + 1, 0x61));
    expect((await h.call('read_file', { path: 'img.png' })).error?.code).toBe('BINARY_FILE');
    expect((await h.call('read_file', { path: 'huge.log' })).error?.code).toBe('FILE_TOO_LARGE');
    expect((await h.call('read_file', { path: 'nope.txt' })).error?.code).toBe('FILE_NOT_FOUND');
    expect((await h.call('read_file', { path: 'dir' })).error?.code).toBe('INVALID_PATH');
  });

  it('refuses paths outside the workspace, however they are spelled', async () => {
    h = await harness();
    await writeFile(path.join(h.sandbox, 'secret.txt'), 'secret');
    await h.link('link-dir', h.sandbox);
    await h.link('link-file', path.join(h.sandbox, 'secret.txt'));
    for (const p of ['../secret.txt', path.join(h.sandbox, 'secret.txt'), '/etc/passwd', 'link-dir/secret.txt', 'link-file', '../ws-sibling/x']) {
      expect((await h.call('read_file', { path: p })).error?.code, p).toBe('PATH_OUTSIDE_WORKSPACE');
    }
  });

  it('reports the git status of the file in a repository', async () => {
    h = await harness({ git: true });
    await h.write('t.txt', 'x\n');
    expect((await h.call('read_file', { path: 't.txt' })).data?.git_status).toBe('?');
    git(h.root, 'add', 't.txt');
    git(h.root, 'commit', '-q', '-m', 't');
    expect((await h.call('read_file', { path: 't.txt' })).data?.git_status).toBe('clean');
    await h.write('t.txt', 'y\n');
    expect((await h.call('read_file', { path: 't.txt' })).data?.git_status).toBe('M');
  });

  it('records the read so a write may follow, and creates nothing in the workspace', async () => {
    h = await harness();
    await h.write('r.txt', 'x');
    expect((await h.call('write_file', { path: 'r.txt', content: 'y' })).error?.code).toBe('FILE_NOT_READ');
    await h.call('read_file', { path: 'r.txt', offset: 1, limit: 1 });
    expect((await h.call('write_file', { path: 'r.txt', content: 'y' })).ok).toBe(true);
  });

  describe("with the person's editor's copy (an ACP client's buffers)", () => {
    const editor = (h: Harness, held: Record<string, string | null>) => {
      const asked: string[] = [];
      h.ctx.buffers = {
        read: async (abs) => {
          asked.push(abs);
          return held[path.relative(h.root, abs)] ?? null;
        },
      };
      return asked;
    };

    it('reads the unsaved text, says so, and refuses an edit based on it while the disk differs', async () => {
      h = await harness();
      await h.write('a.ts', 'const a = 1;\n');
      const asked = editor(h, { 'a.ts': 'const a = 1;\nconst unsaved = 2;\n' });
      const r = await h.call('read_file', { path: 'a.ts' });
      expect(r.output).toContain('     2→const unsaved = 2;');
      expect(r.output).toContain("editor's copy, with changes not saved yet");
      expect(r.data).toMatchObject({ total_lines: 2 });
      expect(asked).toEqual([path.join(h.root, 'a.ts')]);
      // The model saw the editor's text: an edit of the disk is refused once, with the disk's text.
      const edit = await h.call('edit_file', { path: 'a.ts', old_str: 'const unsaved = 2;', new_str: 'const saved = 2;' });
      expect(edit.error?.code).toBe('FILE_CHANGED_SINCE_READ');
      expect(await h.read('a.ts')).toBe('const a = 1;\n');
    });

    it('reads the disk when the editor holds the same text (line endings and BOM aside) or cannot say', async () => {
      h = await harness();
      await h.write('w.txt', '\uFEFFone\r\ntwo\r\n');
      await h.write('x.txt', 'x\n');
      editor(h, { 'w.txt': 'one\ntwo\n', 'x.txt': null });
      const w = await h.call('read_file', { path: 'w.txt' });
      expect(w.output).toBe('     1→one\n     2→two');
      // Read as the disk: an edit follows without a second read, and keeps CRLF and the BOM.
      expect((await h.call('edit_file', { path: 'w.txt', old_str: 'two', new_str: 'three' })).ok).toBe(true);
      expect(await h.read('w.txt')).toBe('\uFEFFone\r\nthree\r\n');
      expect((await h.call('read_file', { path: 'x.txt' })).output).toBe('     1→x');
    });

    it('never asks the editor for a file the rules or the path guard refuse', async () => {
      h = await harness();
      await h.write('.env', 'SECRET=1\n');
      await h.write('.loupe/config.json', JSON.stringify({ permissions: [{ kind: 'read', pattern: '.env', action: 'deny' }] }));
      await writeFile(path.join(h.sandbox, 'outside.txt'), 'o');
      const asked = editor(h, { '.env': 'SECRET=2\n' });
      expect((await h.call('read_file', { path: '.env' })).error?.code).toBe('PERMISSION_DENIED');
      expect((await h.call('read_file', { path: '../outside.txt' })).error?.code).toBe('PATH_OUTSIDE_WORKSPACE');
      expect(asked).toEqual([]);
    });
  });
});

