import { describe, expect, it } from 'vitest';
import { codeFileRef, splitFileRefs } from './filePaths';
import { closesFence, splitBlocks } from './markdown';

describe('code fences', () => {
  it('close only on a bare fence of the same character, at least as long', () => {
    expect(closesFence('```', '```')).toBe(true);
    expect(closesFence('  ````  ', '```')).toBe(true);
    expect(closesFence('``', '```')).toBe(false);
    expect(closesFence('```ts', '```')).toBe(false);
    expect(closesFence('~~~', '```')).toBe(false);
  });
});

describe('streamed markdown', () => {
  it('is cut into pieces at blank lines outside fences, losing nothing', () => {
    expect(splitBlocks('one\n\ntwo')).toEqual(['one\n\n', 'two']);
    expect(splitBlocks('one\n\n```ts\na\n\nb')).toEqual(['one\n\n', '```ts\na\n\nb']);
    expect(splitBlocks('one\n\n```ts\na\n```\n\nthree')).toEqual(['one\n\n', '```ts\na\n```\n\n', 'three']);
    expect(splitBlocks('no blank line yet')).toEqual(['no blank line yet']);
    const text = '# t\n\n\n- a\n- b\n\n> q\n\n| x |\n| - |\n| 1 |\n';
    expect(splitBlocks(text).join('')).toBe(text);
  });
});

describe('file paths in model text', () => {
  it('links paths with a folder in text, with their line; words with dots stay words', () => {
    expect(splitFileRefs('See src/a.ts:12 and ./lib/b.py, e.g. Node.js or /etc/passwd.txt.')).toEqual([
      'See ',
      { path: 'src/a.ts', line: 12, text: 'src/a.ts:12' },
      ' and ',
      { path: 'lib/b.py', text: './lib/b.py' },
      ', e.g. Node.js or /etc/passwd.txt.',
    ]);
  });

  it('takes a code span that is a path, a bare file name with a known extension included', () => {
    expect(codeFileRef('package.json')).toEqual({ path: 'package.json' });
    expect(codeFileRef('src/a.ts:3:7')).toEqual({ path: 'src/a.ts', line: 3 });
    expect(codeFileRef('console.log')).toBeNull();
    expect(codeFileRef('npm test src/a.ts')).toBeNull();
  });
});
