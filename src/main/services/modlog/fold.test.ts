// The folded index: statuses, rollback links, tests, and incremental reading of the file.
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/support/tmp';
import { LogIndex } from './fold';

let cleanup: (() => Promise<void>) | null = null;
afterEach(() => cleanup?.());

const mod = (id: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ type: 'modification', modification_id: id, timestamp: 't', session_id: 's', tool: 'x', operation: 'edit', file: 'a.ts', before_sha256: null, after_sha256: null, git_staged: false, ...extra }) + '\n';

async function logFile() {
  const t = await tempDir();
  cleanup = t.cleanup;
  return path.join(t.dir, 'modifications.jsonl');
}

describe('LogIndex', () => {
  it('folds status, rollback links, approvals and latest tests; a rollback of a rollback re-applies', async () => {
    const file = await logFile();
    await writeFile(file, mod('m1', { correlation_id: 'c' }) + mod('m2', { file: 'b.ts' }) + JSON.stringify({ type: 'review', modification_id: 'm2', verdict: 'approved' }) + '\n');
    await appendFile(file, JSON.stringify({ type: 'test_results', modification_id: 'm1', passed: 1, failed: 1, skipped: 0, duration_ms: 5, status: 'failed' }) + '\n');
    await appendFile(file, mod('r1', { operation: 'rollback', rolls_back: 'm1' }));
    const idx = new LogIndex(file);
    let q = (await idx.sync()).query();
    expect(q.modifications.map((m) => [m.modification_id, m.status])).toEqual([['r1', 'applied'], ['m2', 'approved'], ['m1', 'rolled_back']]);
    expect(q.modifications[2]).toMatchObject({ rolled_back_by: 'r1', test_results: { passed: 1, failed: 1, status: 'failed' } });
    await appendFile(file, mod('r2', { operation: 'rollback', rolls_back: 'r1' }));
    q = (await idx.sync()).query({ correlation_id: 'c' });
    expect(q.modifications).toMatchObject([{ modification_id: 'm1', status: 'applied' }]);
    expect((await idx.sync()).query({ status: 'rolled_back' }).modifications.map((m) => m.modification_id)).toEqual(['r1']);
  });

  it('a diagnostics fact (problems that came after the write) replaces the line\'s own; the latest wins', async () => {
    const file = await logFile();
    const unavailable = { introduced: [], resolved_count: 0, available: false, introduced_count: 0, errors: 0, warnings: 0, server: 'ts', reason: 'timed out' };
    const late = (errors: number) => JSON.stringify({ type: 'diagnostics', modification_id: 'm1', diagnostics: { ...unavailable, available: true, reason: undefined, introduced_count: errors, errors }, timestamp: 't' }) + '\n';
    await writeFile(file, mod('m1', { diagnostics: unavailable }) + mod('m2'));
    const idx = new LogIndex(file);
    const view = async (id: string) => (await idx.sync()).query().modifications.find((m) => m.modification_id === id)!;
    expect((await view('m1')).diagnostics).toEqual(unavailable);
    await appendFile(file, late(1));
    expect((await view('m1')).diagnostics).toMatchObject({ available: true, errors: 1 });
    await appendFile(file, late(2) + JSON.stringify({ type: 'diagnostics', modification_id: 'm2', diagnostics: 'not an object' }) + '\n');
    expect((await view('m1')).diagnostics).toMatchObject({ available: true, errors: 2 });
    expect(await view('m2')).not.toHaveProperty('diagnostics');
  });

  it('folds hunk rollbacks into reverted_hunks; rolling back a hunk rollback clears its hunk, and re-applies it when rolled back in turn', async () => {
    const file = await logFile();
    const hunkBack = (id: string, hunk: number, extra: Record<string, unknown> = {}) => mod(id, { operation: 'rollback', rolls_back: 'm1', hunk, hunk_count: 3, ...extra });
    await writeFile(file, mod('m1') + hunkBack('h2', 2) + hunkBack('h0', 0));
    const view = async (id: string) => (await new LogIndex(file).sync()).query().modifications.find((m) => m.modification_id === id)!;
    // The modification keeps its status; its hunk rollbacks are entries of their own.
    expect(await view('m1')).toMatchObject({ status: 'applied', reverted_hunks: [0, 2], reverted_hunks_by: ['h0', 'h2'], hunk_count: 3 });
    expect(await view('h0')).not.toHaveProperty('reverted_hunks');
    expect(await view('h0')).not.toHaveProperty('hunk_count');

    await appendFile(file, mod('u0', { operation: 'rollback', rolls_back: 'h0' }));
    expect(await view('m1')).toMatchObject({ reverted_hunks: [2], reverted_hunks_by: ['h2'], hunk_count: 3 });
    expect(await view('h0')).toMatchObject({ status: 'rolled_back', rolled_back_by: 'u0' });
    await appendFile(file, mod('u1', { operation: 'rollback', rolls_back: 'u0' }));
    expect((await view('m1')).reverted_hunks).toEqual([0, 2]);
    await appendFile(file, mod('u2', { operation: 'rollback', rolls_back: 'h2' }) + mod('u3', { operation: 'rollback', rolls_back: 'h0' }));
    expect(await view('m1')).not.toHaveProperty('reverted_hunks');
    expect(await view('m1')).not.toHaveProperty('hunk_count');
  });

  it('reads hunk rollbacks written before hunk_count was recorded, and ignores malformed hunks', async () => {
    const file = await logFile();
    await writeFile(file, mod('m1') + mod('r1', { operation: 'rollback', rolls_back: 'm1', hunk: 1 }) + mod('r2', { operation: 'rollback', rolls_back: 'm1', hunk: -1 }));
    const [r2, r1, m1] = (await new LogIndex(file).sync()).query().modifications;
    expect(m1).toMatchObject({ modification_id: 'm1', status: 'applied', reverted_hunks: [1] });
    expect(m1).not.toHaveProperty('hunk_count');
    // A hunk rollback is never mistaken for a whole one.
    expect(m1).not.toHaveProperty('rolled_back_by');
    expect([r1.status, r2.status]).toEqual(['applied', 'applied']);
  });

  it('reads only complete lines, picks up the rest when it is written, and skips torn ones', async () => {
    const file = await logFile();
    const line = mod('m2');
    await writeFile(file, mod('m1') + '{"type":"modif\n' + line.slice(0, 20));
    const idx = new LogIndex(file);
    expect((await idx.sync()).query().total).toBe(1);
    await appendFile(file, line.slice(20));
    expect((await idx.sync()).query().modifications.map((m) => m.modification_id)).toEqual(['m2', 'm1']);
    // A rewritten file (new inode or shorter) is read from the start.
    await writeFile(file, mod('x1'));
    expect((await idx.sync()).query().modifications.map((m) => m.modification_id)).toEqual(['x1']);
  });

  it('queries 10,000 entries by correlation, file and limit, newest first', async () => {
    const file = await logFile();
    await writeFile(file, Array.from({ length: 10_000 }, (_, i) => mod(`m${i}`, { correlation_id: `c${i % 100}`, file: `f${i % 7}.ts` })).join(''));
    const fold = await new LogIndex(file).sync();
    const byC = fold.query({ correlation_id: 'c42', limit: 3 });
    expect(byC.total).toBe(100);
    expect(byC.modifications.map((m) => m.modification_id)).toEqual(['m9942', 'm9842', 'm9742']);
    expect(fold.query({ file: 'f3.ts', correlation_id: 'c3' }).modifications.every((m) => m.file === 'f3.ts' && m.correlation_id === 'c3')).toBe(true);
    expect((await readFile(file, 'utf8')).length).toBeGreaterThan(0);
  });
});
