import { describe, expect, it } from 'vitest';
import { LoupeError } from '../../errors';
import { editText, fakeCorrector } from './testing';

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    if (err instanceof LoupeError) return err.code;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('edit pipeline: exact matches (step 4)', () => {
  it('replaces the single occurrence and says so', async () => {
    const { text, result } = await editText('a\nb\nc\n', 'b', 'B');
    expect(text).toBe('a\nB\nc\n');
    expect(result.strategy).toBe('exact');
    expect(result.llmCalls).toBe(0);
  });

  it('refuses more hits than expected, listing the line of every hit', async () => {
    await expect(editText('x;\ny;\nx;\n', 'x;', 'z;')).rejects.toThrow(/at lines 1, 3/);
  });

  it('honours expected_replacements and replace_all', async () => {
    expect((await editText('x x x', 'x', 'y', { expected: 3 })).text).toBe('y y y');
    expect((await editText('x x x', 'x', 'y', { replaceAll: true })).text).toBe('y y y');
    expect(await refusal(editText('x x', 'x', 'y', { expected: 3 }))).toBe('EDIT_EXPECTED_OCCURRENCE_MISMATCH');
  });

  it('splices literally: $& and $$ in new_str are not expanded', async () => {
    expect((await editText('a = 1;\n', 'a = 1', "a = '$&$$$1'")).text).toBe("a = '$&$$$1';\n");
  });

  it('refuses a result that doubles a semicolon neither string asked for', async () => {
    expect(await refusal(editText('  return x;\n', '  return x', '  return y;'))).toBe('INVALID_ARGUMENT');
    expect((await editText('  return x;\n', '  return x;', '  return y;')).text).toBe('  return y;\n');
  });

  it('refuses an edit that leaves the file unchanged', async () => {
    expect(await refusal(editText('She said “hi”.\n', 'She said "hi".', 'She said “hi”.'))).toBe('EDIT_NO_CHANGE');
  });
});

describe('edit pipeline: line endings, BOM and final newline survive', () => {
  it('keeps CRLF when old_str and new_str use LF', async () => {
    expect((await editText('a\r\nb\r\nc\r\n', 'a\nb', 'a\nB\nB2')).text).toBe('a\r\nB\r\nB2\r\nc\r\n');
  });

  it('keeps each region’s own line ending in a mixed file', async () => {
    expect((await editText('a\r\nb\nc\n', 'b', 'b1\nb2')).text).toBe('a\r\nb1\nb2\nc\n');
  });

  it('keeps the BOM and a missing final newline', async () => {
    expect((await editText('\uFEFFv1', 'v1', 'v2\n')).text).toBe('\uFEFFv2');
  });

  it('keeps the final newline when new_str drops it at the end of the file', async () => {
    expect((await editText('a\nb\n', 'b\n', 'c')).text).toBe('a\nc\n');
  });
});

describe('edit pipeline: R1 programmatic unescaping (step 5)', () => {
  it('unescapes old_str and new_str together when the raw old_str is absent', async () => {
    const { text, result } = await editText('print("Hello")\nprint("World")\n', 'print(\\"Hello\\")\\nprint(\\"World\\")', 'print(\\"Hi\\")');
    expect(text).toBe('print("Hi")\n');
    expect(result.strategy).toBe('unescape');
  });

  it('never unescapes new_str on its own: real escapes in code stay', async () => {
    expect((await editText('const s = ",";\n', 'const s = ",";', 'const s = "\\n";')).text).toBe('const s = "\\n";\n');
  });
});

describe('edit pipeline: deterministic views (step 6)', () => {
  it.each([
    ['read_file prefixes with the real line numbers', 'one\ntwo\nthree\n', '     2→two', '     2→TWO', 'line-number-prefix', 'one\nTWO\nthree\n'],
    ['trailing whitespace, kept on lines the edit leaves alone', 'a  \nb \nc\n', 'a\nb\nc', 'a\nB\nc', 'trailing-whitespace', 'a  \nB\nc\n'],
    ['typographic quotes and dashes, the file’s characters written back', 'He said “go” – now.\n', 'He said "go" - now.', 'He said "go home" - now.', 'typography', 'He said “go home” – now.\n'],
    ['an indentation shift, new_str shifted alike', 'f() {\n    if (a) {\n        b();\n    }\n}\n', 'if (a) {\n    b();\n}', 'if (a) {\n    c();\n}', 'indentation', 'f() {\n    if (a) {\n        c();\n    }\n}\n'],
    ['a negative indentation shift', 'f() {\n    if (a) {\n        b();\n    }\n}\n', '      if (a) {\n          b();\n      }', '      if (a) {\n          c();\n      }', 'indentation', 'f() {\n    if (a) {\n        c();\n    }\n}\n'],
    ['spaces mapped to tabs, alignment kept', 'func f() {\n\tif x {\n\t\ty()\n\t}\n}\n', '    if x {\n        y()\n    }', '    if x {\n        y()\n        z()\n    }', 'indentation', 'func f() {\n\tif x {\n\t\ty()\n\t\tz()\n\t}\n}\n'],
    ['one line misaligned, the rest exact: that line corrected where new_str repeats it', 'a:\n    b\n  c\n', 'a:\n  b\n  c', 'a:\n  b\n  C', 'misaligned-line', 'a:\n    b\n  C\n'],
    ['stray blank lines around old_str (and new_str)', 'x = 1\ny = 2\n', '\n\ny = 2\n\n', '\n\ny = 3\n\n', 'blank-lines', 'x = 1\ny = 3\n'],
  ])('%s', async (_name, file, oldStr, newStr, strategy, want) => {
    const { text, result } = await editText(file, oldStr, newStr);
    expect(result.strategy).toBe(strategy);
    expect(text).toBe(want);
  });

  it.each([
    ['prefixes whose numbers are not the match’s lines', 'one\ntwo\nthree\n', '     7→two', '     7→TWO'],
    ['a stripped trailing blank inside a longer line', 'foobar\n', 'foo  ', 'baz'],
    ['an indentation difference that is neither one consistent mapping nor one misaligned line', 'a:\n    b\n    c\n', 'a:\n  b\n   c', 'a:\n  B\n   c'],
  ])('refuses %s', async (_name, file, oldStr, newStr) => {
    expect(await refusal(editText(file, oldStr, newStr))).toBe('EDIT_NO_OCCURRENCE_FOUND');
  });

  it('reports an ambiguous view as a mismatch instead of asking the model', async () => {
    const corrector = fakeCorrector({ old: 'unused' });
    const file = 'a  \nb\na \nb\n';
    expect(await refusal(editText(file, 'a\nb', 'c\nd', { corrector }))).toBe('EDIT_EXPECTED_OCCURRENCE_MISMATCH');
    expect(corrector.asked).toEqual([]);
  });
});

describe('edit pipeline: LLM correction (step 7)', () => {
  const file = '// config\nconst API_URL = "https://old.api/v1"\n';
  const oldStr = "const API_URL = 'https://old.api/v1';";
  const newStr = "const API_URL = 'https://new.api/v2';";

  it('R2 + R3: a corrected, unique old_str and the adjusted new_str', async () => {
    const corrector = fakeCorrector({ old: 'const API_URL = "https://old.api/v1"', new: 'const API_URL = "https://new.api/v2"' });
    const { text, result } = await editText(file, oldStr, newStr, { corrector });
    expect(text).toBe('// config\nconst API_URL = "https://new.api/v2"\n');
    expect(result).toMatchObject({ strategy: 'llm', llmCalls: 2, corrected: { old_str: 'const API_URL = "https://old.api/v1"', new_str: 'const API_URL = "https://new.api/v2"' } });
    expect(corrector.asked).toEqual(['old', 'new']);
  });

  it('falls back to the original error when R3 gives nothing', async () => {
    const corrector = fakeCorrector({ old: 'const API_URL = "https://old.api/v1"', new: '' });
    expect(await refusal(editText(file, oldStr, newStr, { corrector }))).toBe('EDIT_NO_OCCURRENCE_FOUND');
  });

  it('refuses a confident snippet about other code', async () => {
    const corrector = fakeCorrector({ old: '// config' });
    expect(await refusal(editText(file, oldStr, newStr, { corrector }))).toBe('EDIT_NO_OCCURRENCE_FOUND');
    expect(corrector.asked).toEqual(['old']);
  });

  it('R4: repairs an over-escaped new_str, keeping what only changes escaping', async () => {
    const corrector = fakeCorrector({ escaping: 'a = 1\nb = 2' });
    const { text, result } = await editText('a = 0\n', 'a = 0', 'a = 1\\nb = 2', { corrector });
    expect(text).toBe('a = 1\nb = 2\n');
    expect(result).toMatchObject({ strategy: 'exact', llmCalls: 1, corrected: { new_str: 'a = 1\nb = 2' } });
  });

  it('R4: ignores an answer that changes more than escaping', async () => {
    const corrector = fakeCorrector({ escaping: 'a = 100\nb = 2' });
    expect((await editText('a = 0\n', 'a = 0', 'a = 1\\nb = 2', { corrector })).text).toBe('a = 1\\nb = 2\n');
  });
});
