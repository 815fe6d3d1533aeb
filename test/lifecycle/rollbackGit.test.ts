// Rollback, hunk revert, approval and "commit approved" on real git repositories and folders.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../support/toolHarness';
import { git } from '../support/tmp';
import { approveModification, commitApproved } from '../../src/main/services/modlog/facts';

let h: Harness;
afterEach(() => h?.cleanup());

async function repo(files: Record<string, string>) {
  h = await harness({ git: true });
  git(h.root, 'config', 'user.email', 't@example.com');
  git(h.root, 'config', 'user.name', 'T');
  for (const [f, c] of Object.entries(files)) await h.write(f, c);
  git(h.root, 'add', '.');
  git(h.root, 'commit', '-q', '-m', 'base');
}
const entry = (f: string) => git(h.root, 'ls-files', '-s', '--', f).trim();
const id = (r: { data?: Record<string, unknown> }) => r.data!.modification_id as string;

describe('code_rollback', () => {
  it('restores the content and the index entry exactly, and can itself be rolled back', async () => {
    await repo({ 'a.txt': 'one\ntwo\n' });
    git(h.root, 'rm', '-q', '--cached', 'a.txt');
    await h.write('a.txt', 'one\ntwo\n');
    git(h.root, 'add', 'a.txt');
    const staged = entry('a.txt');
    await h.call('read_file', { path: 'a.txt' });
    const m = await h.call('code_modify', { file_path: 'a.txt', operation: 'replace', line_range: [2, 2], new_content: 'TWO' });
    const r = await h.call('code_rollback', { modification_id: id(m) });
    expect(r.data).toMatchObject({ status: 'rolled_back', file: 'a.txt', merged: false, lines_restored: 1 });
    expect(await h.read('a.txt')).toBe('one\ntwo\n');
    expect(entry('a.txt')).toBe(staged);
    const again = await h.call('code_rollback', { modification_id: id(m) });
    expect(again.error?.code).toBe('INVALID_ARGUMENT');
    expect(again.error?.message).toContain(r.data!.rollback_id as string);
    // Rolling back the rollback re-applies the modification.
    await h.call('code_rollback', { modification_id: r.data!.rollback_id });
    expect(await h.read('a.txt')).toBe('one\nTWO\n');
    const log = await h.call('modification_log', {});
    const byId = Object.fromEntries((log.data!.modifications as { modification_id: string; status: string }[]).map((x) => [x.modification_id, x.status]));
    expect(byId).toEqual({ [id(m)]: 'applied', [r.data!.rollback_id as string]: 'rolled_back', [(log.data!.modifications as { modification_id: string }[])[0].modification_id]: 'applied' });
  });

  it('deletes a file the modification created (index entry removed) and recreates one it deleted', async () => {
    await repo({ 'keep.txt': 'k\n' });
    const created = await h.call('write_file', { path: 'new/made.txt', content: 'made\n' });
    expect(entry('new/made.txt')).not.toBe('');
    await h.call('code_rollback', { modification_id: id(created) });
    expect(existsSync(path.join(h.root, 'new/made.txt'))).toBe(false);
    expect(entry('new/made.txt')).toBe('');
    const before = entry('keep.txt');
    const del = await h.ctx.modlog.apply({ file: 'keep.txt', abs: path.join(h.root, 'keep.txt'), content: null, tool: 'test', operation: 'delete_file', sessionId: 's' });
    expect(entry('keep.txt')).toBe('');
    await h.call('code_rollback', { modification_id: del.modificationId });
    expect(await h.read('keep.txt')).toBe('k\n');
    expect(entry('keep.txt')).toBe(before);
  });

  it('merges the reversal with later non-overlapping changes, by the user or the agent', async () => {
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
    await repo({ 'f.txt': lines.join('\n') + '\n' });
    await h.call('read_file', { path: 'f.txt' });
    const m1 = await h.call('code_modify', { file_path: 'f.txt', operation: 'replace', line_range: [2, 2], new_content: 'agent 2' });
    await h.call('code_modify', { file_path: 'f.txt', operation: 'replace', line_range: [18, 18], new_content: 'agent 18' });
    await h.write('f.txt', (await h.read('f.txt')).replace('line 10', 'user 10'));
    const r = await h.call('code_rollback', { modification_id: id(m1) });
    expect(r.data).toMatchObject({ merged: true });
    const now = await h.read('f.txt');
    expect(now).toContain('line 2\n');
    expect(now).toContain('user 10\n');
    expect(now).toContain('agent 18\n');
    expect(git(h.root, 'show', ':f.txt')).toBe(now);
  });

  it('refuses with ROLLBACK_CONFLICT naming the later modifications, and changes nothing', async () => {
    await repo({ 'f.txt': 'a\nb\nc\n' });
    await h.call('read_file', { path: 'f.txt' });
    const m1 = await h.call('code_modify', { file_path: 'f.txt', operation: 'replace', line_range: [2, 2], new_content: 'B1' });
    const m2 = await h.call('code_modify', { file_path: 'f.txt', operation: 'replace', line_range: [2, 2], new_content: 'B2' });
    const logBefore = (await h.ctx.modlog.read()).entries.length;
    const index = git(h.root, 'ls-files', '-s');
    const r = await h.call('code_rollback', { modification_id: id(m1) });
    expect(r.error?.code).toBe('ROLLBACK_CONFLICT');
    expect(r.error?.message).toContain(id(m2));
    expect(r.error?.message).toContain('Nothing was changed');
    expect(await h.read('f.txt')).toBe('a\nB2\nc\n');
    expect((await h.ctx.modlog.read()).entries.length).toBe(logBefore);
    expect(git(h.root, 'ls-files', '-s')).toBe(index);
    // Newest first works: roll back m2, then m1 is clean.
    await h.call('code_rollback', { modification_id: id(m2) });
    expect((await h.call('code_rollback', { modification_id: id(m1) })).data).toMatchObject({ merged: false });
    expect(await h.read('f.txt')).toBe('a\nb\nc\n');
  });

  it('reverts one hunk of a two-hunk modification and leaves the other', async () => {
    const lines = Array.from({ length: 30 }, (_, i) => `l${i + 1}`);
    await repo({ 'f.txt': lines.join('\n') + '\n' });
    await h.call('read_file', { path: 'f.txt' });
    const changed = lines.map((l, i) => (i === 2 ? 'TOP' : i === 26 ? 'BOTTOM' : l)).join('\n') + '\n';
    const w = await h.call('write_file', { path: 'f.txt', content: changed });
    const r = await h.call('code_rollback', { modification_id: id(w), hunk: 1 });
    expect(r.ok, r.output).toBe(true);
    const now = await h.read('f.txt');
    expect(now).toContain('TOP\n');
    expect(now).not.toContain('BOTTOM');
    expect(now).toContain('l27\n');
    expect((await h.call('code_rollback', { modification_id: id(w), hunk: 5 })).error?.code).toBe('INVALID_ARGUMENT');
    expect((await h.call('code_rollback', { modification_id: 'mod-20990101-000000-001' })).error?.code).toBe('MODIFICATION_NOT_FOUND');
  });

  it('works in a folder that is not a repository (no staging)', async () => {
    h = await harness();
    await h.write('p.txt', 'x\ny\n');
    await h.call('read_file', { path: 'p.txt' });
    const m = await h.call('code_modify', { file_path: 'p.txt', operation: 'delete', line_range: [1, 1] });
    expect(m.data!.git_staged).toBe(false);
    const r = await h.call('code_rollback', { modification_id: id(m) });
    expect(r.data).toMatchObject({ git_staged: false, merged: false });
    expect(await h.read('p.txt')).toBe('x\ny\n');
  });
});

describe('reviews', () => {
  it('commits exactly the approved changes once every modification of their files is approved', async () => {
    await repo({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'other.txt': 'o\n' });
    await h.call('read_file', { path: 'a.txt' });
    await h.call('read_file', { path: 'b.txt' });
    const a1 = await h.call('code_modify', { file_path: 'a.txt', operation: 'insert_after', line: 1, new_content: 'a2' });
    const a2 = await h.call('code_modify', { file_path: 'a.txt', operation: 'insert_after', line: 2, new_content: 'a3' });
    await h.call('code_modify', { file_path: 'b.txt', operation: 'insert_after', line: 1, new_content: 'b2' });
    // Something the user staged themselves stays staged and out of the commit.
    await h.write('other.txt', 'user staged\n');
    git(h.root, 'add', 'other.txt');
    await approveModification(h.ctx.modlog, id(a1));
    await expect(commitApproved(h.ctx.modlog, 'approved work')).rejects.toThrow(new RegExp(id(a2)));
    await approveModification(h.ctx.modlog, id(a2));
    // Unlogged edits on disk are not part of what was approved.
    await h.write('a.txt', 'a\na2\na3\nunreviewed\n');
    const out = await commitApproved(h.ctx.modlog, 'approved work');
    expect(out.files).toEqual(['a.txt']);
    expect(git(h.root, 'show', '--stat', '--format=%s', 'HEAD').trim().split('\n')[0]).toBe('approved work');
    expect(git(h.root, 'show', 'HEAD:a.txt')).toBe('a\na2\na3\n');
    expect(git(h.root, 'show', 'HEAD:b.txt')).toBe('b\n');
    expect(git(h.root, 'diff', '--cached', '--name-only').trim().split('\n').sort()).toEqual(['b.txt', 'other.txt']);
    const log = await h.call('modification_log', { file: 'a.txt' });
    expect((log.data!.modifications as { status: string }[]).map((m) => m.status)).toEqual(['approved', 'approved']);
  });
});
