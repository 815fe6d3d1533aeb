// edit_file through the registry on real folders: the guards and bookkeeping around the pipeline.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../../../../test/support/toolHarness';
import { git } from '../../../../test/support/tmp';

let h: Harness;
afterEach(() => h?.cleanup());

async function readThenEdit(rel: string, content: string, args: Record<string, unknown>) {
  await h.write(rel, content);
  await h.call('read_file', { path: rel });
  return h.call('edit_file', { path: rel, ...args });
}

describe('edit_file guards (edit pipeline step 1)', () => {
  it('maps every path refusal to EDIT_INVALID_PATH', async () => {
    h = await harness();
    await mkdir(path.join(h.sandbox, 'ws-other'));
    await writeFile(path.join(h.sandbox, 'secret.txt'), 'secret');
    await h.link('out-dir', h.sandbox);
    await h.link('out-file', path.join(h.sandbox, 'secret.txt'));
    await h.link('dangling', path.join(h.sandbox, 'missing.txt'));
    await h.write('dir/x.txt', 'x');
    for (const p of ['../x', '/etc/passwd', 'out-dir/secret.txt', 'out-file', path.join(h.sandbox, 'ws-other/x'), 'dir', 'dangling', '.git/config']) {
      const r = await h.call('edit_file', { path: p, old_str: '', new_str: 'x' });
      expect(r.error?.code, p).toBe('EDIT_INVALID_PATH');
    }
  });

  it('refuses binary and oversized files with their own codes', async () => {
    h = await harness();
    await h.write('b.bin', Buffer.from([1, 0, 2]));
    await writeFile(path.join(h.root, 'big.txt'), Buffer.alloc(10 * 1024 * 1024 + 1, 0x61));
    expect((await h.call('edit_file', { path: 'b.bin', old_str: 'a', new_str: 'b' })).error?.code).toBe('BINARY_FILE');
    expect((await h.call('edit_file', { path: 'big.txt', old_str: 'a', new_str: 'b' })).error?.code).toBe('FILE_TOO_LARGE');
  });

  it('reports a missing file as EDIT_FILE_NOT_FOUND, and creates it with an empty old_str', async () => {
    h = await harness({ git: true });
    expect((await h.call('edit_file', { path: 'n/new.ts', old_str: 'x', new_str: 'y' })).error?.code).toBe('EDIT_FILE_NOT_FOUND');
    const r = await h.call('edit_file', { path: 'n/new.ts', old_str: '', new_str: 'a\nb\n' });
    expect(r.data).toMatchObject({ strategy: 'create', git_staged: true, preview: { before: '', after: '     1→a\n     2→b', lineNumber: 1 } });
    expect(await h.read('n/new.ts')).toBe('a\nb\n');
    // Created by this session, so it counts as read.
    expect((await h.call('edit_file', { path: 'n/new.ts', old_str: 'b', new_str: 'c' })).ok).toBe(true);
  });

  it('refuses an empty old_str on an existing file, even an empty one', async () => {
    h = await harness();
    expect((await readThenEdit('e.txt', '', { old_str: '', new_str: 'x' })).error?.code).toBe('ATTEMPT_TO_CREATE_EXISTING_FILE');
  });
});

describe('edit_file no-op calls (step 1)', () => {
  it('says old_str and new_str are identical, and where the file already holds the text, to a caller that read it', async () => {
    h = await harness();
    const r = await readThenEdit('n.ts', 'let a = 1;\nlet b = 2;\n', { old_str: 'let b = 2;', new_str: 'let b = 2;' });
    expect(r.error?.code).toBe('EDIT_NO_CHANGE');
    expect(r.error?.message).toContain('old_str and new_str are identical, and the file already holds this text at line 2');
    expect(r.error?.message).toContain('Do not send this call again');
    const absent = await h.call('edit_file', { path: 'n.ts', old_str: 'let c = 3;', new_str: 'let c = 3;' });
    expect(absent.error?.message).toContain('old_str is not in the file as given');
    const crlf = await h.call('edit_file', { path: 'n.ts', old_str: 'let a = 1;\nlet b = 2;', new_str: 'let a = 1;\r\nlet b = 2;' });
    expect(crlf.error?.message).toContain('differ only in line endings');
    expect(await h.read('n.ts')).toBe('let a = 1;\nlet b = 2;\n');
  });

  it('tells a caller that has not read the file, or not as it is now, nothing about its content', async () => {
    h = await harness();
    await h.write('s.ts', 'secret = 1\n');
    const unread = await h.call('edit_file', { path: 's.ts', old_str: 'secret = 1', new_str: 'secret = 1' });
    expect(unread.error?.code).toBe('EDIT_NO_CHANGE');
    expect(unread.error?.message).toContain('so this call changes nothing.');
    await h.call('read_file', { path: 's.ts' });
    await h.write('s.ts', 'secret = 2\n');
    const stale = await h.call('edit_file', { path: 's.ts', old_str: 'secret = 2', new_str: 'secret = 2' });
    expect(stale.error?.message).not.toMatch(/holds|not in the file/);
  });
});

describe('edit_file read-first (step 2)', () => {
  it('wants a read first, and a fresh snippet when the file changed since', async () => {
    h = await harness();
    await h.write('r.ts', 'a\nb\nc\n');
    expect((await h.call('edit_file', { path: 'r.ts', old_str: 'b', new_str: 'B' })).error?.code).toBe('FILE_NOT_READ');
    await h.call('read_file', { path: 'r.ts' });
    await h.write('r.ts', 'a\nbb\nc\n');
    const r = await h.call('edit_file', { path: 'r.ts', old_str: 'b\n', new_str: 'B\n' });
    expect(r.error?.code).toBe('FILE_CHANGED_SINCE_READ');
    expect(r.error?.message).toContain('     2→bb');
    expect(await h.read('r.ts')).toBe('a\nbb\nc\n');
    // The snippet is what the model now knows: a retry against it goes through.
    expect((await h.call('edit_file', { path: 'r.ts', old_str: 'bb', new_str: 'B' })).ok).toBe(true);
  });

  it('serialises concurrent edits to one file, each on the result of the last', async () => {
    h = await harness();
    await readThenEdit('s.txt', 'a b c d\n', { old_str: 'a', new_str: 'A' });
    const results = await Promise.all(['b', 'c', 'd'].map((x) => h.call('edit_file', { path: 's.txt', old_str: x, new_str: x.toUpperCase() })));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(await h.read('s.txt')).toBe('A B C D\n');
  });
});

describe('edit_file results (steps 8–9)', () => {
  it('returns the numbered preview with 3 lines of context, and logs reason and correlation id', async () => {
    h = await harness({ git: true });
    const file = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    const r = await readThenEdit('p.txt', file, { old_str: 'line 5', new_str: 'five', reason: 'rename', correlation_id: 'bug-7' });
    expect(r.data).toMatchObject({
      occurrences: 1,
      strategy: 'exact',
      llm_calls: 0,
      git_staged: true,
      lines_affected: [5, 5],
      preview: {
        lineNumber: 5,
        before: '     2→line 2\n     3→line 3\n     4→line 4\n     5→line 5\n     6→line 6\n     7→line 7\n     8→line 8',
        after: '     2→line 2\n     3→line 3\n     4→line 4\n     5→five\n     6→line 6\n     7→line 7\n     8→line 8',
      },
    });
    expect((await h.ctx.modlog.read()).entries[0]).toMatchObject({ tool: 'edit_file', operation: 'edit', reason: 'rename', correlation_id: 'bug-7', lines_affected: [5, 5], lines_changed: 1 });
    expect(git(h.root, 'diff', '--cached', '--name-only').trim()).toBe('p.txt');
  });

  it('logs the lines that changed, not the lines old_str spans', async () => {
    h = await harness();
    const lines = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`);
    const span = lines.slice(1, 9).join('\n');
    const r = await readThenEdit('w.txt', lines.join('\n') + '\n', { old_str: span, new_str: span.replace('line 3', 'three').replace('line 8', 'eight') });
    expect(r.ok).toBe(true);
    expect((await h.ctx.modlog.read()).entries[0]).toMatchObject({ lines_affected: [2, 9], lines_changed: 2 });
  });

  it('keeps CRLF, BOM and the missing final newline of the file', async () => {
    h = await harness();
    const r = await readThenEdit('w.txt', '\uFEFFa\r\nb\r\nc', { old_str: 'b\nc', new_str: 'B\nC\nD' });
    expect(r.ok).toBe(true);
    expect(await h.read('w.txt')).toBe('\uFEFFa\r\nB\r\nC\r\nD');
  });

  it('validates arguments with zod and says what is wrong', async () => {
    h = await harness();
    const r = await h.call('edit_file', { path: 'a', old_str: 1 });
    expect(r.error?.code).toBe('INVALID_ARGUMENT');
    expect(r.error?.message).toMatch(/old_str: .*string.*new_str/s);
  });
});
