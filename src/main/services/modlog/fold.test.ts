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
