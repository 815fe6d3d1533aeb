import { describe, expect, it } from 'vitest';
import { codeFileRef, splitFileRefs } from './filePaths';
import { closesFence, settledPrefix } from './markdown';

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
  it('is cut at the last blank line outside a fence', () => {
    expect(settledPrefix('one\n\ntwo')).toBe(5);
    expect(settledPrefix('one\n\n```ts\na\n\nb')).toBe(5);
    expect(settledPrefix('one\n\n```ts\na\n```\n\nthree')).toBe(18);
    expect(settledPrefix('no blank line yet')).toBe(0);
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
