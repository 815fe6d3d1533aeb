// Hunk rollbacks on a real log: what the rollback line records, how the fold reads it back
// (also from a fresh process), and how rolling the rollback back clears it again.
import { readFile, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/support/tmp';
import { sha256 } from '../files/hash';
import { ModificationLog } from './modificationLog';
import { rollbackModification } from './rollback';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

const BEFORE = Array.from({ length: 30 }, (_, i) => `l${i + 1}`).join('\n') + '\n';
const AFTER = BEFORE.replace('l3\n', 'TOP\n').replace('l27\n', 'BOTTOM\n');

/** A folder with f.txt and one two-hunk modification of it. */
async function twoHunks() {
  const { dir, cleanup } = await tempDir('loupe-hunks-');
  cleanups.push(cleanup);
  await writeFile(path.join(dir, 'f.txt'), BEFORE);
  const log = new ModificationLog(dir);
  const m = await log.apply({ file: 'f.txt', abs: path.join(dir, 'f.txt'), content: Buffer.from(AFTER), tool: 'edit_file', operation: 'edit', sessionId: 's', reason: 'two changes' });
  const back = (modificationId: string, hunk?: number) => rollbackModification(log, { modificationId, hunk, sessionId: 's', tool: 'review' });
  const view = async (l: ModificationLog, id: string) => (await l.index().sync()).query().modifications.find((v) => v.modification_id === id)!;
  const disk = () => readFile(path.join(dir, 'f.txt'), 'utf8');
  return { dir, log, id: m.modificationId, back, view, disk };
}

describe('hunk rollbacks in the log', () => {
  it('records which hunk of which modification, out of how many, and survives a reload of the log', async () => {
    const { dir, log, id, back, view, disk } = await twoHunks();
    const r = await back(id, 1);
    expect(await disk()).toBe(BEFORE.replace('l3\n', 'TOP\n'));
    const lines = (await readFile(path.join(dir, '.loupe/modifications.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.at(-1)).toMatchObject({ modification_id: r.rollback_id, operation: 'rollback', rolls_back: id, hunk: 1, hunk_count: 2 });

    expect(await view(log, id)).toMatchObject({ status: 'applied', reverted_hunks: [1], hunk_count: 2 });
    // Another process (or the app after a restart) reads the same from the file.
    expect(await view(new ModificationLog(dir), id)).toMatchObject({ status: 'applied', reverted_hunks: [1], hunk_count: 2 });

    // All hunks reverted: every one is listed; the status stays about whole rollbacks.
    await back(id, 0);
    expect(await disk()).toBe(BEFORE);
    expect(await view(new ModificationLog(dir), id)).toMatchObject({ status: 'applied', reverted_hunks: [0, 1], hunk_count: 2 });
  });

  it('refuses to revert a hunk twice and changes nothing', async () => {
    const { dir, id, back, disk } = await twoHunks();
    const r = await back(id, 0);
    const logBefore = await readFile(path.join(dir, '.loupe/modifications.jsonl'), 'utf8');
    const fileBefore = await disk();
    await expect(back(id, 0)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining(`Hunk 0 of ${id} is already rolled back by ${r.rollback_id}`) });
    expect(await readFile(path.join(dir, '.loupe/modifications.jsonl'), 'utf8')).toBe(logBefore);
    expect(await disk()).toBe(fileBefore);
  });

  it('rolling back the hunk rollback clears the hunk, on disk and in the fold; it can then be reverted again', async () => {
    const { dir, log, id, back, view, disk } = await twoHunks();
    const r = await back(id, 0);
    const undo = await back(r.rollback_id);
    expect(await disk()).toBe(AFTER);
    expect(await view(log, id)).not.toHaveProperty('reverted_hunks');
    expect(await view(new ModificationLog(dir), id)).not.toHaveProperty('reverted_hunks');
    expect(await view(log, r.rollback_id)).toMatchObject({ status: 'rolled_back', rolled_back_by: undo.rollback_id });

    // Undoing the undo puts the hunk revert back in force.
    await back(undo.rollback_id);
    expect(await disk()).toBe(AFTER.replace('TOP\n', 'l3\n'));
    expect((await view(log, id)).reverted_hunks).toEqual([0]);

    // A fresh revert after a cleared one is allowed.
    const { log: log2, id: id2, back: back2, view: view2 } = await twoHunks();
    const first = await back2(id2, 1);
    await back2(first.rollback_id);
    await back2(id2, 1);
    expect((await view2(log2, id2)).reverted_hunks).toEqual([1]);
  });
});

describe('a file back to a modification\'s state by an edit outside Loupe', () => {
  it('is a conflict when a later modification is in effect: a deletion the person made after another session wrote the file stays', async () => {
    const { dir, cleanup } = await tempDir('loupe-returned-');
    cleanups.push(cleanup);
    const abs = path.join(dir, 'f.txt');
    await writeFile(abs, 'seed\n');
    const log = new ModificationLog(dir);
    const put = (content: string | null, sessionId: string) =>
      log.apply({ file: 'f.txt', abs, content: content === null ? null : Buffer.from(content), tool: 'write_file', operation: content === null ? 'delete_file' : 'create', sessionId });
    const gone = await put(null, 's2');
    await put('written by the other session\n', 's1');
    await rm(abs);
    // The file is absent, as the deletion left it, but by the person's hand after s1's write.
    await expect(rollbackModification(log, { modificationId: gone.modificationId, sessionId: 's2', tool: 'review' })).rejects.toMatchObject({ code: 'ROLLBACK_CONFLICT', outsideChanges: true });
    await expect(readFile(abs)).rejects.toMatchObject({ code: 'ENOENT' });
    // A modification with nothing after it still rolls back as before.
    const other = await put('other\n', 's2');
    await rollbackModification(log, { modificationId: other.modificationId, sessionId: 's2', tool: 'review' });
    await expect(readFile(abs)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('a modification whose blobs are both unreadable', () => {
  it('reports the planted link (UNSAFE_PATH) whichever read fails first', async () => {
    const { dir, log, id, back } = await twoHunks();
    const objects = path.join(dir, '.loupe/objects');
    const [linked, missing] = [sha256(Buffer.from(BEFORE)), sha256(Buffer.from(AFTER))];
    await writeFile(path.join(dir, 'elsewhere.txt'), 'not a blob\n');
    await unlink(path.join(objects, linked));
    await symlink(path.join(dir, 'elsewhere.txt'), path.join(objects, linked));
    await unlink(path.join(objects, missing));
    // The link's refusal is held back until the missing blob's read has failed, so without a
    // fixed preference the first rejection would be FILE_NOT_FOUND every time.
    const get = log.blobs.get.bind(log.blobs);
    let missingSettled!: Promise<unknown>;
    log.blobs.get = (sha: string) => {
      const p = get(sha);
      if (sha === missing) missingSettled = p.catch(() => undefined);
      return sha === linked ? p.catch(async (err) => Promise.reject((await missingSettled, err))) : p;
    };
    await expect(back(id)).rejects.toMatchObject({ code: 'UNSAFE_PATH' });
  });
});
