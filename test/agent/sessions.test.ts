// Sessions persisted per workspace in .loupe/sessions/: real files in a temp folder.
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionStore, titleFrom } from '../../src/main/services/sessions/sessionStore';
import { tempDir } from '../support/tmp';

let tmp: { dir: string; cleanup: () => Promise<void> };
let store: SessionStore;
beforeEach(async () => {
  tmp = await tempDir('loupe-sessions-');
  store = new SessionStore(tmp.dir);
});
afterEach(() => tmp.cleanup());

describe('SessionStore', () => {
  it('saves, loads, lists newest first, renames and deletes', async () => {
    const a = store.create('first');
    a.messages.push({ role: 'user', content: 'hi' });
    await store.save(a);
    await new Promise((r) => setTimeout(r, 5));
    const b = store.create('second');
    await store.save(b);
    expect((await store.load(a.id)).messages).toEqual([{ role: 'user', content: 'hi' }]);
    expect((await store.list()).map((s) => s.title)).toEqual(['second', 'first']);
    await store.rename(a.id, '  renamed  ');
    expect((await store.list()).map((s) => s.title)).toEqual(['renamed', 'second']);
    await store.delete(b.id);
    expect((await store.list()).map((s) => s.id)).toEqual([a.id]);
    await expect(store.load(b.id)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/No session/) });
    await expect(store.delete(b.id)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(store.rename(a.id, ' ')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('writes atomically, owner-only, and leaves no temp files behind', async () => {
    const s = store.create('x');
    await Promise.all([1, 2, 3, 4, 5].map((n) => store.save({ ...s, title: `v${n}` })));
    expect(JSON.parse(await readFile(path.join(store.dir, `${s.id}.json`), 'utf8')).title).toBe('v5');
    expect(await readdir(store.dir)).toEqual([`${s.id}.json`]);
    expect((await stat(path.join(store.dir, `${s.id}.json`))).mode & 0o777).toBe(0o600);
  });

  it('flush waits for saves nobody awaited (shutdown loses no turn)', async () => {
    const s = store.create('x');
    for (let n = 1; n <= 5; n++) void store.save({ ...s, title: `v${n}` });
    await store.flush();
    expect(JSON.parse(await readFile(path.join(store.dir, `${s.id}.json`), 'utf8')).title).toBe('v5');
    expect(await readdir(store.dir)).toEqual([`${s.id}.json`]);
  });

  it('refuses ids that could leave the folder and skips damaged files in the list', async () => {
    await expect(store.load('../../etc/passwd')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/Not a session id/) });
    await store.save(store.create('good'));
    await writeFile(path.join(store.dir, 'ses-broken.json'), '{"id": "ses-bro');
    expect((await store.list()).map((s) => s.title)).toEqual(['good']);
    await expect(store.load('ses-broken')).rejects.toMatchObject({ message: expect.stringMatching(/damaged/) });
  });

  it('titles a session from the first line of its first request', () => {
    expect(titleFrom('  fix the bug\nin a.ts')).toBe('fix the bug');
    expect(titleFrom('x'.repeat(100))).toHaveLength(58);
  });
});
