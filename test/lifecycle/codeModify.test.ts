// code_modify through the real registry on real temp folders.
import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../support/toolHarness';
import { git } from '../support/tmp';

let h: Harness;
afterEach(() => h?.cleanup());

async function setup(content: string, useGit = false, sandbox?: 'off') {
  h = await harness({ git: useGit, sandbox });
  await h.write('src/a.ts', content);
  if (useGit) {
    git(h.root, 'add', '.');
    git(h.root, 'commit', '-q', '-m', 'base');
  }
  await h.call('read_file', { path: 'src/a.ts' });
}

const modify = (args: Record<string, unknown>) => h.call('code_modify', { file_path: 'src/a.ts', ...args });

describe('code_modify', () => {
  it('replaces an inclusive 1-based range and shifts unindented content to the target indentation', async () => {
    await setup('class A {\n  run() {\n    old();\n    older();\n  }\n}\n');
    const res = await modify({ operation: 'replace', line_range: [3, 4], new_content: 'if (x) {\n  fresh();\n}', reason: 'fix', correlation_id: 'bug-1' });
    expect(res.ok, res.output).toBe(true);
    expect(await h.read('src/a.ts')).toBe('class A {\n  run() {\n    if (x) {\n      fresh();\n    }\n  }\n}\n');
    expect(res.data).toMatchObject({ status: 'success', lines_changed: 3, lines_affected: [3, 5], git_staged: false, test_results: null, warnings: [] });
    expect(res.data!.modification_id).toMatch(/^mod-\d{8}-\d{6}-\d{3}$/);
    expect(res.data!.git_diff).toBe(
      'diff --git a/src/a.ts b/src/a.ts\n--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,6 +1,7 @@\n class A {\n   run() {\n-    old();\n-    older();\n+    if (x) {\n+      fresh();\n+    }\n   }\n }\n',
    );
  });

  it('keeps already-indented content as written', async () => {
    await setup('def f():\n    return 1\n');
    await modify({ operation: 'insert_before', line: 2, new_content: '  x = 2' });
    expect(await h.read('src/a.ts')).toBe('def f():\n  x = 2\n    return 1\n');
  });

  it('inserts before and after, deletes, and keeps CRLF, a BOM and a missing final newline', async () => {
    await setup('\uFEFFone\r\ntwo\r\nthree');
    expect((await modify({ operation: 'insert_after', line: 3, new_content: 'four\n' })).ok).toBe(true);
    expect(await h.read('src/a.ts')).toBe('\uFEFFone\r\ntwo\r\nthree\r\nfour');
    expect((await modify({ operation: 'insert_before', line: 1, new_content: 'zero' })).ok).toBe(true);
    expect((await modify({ operation: 'insert_after', line: 0, new_content: 'top' })).ok).toBe(true);
    expect(await h.read('src/a.ts')).toBe('\uFEFFtop\r\nzero\r\none\r\ntwo\r\nthree\r\nfour');
    const del = await modify({ operation: 'delete', line_range: [5, 6] });
    expect(del.data).toMatchObject({ lines_changed: 2 });
    expect(await h.read('src/a.ts')).toBe('\uFEFFtop\r\nzero\r\none\r\ntwo');
  });

  it('warns, but writes, when brackets stop balancing', async () => {
    await setup('function f() {\n  return [1, 2];\n}\n');
    const res = await modify({ operation: 'replace', line_range: [3, 3], new_content: '// closing brace removed' });
    expect(res.ok).toBe(true);
    expect(res.data!.warnings).toEqual([expect.stringContaining("1 more '{'")]);
    expect(res.output).toContain('Warning:');
    const fine = await modify({ operation: 'insert_after', line: 3, new_content: '}' });
    expect(fine.data!.warnings).toEqual([]);
  });

  it('refuses out-of-range lines with INVALID_ARGUMENT and writes nothing', async () => {
    await setup('a\nb\n');
    for (const args of [{ operation: 'replace', line_range: [2, 3], new_content: 'x' }, { operation: 'delete', line_range: [0, 1] }, { operation: 'insert_before', line: 3, new_content: 'x' }, { operation: 'replace', line_range: [2, 1], new_content: 'x' }, { operation: 'replace', line_range: [1, 1] }]) {
      const res = await modify(args);
      expect(res.error?.code, JSON.stringify(args)).toBe('INVALID_ARGUMENT');
    }
    expect(await h.read('src/a.ts')).toBe('a\nb\n');
    expect((await h.ctx.modlog.read()).entries).toEqual([]);
  });

  it('is read-first like edit_file: unread and changed-since-read files are refused; its own writes keep the view current', async () => {
    h = await harness();
    await h.write('x.txt', 'a\nb\n');
    expect((await h.call('code_modify', { file_path: 'x.txt', operation: 'delete', line_range: [1, 1] })).error?.code).toBe('FILE_NOT_READ');
    await h.call('read_file', { path: 'x.txt' });
    expect((await h.call('code_modify', { file_path: 'x.txt', operation: 'insert_after', line: 2, new_content: 'c' })).ok).toBe(true);
    expect((await h.call('code_modify', { file_path: 'x.txt', operation: 'insert_after', line: 3, new_content: 'd' })).ok).toBe(true);
    await h.write('x.txt', 'changed\n');
    const stale = await h.call('code_modify', { file_path: 'x.txt', operation: 'delete', line_range: [1, 1] });
    expect(stale.error?.code).toBe('FILE_CHANGED_SINCE_READ');
    expect(stale.output).toContain('     1→changed');
    expect(await h.read('x.txt')).toBe('changed\n');
  });

  it('stages the change so that git diff --cached shows exactly it', async () => {
    await setup('a\nb\nc\n', true);
    const res = await modify({ operation: 'replace', line_range: [2, 2], new_content: 'B' });
    expect(res.data!.git_staged).toBe(true);
    const cached = git(h.root, 'diff', '--cached', '--', 'src/a.ts');
    const hunks = (s: string) => s.slice(s.indexOf('@@'));
    expect(hunks(cached)).toBe(hunks(res.data!.git_diff as string));
  });

  it('auto_test runs the configured tests and attaches the results to the correlation', async () => {
    // The questions asked without a sandbox are the subject (run_tests' own tests cover it on).
    await setup('x\n', false, 'off');
    const command = "printf '# pass 3\\n# fail 0\\n# skipped 1\\n'";
    await h.write('.loupe/config.json', JSON.stringify({ tests: { typescript: command } }));
    // Untrusted, the configured command does not exist; trusted, running it still needs a yes.
    const untrusted = await modify({ operation: 'insert_after', line: 1, new_content: 'y', correlation_id: 'c-0', auto_test: true });
    expect(untrusted.data).toMatchObject({ test_results: null, test_error: { code: 'INVALID_ARGUMENT' } });
    await h.trust();
    await h.call('read_file', { path: 'src/a.ts' });
    const refused = await modify({ operation: 'insert_after', line: 1, new_content: 'y', correlation_id: 'c-0', auto_test: true });
    expect(refused.ok).toBe(true);
    expect(refused.output).toContain('The tests did not run: PERMISSION_DENIED');
    await h.write('.loupe/config.json', JSON.stringify({ tests: { typescript: command }, permissions: [{ kind: 'test', pattern: 'printf *', action: 'allow' }] }));
    await h.trust();
    await h.call('read_file', { path: 'src/a.ts' });
    const res = await modify({ operation: 'insert_after', line: 1, new_content: 'y', correlation_id: 'c-1', auto_test: true });
    expect(res.data!.test_results).toMatchObject({ status: 'success', passed: 3, failed: 0, skipped: 1 });
    const log = await h.call('modification_log', { correlation_id: 'c-1' });
    expect(log.data!.modifications).toMatchObject([{ modification_id: res.data!.modification_id, test_results: { passed: 3, failed: 0 } }]);
  });
});
