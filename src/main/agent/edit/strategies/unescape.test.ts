// The over-escaping table (a Go unescapeGoString's cases, in JS string notation). Each row's
// input is what the model sent; `'\\n'` is a backslash and an n, `'\n'` a real newline.
import { describe, expect, it } from 'vitest';
import { unescapeLlmString, unescapeOneLevel } from './unescape';

describe('unescapeLlmString: a model\'s over-escaped string read back', () => {
  it.each([
    ['\\n becomes a newline', 'a\\nb', 'a\nb'],
    ['\\t becomes a tab', 'a\\tb', 'a\tb'],
    ['\\r becomes a carriage return', 'a\\rb', 'a\rb'],
    ['\\" becomes a quote', 'say \\"hi\\"', 'say "hi"'],
    ["\\' becomes an apostrophe", "it\\'s", "it's"],
    ['\\` becomes a backtick', '\\`cmd\\`', '`cmd`'],
    ['\\\\ becomes one backslash', 'C:\\\\dir', 'C:\\dir'],
    ['a run of backslashes before n collapses to a newline', 'a\\\\\\nb', 'a\nb'],
    ['mixed escaped and unescaped text', 'x\\n\ty = \\"1\\"\nz', 'x\n\ty = "1"\nz'],
    ['a lone backslash before another character stays', 'a\\db', 'a\\db'],
    ['a string with no escaping is unchanged', 'plain text', 'plain text'],
    ['the empty string stays empty', '', ''],
  ])('%s', (_name, input, want) => {
    expect(unescapeLlmString(input)).toBe(want);
  });
});

describe('unescapeOneLevel', () => {
  it('removes exactly one level, so escapes inside code survive', () => {
    expect(unescapeOneLevel('log(\\"a\\\\nb\\")')).toBe('log("a\\nb")');
    expect(unescapeOneLevel('x\\ny')).toBe('x\ny');
    expect(unescapeOneLevel('no escapes')).toBe('no escapes');
  });
});
