// Three findings from running other agents' edit tests through this pipeline: two wrong edits
// reported as successes, and one model call that a deterministic check could have saved.
import { describe, expect, it } from 'vitest';
import { editText, fakeCorrector } from './testing';

describe('an indentation match ends where old_str ends', () => {
  it.each([
    ['tabs in the file, spaces in old_str', 'def f():\n\tx = 1\n\ty = 2\n', '  x = 1\n', '  x = 10\n', 'def f():\n\tx = 10\n\ty = 2\n'],
    ['a deeper tab-indented file, a shallower old_str', 'class A:\n\tdef f(self):\n\t\tx = 1\n\t\ty = 2\n', '    x = 1\n', '    x = 10\n', 'class A:\n\tdef f(self):\n\t\tx = 10\n\t\ty = 2\n'],
    ['old_str indented more than the file', 'if a:\n  b()\n  c()\n', '    if a:\n      b()\n', '    if a:\n      d()\n', 'if a:\n  d()\n  c()\n'],
    ['spaces in the file, tabs in old_str, tab-indented next line', 'x:\n    a = 1\n\tb = 2\n', '\t\ta = 1\n', '\t\ta = 3\n', 'x:\n    a = 3\n\tb = 2\n'],
    ['old_str with the next line’s indentation selected along', 'def f():\n\tx = 1\n\ty = 2\n', '  x = 1\n  ', '  x = 10\n  ', 'def f():\n\tx = 10\n\ty = 2\n'],
  ])('%s', async (_name, file, oldStr, newStr, want) => {
    const { text, result } = await editText(file, oldStr, newStr);
    expect(result.strategy).toBe('indentation');
    expect(text).toBe(want);
  });

  it('trailing whitespace: the blanks after the match are not part of it', async () => {
    const { text, result } = await editText('a  \nb\t\nc\n', 'a\nb', 'A\nB');
    expect(result.strategy).toBe('trailing-whitespace');
    expect(text).toBe('A\nB\t\nc\n');
  });
});

describe('mixed line endings: each line keeps its own', () => {
  it('an unchanged line inside a multi-line old_str keeps LF among CRLF lines', async () => {
    expect((await editText('a\r\nb\nc\r\nd\n', 'a\nb\nc', 'A\nb\nC')).text).toBe('A\r\nb\nC\r\nd\n');
  });

  it('a changed line takes the ending of the line it replaces', async () => {
    expect((await editText('one\ntwo\r\nthree\n', 'one\ntwo\nthree', 'ONE\nTWO\nTHREE')).text).toBe('ONE\nTWO\r\nTHREE\n');
  });

  it('an inserted line takes the ending of its neighbour', async () => {
    expect((await editText('a\nb\r\nc\n', 'a\nb\nc', 'a\nb\nb2\nc')).text).toBe('a\nb\r\nb2\r\nc\n');
  });

  it('CRLF old_str against an LF line, inside a CRLF file', async () => {
    expect((await editText('x\r\ny\nz\r\n', 'x\r\ny\r\nz', 'X\r\ny\r\nZ')).text).toBe('X\r\ny\nZ\r\n');
  });
});

describe('backslashes the file or its language explains: no model call', () => {
  const latex = '\\section{Intro}\nFirst paragraph.\\\\\n\\noindent Second.\n';

  it.each([
    ['a .tex file, the command new to it', 'paper.tex', '\\section{Intro}\nFirst paragraph.\n', 'First paragraph.', 'First paragraph.\\\\\n\\newpage\\noindent Next.'],
    ['a file that already uses the same commands', 'notes.md', latex, 'Second.', 'Second.\\\\\n\\noindent Third.'],
    ['a .sty file', 'style.sty', '\\def\\a{x}\n', '\\def\\a{x}', '\\def\\a{x}\n\\newcommand{\\b}{y}'],
    ['a regular-expression file', 'words.regex', '^\\w+$\n', '^\\w+$', '^\\w+\\t\\w+$'],
    ['a Windows script', 'run.bat', 'cd C:\\app\n', 'cd C:\\app', 'cd C:\\app\\tools\nC:\\temp\\run.exe'],
    ['a Windows path outside quotes', 'config.yml', 'root: D:\\data\n', 'root: D:\\data', 'root: D:\\new\\table'],
  ])('%s', async (_name, file, content, oldStr, newStr) => {
    const corrector = fakeCorrector({ escaping: 'anything' });
    const { text, result } = await editText(content, oldStr, newStr, { corrector, file });
    expect(result.llmCalls).toBe(0);
    expect(corrector.asked).toEqual([]);
    expect(text).toContain(newStr);
  });

  it('still asks when nothing explains the escapes', async () => {
    const corrector = fakeCorrector({ escaping: 'a = 1\nb = 2' });
    const { result } = await editText('a = 0\n', 'a = 0', 'a = 1\\nb = 2', { corrector, file: 'x.py' });
    expect(corrector.asked).toEqual(['escaping']);
    expect(result.llmCalls).toBe(1);
  });
});
