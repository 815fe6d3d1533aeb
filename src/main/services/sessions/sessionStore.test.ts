import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { tempDir } from '../../../../test/support/tmp';
import { SessionStore } from './sessionStore';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir('loupe-sessions-'));
});
afterEach(() => cleanup());

it('finds the prompts of the requests asked for across saved sessions, skipping damaged files', async () => {
  const store = new SessionStore(dir);
  const a = store.create('a', 'ses-aaaa');
  a.requests.push({ correlation_id: 'req-1', prompt: 'tidy up\nplease', started_at: 'x' }, { correlation_id: 'req-2', prompt: 'second', started_at: 'y' });
  const b = store.create('b', 'ses-bbbb');
  b.requests.push({ correlation_id: 'req-3', prompt: 'third', started_at: 'z' });
  await store.save(a);
  await store.save(b);
  await writeFile(path.join(store.dir, 'ses-broken.json'), '{ not json');
  const found = await store.prompts(['req-1', 'req-3', 'req-missing']);
  expect(Object.fromEntries(found)).toEqual({ 'req-1': 'tidy up\nplease', 'req-3': 'third' });
  expect((await store.prompts([])).size).toBe(0);
});
