import { describe, expect, it } from 'vitest';
import { trimBlankLines } from './blankLines';
import { deriveReindent, reindent } from './indentation';
import { keepUnchangedLines } from '../keepLines';
import { borrowFileChars, plainTypography } from './typography';

describe('indentation mapping', () => {
  const map = (oldLines: string[], fileLines: string[]) => deriveReindent(oldLines, fileLines);

  it('derives a uniform shift in either direction', () => {
    expect(reindent('a\n  b', map(['a', '  b'], ['    a', '      b'])!)).toBe('    a\n      b');
    expect(reindent('    a\n      b', map(['    a'], ['a'])!)).toBe('a\n  b');
  });

  it('prefers a pure change of unit, and keeps alignment spaces after tabs', () => {
    const m = map(['    x', '        y'], ['\tx', '\t\ty'])!;
    expect(reindent('    x\n         * doc', m)).toBe('\tx\n\t\t * doc');
  });

  it('converts tabs to spaces too', () => {
    expect(reindent('\tx\n\t\ty', map(['\tx', '\t\ty'], ['  x', '    y'])!)).toBe('  x\n    y');
  });

  it('finds no mapping when lines disagree', () => {
    expect(map(['  a', '  b'], ['    a', '  b'])).toBeNull();
  });

  it('refuses to re-indent a line the mapping cannot express', () => {
    expect(reindent('a\nb', map(['    a'], ['a'])!)).toBeNull();
  });
});

describe('typography', () => {
  it('maps fancy characters one to one', () => {
    const s = '“a” ‘b’ c–d e—f\u00A0g';
    expect(plainTypography(s)).toBe('"a" \'b\' c-d e-f g');
    expect(plainTypography(s)).toHaveLength(s.length);
  });

  it('borrows the file’s characters where new_str keeps old_str’s text', () => {
    expect(borrowFileChars('“ship it” — now', '"ship it" - now', '"ship it today" - now')).toBe('“ship it today” — now');
  });
});

describe('trailing whitespace and blank lines', () => {
  it('keeps the file’s lines where the edit leaves them alone', () => {
    const same = (a: string, b: string) => a.trimEnd() === b;
    expect(keepUnchangedLines(['a  ', 'b ', 'c\t'], ['a', 'b', 'c'], ['a', 'B', 'c'], same)).toBe('a  \nB\nc\t');
  });

  it('trims leading and trailing blank lines, at most as many as asked', () => {
    expect(trimBlankLines('\n \nx\ny\n\n')).toEqual({ text: 'x\ny', lead: 2, trail: 2 });
    expect(trimBlankLines('\n\nx\n', 1, 0)).toEqual({ text: '\nx\n', lead: 1, trail: 0 });
  });
});
