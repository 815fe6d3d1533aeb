// Static files leave the host in as few turns of its loop as the file allows: the entry bundle
// (~450 KB) had gone out in seven 64 KB reads, each waiting behind the first listing.
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { tempDir } from '../../../../test/support/tmp';
import { serveStatic } from './staticFiles';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir('loupe-static-')));
afterEach(() => cleanup());

/** A response that keeps what it is sent, write by write. */
function response() {
  const writes: Buffer[] = [];
  const res = new Writable({ write: (chunk: Buffer, _enc, done) => (writes.push(chunk), done()) }) as Writable & { writeHead: (code: number, headers: Record<string, string>) => void; head?: Record<string, string> };
  res.writeHead = (_code, headers) => (res.head = headers);
  const ended = new Promise((r) => res.on('finish', r));
  return { res, writes, ended };
}

it('a bundle of 900 KB is read and written in one piece, byte for byte', async () => {
  const bytes = randomBytes(900 * 1024);
  await writeFile(path.join(dir, 'app.js'), bytes);
  const { res, writes, ended } = response();
  expect(await serveStatic(dir, '/app.js', res as unknown as ServerResponse, {})).toBe(true);
  await ended;
  expect(writes).toHaveLength(1);
  expect(Buffer.concat(writes).equals(bytes)).toBe(true);
  expect(res.head?.['Content-Length']).toBe(String(bytes.length));
});

it('a bigger file still arrives whole, in pieces of 1 MiB', async () => {
  const bytes = randomBytes(2.5 * 1024 * 1024);
  await writeFile(path.join(dir, 'editor.js'), bytes);
  const { res, writes, ended } = response();
  await serveStatic(dir, '/editor.js', res as unknown as ServerResponse, {});
  await ended;
  expect(writes.map((w) => w.length)).toEqual([1 << 20, 1 << 20, bytes.length - 2 * (1 << 20)]);
  expect(Buffer.concat(writes).equals(bytes)).toBe(true);
});
