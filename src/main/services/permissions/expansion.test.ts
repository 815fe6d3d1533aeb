import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/support/tmp';
import { analyseCommand } from './commandAnalysis';
import { expandBraces, expandWord, isKnown } from './expansion';
import { physicalPath } from './physicalPath';

let root: string;
let outside: string;
let cleanup: () => Promise<void>;
let cleanupOutside: () => Promise<void>;

beforeAll(async () => {
  ({ dir: root, cleanup } = await tempDir('loupe-expand-'));
  ({ dir: outside, cleanup: cleanupOutside } = await tempDir('loupe-expand-out-'));
  await mkdir(path.join(root, '.loupe'));
  await writeFile(path.join(root, '.loupe', 'config.json'), '{}');
  await writeFile(path.join(root, '.env'), '');
  await writeFile(path.join(root, 'a.ts'), '');
  await mkdir(path.join(outside, 'sub'));
  await symlink(path.join(outside, 'sub'), path.join(root, 'out'));
  await symlink(path.join(outside, 'new-file'), path.join(root, 'dangling'));
});
afterAll(async () => {
  await cleanup();
  await cleanupOutside();
});

/** The words bash would make of the last argument of `cat WORD`, or null when unknown. */
async function expand(word: string): Promise<string[] | null> {
  const a = await analyseCommand(`cat -- ${word}`);
  return expandWord(a.paths.find((p) => p.by === 'cat')!.word, { cwd: root, home: '/home/u' });
}

describe('expandWord', () => {
  it.each([
    ['.loup?/config.json', ['.loupe/config.json']],
    ['.l*/c*', ['.loupe/config.json']],
    ['.loup[a-z]/config.json', ['.loupe/config.json']],
    ['?env', ['?env']], // a leading dot is never matched by a glob character
    ['[.]env', ['[.]env']],
    ['*', ['a.ts', 'dangling', 'out']],
    ["'.l'*", ['.loupe']],
    ['"*"', ['*']],
    ['\\*', ['*']],
    ['nothing*', ['nothing*']], // no match: bash leaves the word as written
    ['{a,b}.ts', ['a.ts', 'b.ts']],
    ['x{1..3}', ['x1', 'x2', 'x3']],
    ['{}', ['{}']],
    ['~/x', ['/home/u/x']],
    ['"~"/x', ['~/x']],
    ['a=~/x', ['a=/home/u/x']],
    ['--a=~/x', ['--a=~/x']],
  ])('%s → %j', async (word, expected) => {
    expect(await expand(word)).toEqual(expected);
  });

  it.each(['$X', '"$X"/y', '$(echo x)', '`echo x`', '$((1+1))', "$'x'", '~-/x', '~root/x'])('%s is unknown', async (word) => {
    expect(await expand(word)).toBeNull();
  });

  it('keeps a word the grammar splits in two as one word', async () => {
    const a = await analyseCommand('cat {a,b}\\.ts');
    const words = a.paths.filter((p) => p.by === 'cat');
    expect(words).toHaveLength(1);
    expect(isKnown(words[0].word) && expandWord(words[0].word, { cwd: root })).toEqual(['a.ts', 'b.ts']);
  });

  it('gives up (unknown) rather than listing a huge expansion', () => {
    expect(expandBraces('{1..100000}')).toBeNull();
  });
});

describe('physicalPath', () => {
  it('follows links the way the kernel does: `..` after a link, dangling links', () => {
    expect(physicalPath(`${root}/out/../x`)).toBe(`${outside}/x`);
    expect(physicalPath(`${root}/dangling`)).toBe(`${outside}/new-file`);
    expect(physicalPath(`${root}/.loupe/./config.json`)).toBe(`${root}/.loupe/config.json`);
  });
});
