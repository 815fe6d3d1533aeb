// The checkpointed fold answers exactly as folding the whole log does, and a checkpoint that does
// not match the log (corrupt, stale, cut, forged, a link) is ignored and rebuilt from the log.
import { appendFile, lstat, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/support/tmp';
import { LazyFolded } from './checkpoint';
import { decodeCheckpoint, encodeCheckpoint, HEADER, recOf, REC, writeRec, type CheckpointData } from './checkpointFormat';
import { CheckpointMismatchError } from './errors';
import { LogIndex, type Fold } from './fold';

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.map((c) => c()));
  cleanups = [];
});

async function workspace() {
  const t = await tempDir();
  cleanups.push(t.cleanup);
  return { root: t.dir, log: path.join(t.dir, 'modifications.jsonl'), cp: path.join(t.dir, 'modifications.index') };
}

const ids = Array.from({ length: 12 }, (_, i) => `m${i}`);
const id = fc.constantFrom(...ids);
const file = fc.constantFrom('a.ts', 'b.ts', 'src/ü.ts');
const corr = fc.option(fc.constantFrom('c1', 'c2'), { nil: undefined });
const group = fc.option(fc.constantFrom('cmd-1', 'undo-2'), { nil: undefined });
const base = { timestamp: 't', session_id: 's', tool: 'x', before_sha256: null, after_sha256: null, git_staged: false };
const line = fc.oneof(
  fc.record({ id, file, corr, group, reason: fc.option(fc.string({ maxLength: 8 }), { nil: undefined }) }).map(({ id, file, corr, group, reason }) =>
    JSON.stringify({ type: 'modification', modification_id: id, ...base, operation: 'edit', file, ...(corr ? { correlation_id: corr } : {}), ...(group ? { group_id: group } : {}), ...(reason !== undefined ? { reason } : {}) }),
  ),
  fc.record({ id, target: id, file, corr, group }).map(({ id, target, file, corr, group }) =>
    JSON.stringify({ type: 'modification', modification_id: id, ...base, operation: 'rollback', rolls_back: target, file, ...(corr ? { correlation_id: corr } : {}), ...(group ? { group_id: group } : {}) }),
  ),
  fc.record({ id, target: id, hunk: fc.integer({ min: 0, max: 3 }), file }).map(({ id, target, hunk, file }) => JSON.stringify({ type: 'modification', modification_id: id, ...base, operation: 'rollback', rolls_back: target, hunk, hunk_count: 4, file })),
  id.map((id) => JSON.stringify({ type: 'review', modification_id: id, verdict: 'approved', timestamp: 't' })),
  fc.record({ id, passed: fc.nat(9), failed: fc.nat(3) }).map(({ id, passed, failed }) => JSON.stringify({ type: 'test_results', modification_id: id, passed, failed, skipped: 0, duration_ms: 1, status: failed ? 'failed' : 'success', command: 'npm test' })),
  // Problems that came after the write's bound: the latest replaces the line's own.
  fc.record({ id, errors: fc.nat(3) }).map(({ id, errors }) =>
    JSON.stringify({ type: 'diagnostics', modification_id: id, diagnostics: { introduced: [], resolved_count: 0, available: true, introduced_count: errors, errors, warnings: 0, server: 's' }, timestamp: 't' }),
  ),
  fc.constantFrom('', 'not json', '{"type":"modification"}', '[1,2]'),
);

/** Every question the timeline and the tools ask of the fold. */
function answers(fold: Fold) {
  return {
    all: fold.query(),
    byCorr: fold.query({ correlation_id: 'c1' }),
    byFile: fold.query({ file: 'a.ts', limit: 2 }),
    rolled: fold.query({ status: 'rolled_back' }),
    later: fold.laterOn('a.ts', 'm1').map((f) => f.entry),
    groups: ['cmd-1', 'undo-2', 'none'].map((g) => fold.ofGroup(g).map((f) => [f.id, f.group, f.entry.group_id])),
    ids: fold.order.map((f) => [f.id, f.file, f.correlation, f.group, f.entry.modification_id]),
  };
}

const open = (w: { root: string; log: string; cp: string }, every = 1) => new LogIndex(w.log, w.root, { checkpoint: w.cp, checkpointEvery: every });
const restored = (fold: Fold) => fold.order.some((f) => f instanceof LazyFolded);

/** A log of `head` lines with a checkpoint written over them. */
async function checkpointed(w: { root: string; log: string; cp: string }, head: string[]) {
  await writeFile(w.log, head.map((l) => l + '\n').join(''));
  const idx = open(w);
  await idx.sync();
  await idx.dispose();
}

describe('modification log checkpoint', () => {
  it('a checkpoint at any point plus the tail folds exactly as the whole log does (generated logs)', async () => {
    const w = await workspace();
    await fc.assert(
      fc.asyncProperty(fc.array(line, { maxLength: 40 }), fc.array(line, { maxLength: 15 }), fc.boolean(), async (head, tail, tornTail) => {
        await rm(w.cp, { force: true });
        await checkpointed(w, head);
        await appendFile(w.log, tail.map((l) => l + '\n').join('') + (tornTail ? '{"type":"modific' : ''));
        const want = answers(await new LogIndex(w.log, w.root).sync());
        const idx = open(w, 1_000_000);
        const got = await idx.sync();
        expect(answers(got)).toEqual(want);
        if (head.some((l) => l.includes('"modification"') && l.includes('"rolls_back"') === false && l.includes('"file"'))) expect(restored(got)).toBe(true);
        await idx.dispose();
      }),
      { numRuns: 150 },
    );
  });

  it('keeps following the log after a restore: later appends, verdicts and rollbacks of restored entries', async () => {
    const w = await workspace();
    await fc.assert(
      fc.asyncProperty(fc.array(line, { minLength: 1, maxLength: 30 }), fc.array(fc.array(line, { maxLength: 6 }), { maxLength: 4 }), async (head, batches) => {
        await rm(w.cp, { force: true });
        await checkpointed(w, head);
        const idx = open(w, 3);
        await idx.sync();
        for (const b of batches) {
          await appendFile(w.log, b.map((l) => l + '\n').join(''));
          expect(answers(await idx.sync())).toEqual(answers(await new LogIndex(w.log, w.root).sync()));
        }
        await idx.dispose();
        // And what it saved on the way answers the same once more.
        const again = open(w);
        expect(answers(await again.sync())).toEqual(answers(await new LogIndex(w.log, w.root).sync()));
        await again.dispose();
      }),
      { numRuns: 60 },
    );
  });

  const mod = (i: number, extra = {}) => JSON.stringify({ type: 'modification', modification_id: `m${i}`, ...base, operation: 'edit', file: `f${i % 3}.ts`, correlation_id: `c${i % 2}`, ...extra });
  const lines = Array.from({ length: 50 }, (_, i) => mod(i, { reason: `r${i}` }));

  type Spoil = (w: { root: string; log: string; cp: string }) => Promise<void>;
  /** Rewrites the checkpoint with `edit` applied to its decoded contents. */
  const edit = (change: (d: CheckpointData) => void) => async (w: { cp: string }) => {
    const d = decodeCheckpoint(await readFile(w.cp))!;
    change(d);
    await writeFile(w.cp, encodeCheckpoint(d));
  };
  const spoils: [string, Spoil][] = [
    ['not a checkpoint (an older JSON one)', (w) => writeFile(w.cp, '{"v":2,"offset":10}')],
    ['an empty file', (w) => writeFile(w.cp, '')],
    ['its sections cut off', async (w) => writeFile(w.cp, (await readFile(w.cp)).subarray(0, 400))],
    ['another version', async (w) => writeFile(w.cp, Buffer.concat([Buffer.from('LOUPEFLD'), Buffer.from([9, 0, 0, 0]), (await readFile(w.cp)).subarray(12)]))],
    ['an offset past the log', edit((d) => (d.offset = 99_999_999))],
    ['an offset off a line end', edit((d) => (d.offset -= 7))],
    ['entries pointing elsewhere', edit((d) => d.rec.writeDoubleLE(3, 0))],
    ['an edited log prefix', async (w) => writeFile(w.log, (await readFile(w.log, 'utf8')).replace('"r7"', '"R7"'))],
    ['a log cut short', async (w) => writeFile(w.log, (await readFile(w.log, 'utf8')).split('\n').slice(0, 20).join('\n') + '\n')],
    ['a replaced log (new inode)', async (w) => {
      const text = await readFile(w.log, 'utf8');
      await rm(w.log);
      await writeFile(w.log, text.replace('"r3"', '"R3"'));
    }],
    ['a symlink to a valid checkpoint', async (w) => {
      const elsewhere = path.join(w.root, 'elsewhere.json');
      await writeFile(elsewhere, await readFile(w.cp));
      await rm(w.cp);
      await symlink(elsewhere, w.cp);
    }],
  ];

  it.each(spoils)('ignores a checkpoint with %s and folds the log instead', async (_name, spoil) => {
    const w = await workspace();
    await checkpointed(w, lines);
    await spoil(w);
    const idx = open(w, 1_000_000);
    const got = await idx.sync();
    if (_name !== 'entries pointing elsewhere') expect(restored(got)).toBe(false);
    const want = answers(await new LogIndex(w.log, w.root).sync());
    let a: ReturnType<typeof answers>;
    try {
      a = answers(got);
    } catch {
      // A forged checkpoint that passes the prefix check fails one read at most, then is dropped.
      a = answers(await idx.sync());
    }
    expect(a).toEqual(want);
    await idx.dispose();
  });

  it('a forged entry position fails at most one query, then the log is folded and the checkpoint dropped', async () => {
    const w = await workspace();
    await checkpointed(w, lines);
    // m0 pointed at m1's line: the prefix still matches, the line does not.
    await edit((d) => {
      const m1 = recOf(d.rec, REC);
      writeRec(d.rec, 0, { ...recOf(d.rec, 0), off: m1.off, len: m1.len });
    })(w);
    const idx = open(w, 1_000_000);
    const want = answers(await new LogIndex(w.log, w.root).sync());
    const first = await idx.sync();
    expect(restored(first)).toBe(true);
    expect(() => answers(first)).toThrow(/checkpoint did not match/);
    const again = await idx.sync();
    expect(restored(again)).toBe(false);
    expect(answers(again)).toEqual(want);
    await expect(readFile(w.cp)).rejects.toThrow(/ENOENT/);
    await idx.dispose();
  });

  it('any bytes of a checkpoint forged past its header fail at most one query, never anything else (generated)', async () => {
    const w = await workspace();
    await checkpointed(w, lines);
    const good = await readFile(w.cp);
    const want = answers(await new LogIndex(w.log, w.root).sync());
    let mismatches = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ at: fc.nat(good.length - HEADER - 1), bytes: fc.uint8Array({ minLength: 1, maxLength: 8 }) }), { minLength: 1, maxLength: 4 }), async (edits) => {
        const forged = Buffer.from(good);
        for (const e of edits) forged.set(e.bytes.subarray(0, forged.length - HEADER - e.at), HEADER + e.at);
        await writeFile(w.cp, forged);
        const idx = open(w, 1_000_000);
        try {
          const got = await idx.sync();
          try {
            answers(got);
          } catch (err) {
            // Only the checkpoint's own error, and the next look folds the log.
            expect(err).toBeInstanceOf(CheckpointMismatchError);
            mismatches++;
            expect(answers(await idx.sync())).toEqual(want);
          }
        } finally {
          await idx.dispose();
        }
      }),
      { numRuns: 300 },
    );
    expect(mismatches).toBeGreaterThan(0);
  });

  it('a link planted where the checkpoint goes is replaced, never written through', async () => {
    const w = await workspace();
    const outside = await tempDir();
    cleanups.push(outside.cleanup);
    const target = path.join(outside.dir, 'victim.json');
    await writeFile(target, 'keep');
    await writeFile(w.log, lines.map((l) => l + '\n').join(''));
    await symlink(target, w.cp);
    const idx = open(w);
    await idx.sync();
    await idx.dispose();
    expect(await readFile(target, 'utf8')).toBe('keep');
    expect((await lstat(w.cp)).isFile()).toBe(true);
    const again = open(w, 1_000_000);
    expect(restored(await again.sync())).toBe(true);
    await again.dispose();
  });

  it('a restored fold reads only what a query shows: rows become objects only when shown', async () => {
    const w = await workspace();
    const many = Array.from({ length: 3_000 }, (_, i) => mod(i, { correlation_id: `c${i % 300}` }));
    await checkpointed(w, many);
    const idx = open(w, 1_000_000);
    const fold = await idx.sync();
    const one = fold.query({ correlation_id: 'c7', limit: 5 });
    expect(one.total).toBe(10);
    expect(one.modifications.map((m) => m.modification_id)).toEqual(['m2707', 'm2407', 'm2107', 'm1807', 'm1507']);
    expect([...fold.base!.madeRows()].length).toBe(5);
    // A review of a checkpointed entry makes that one row, found by its id.
    await appendFile(w.log, JSON.stringify({ type: 'review', modification_id: 'm42', verdict: 'approved', timestamp: 't' }) + '\n');
    expect((await idx.sync()).query({ status: 'approved' }).modifications.map((m) => m.modification_id)).toEqual(['m42']);
    expect([...fold.base!.madeRows()].length).toBe(6);
    await idx.dispose();
  });

  it('replaces the JSON checkpoint of earlier versions', async () => {
    const w = await workspace();
    const old = `${w.cp}.json`;
    await writeFile(old, '{"v":2}');
    await writeFile(w.log, lines.map((l) => l + '\n').join(''));
    const idx = new LogIndex(w.log, w.root, { checkpoint: w.cp, checkpointEvery: 1, replaces: old });
    await idx.sync();
    await idx.dispose();
    await readFile(w.cp);
    await expect(readFile(old)).rejects.toThrow(/ENOENT/);
  });

  it('deleting the checkpoint costs one rebuild: the next open restores again', async () => {
    const w = await workspace();
    await checkpointed(w, lines);
    let idx = open(w, 1_000_000);
    expect(restored(await idx.sync())).toBe(true);
    await idx.dispose();
    await rm(w.cp);
    idx = open(w, 10);
    expect(restored(await idx.sync())).toBe(false);
    // Written after the answer, without waiting for dispose.
    await new Promise((r) => setImmediate(r));
    await idx.sync();
    await readFile(w.cp);
    await idx.dispose();
    idx = open(w, 1_000_000);
    expect(restored(await idx.sync())).toBe(true);
    await idx.dispose();
  });
});
