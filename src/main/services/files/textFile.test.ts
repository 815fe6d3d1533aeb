import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/support/tmp';
import { sha256 } from './hash';
import { numberLines } from './lineNumbers';
import { FileSession } from './readTracker';
import { decodeUtf8, loadTextFile, looksBinary } from './textFile';

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('loupe-files-'));
});
afterAll(() => cleanup());

describe('loading text files', () => {
  it('returns text, raw bytes, hash and mode', async () => {
    await writeFile(path.join(dir, 'a.txt'), 'héllo\n', { mode: 0o640 });
    const f = await loadTextFile(path.join(dir, 'a.txt'), 'a.txt');
    expect(f).toMatchObject({ text: 'héllo\n', hash: sha256('héllo\n'), mode: 0o640 });
  });

  it('refuses binary, non-UTF-8, oversized, missing and folder paths with their codes', async () => {
    await writeFile(path.join(dir, 'nul.bin'), Buffer.from([0x41, 0, 0x42]));
    await writeFile(path.join(dir, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    await writeFile(path.join(dir, 'big.txt'), 'x'.repeat(101));
    await mkdir(path.join(dir, 'sub'));
    const code = (rel: string, max?: number) => loadTextFile(path.join(dir, rel), rel, { maxBytes: max }).then(() => 'ok', (e) => e.code);
    expect(await code('nul.bin')).toBe('BINARY_FILE');
    expect(await code('latin1.txt')).toBe('BINARY_FILE');
    expect(await code('big.txt', 100)).toBe('FILE_TOO_LARGE');
    expect(await code('missing.txt')).toBe('FILE_NOT_FOUND');
    expect(await code('sub')).toBe('INVALID_PATH');
  });

  it('can show invalid UTF-8 lossily for display', async () => {
    const f = await loadTextFile(path.join(dir, 'latin1.txt'), 'latin1.txt', { lossy: true });
    expect(f.text).toBe('caf\uFFFD');
    expect(decodeUtf8(f.buf)).toBeNull();
    expect(looksBinary(Buffer.from('text'))).toBe(false);
  });
});

describe('read tracking', () => {
  it('remembers the hash per file and lets the session’s own writes count as reads', () => {
    const s = new FileSession('ses-1');
    expect(s.lastRead('/w/a')).toBeUndefined();
    s.recordRead('/w/a', 'h1');
    expect(s.lastRead('/w/a')?.hash).toBe('h1');
    s.recordWrite('/w/a', 'h2');
    expect(s.lastRead('/w/a')?.hash).toBe('h2');
    s.recordWrite('/w/a', null);
    expect(s.lastRead('/w/a')).toBeUndefined();
  });
});

describe('line numbers', () => {
  it('right-aligns the number to six columns, then an arrow', () => {
    expect(numberLines(['a', 'b'], 9)).toBe('     9→a\n    10→b');
  });
});
