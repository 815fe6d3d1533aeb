import { describe, expect, it } from 'vitest';
import { escapeSkeleton, escapesOutsideStrings, looksOverEscaped } from './escaping';

describe('over-escaped new_str detection (R4 guard)', () => {
  it('flags escapes outside string literals', () => {
    expect(looksOverEscaped('import math\\n\\ndef f():\\n    pass', 'def f():\n    pass')).toBe(true);
    expect(looksOverEscaped('print(\\"hi\\")', 'print("x")')).toBe(true);
  });

  it('leaves escapes inside string literals alone', () => {
    expect(looksOverEscaped('const sep = "\\n";', 'const sep = ",";')).toBe(false);
    expect(looksOverEscaped("c = '\\t'", "c = ' '")).toBe(false);
    expect(looksOverEscaped('s = `a\\nb`', 's = ``')).toBe(false);
  });

  it('never flags when the replaced text has escapes of the same kind (they are real)', () => {
    expect(looksOverEscaped('re = /a\\nb/', 're = /a\\n/')).toBe(false);
  });

  it('closes a quote at the end of a line, so one stray apostrophe does not hide the rest', () => {
    expect([...escapesOutsideStrings("# don't\nx = 1\\ny = 2")]).toEqual(['n']);
  });

  it('compares strings modulo escaping and whitespace', () => {
    expect(escapeSkeleton('a\\nb \\"c\\"')).toBe(escapeSkeleton('a\nb "c"'));
    expect(escapeSkeleton('a\\nb')).not.toBe(escapeSkeleton('a\nc'));
  });

  it('says no on its own for backslash languages, commands the file uses, and Windows paths', () => {
    expect(looksOverEscaped('Done.\\\\\n\\noindent Next', 'Done.', { path: 'paper.tex' })).toBe(false);
    expect(looksOverEscaped('x\\\\\n\\noindent y', 'x', { path: 'a.md', fileText: 'a\\\\\n\\noindent b\n' })).toBe(false);
    expect(looksOverEscaped('root: C:\\new\\tools', 'root: C:\\old', { path: 'c.yml' })).toBe(false);
  });

  it('still flags a bare \\n the file has elsewhere, and Python’s `if x:\\n`', () => {
    expect(looksOverEscaped('a = 1\\nb = 2', 'a = 0', { path: 'x.js', fileText: 'const s = "\\n";\na = 0\n' })).toBe(true);
    expect(looksOverEscaped('if x:\\n    pass', 'if x: pass', { path: 'x.py', fileText: 'if x: pass\n' })).toBe(true);
  });
});
