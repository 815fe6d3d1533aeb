// The slips real models make in edit_file calls (docs/architecture.md, the edit pipeline): each
// recovered by a deterministic reading or view, or refused with the place and the line that
// differs. The generated versions of each are in test/editSlips.property.test.ts.
import { describe, expect, it } from 'vitest';
import { LoupeError } from '../../errors';
import { noChangeReason } from './noChange';
import { editText, fakeCorrector } from './testing';

async function refusal(p: Promise<unknown>): Promise<LoupeError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof LoupeError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

const numbered = (n: number, line: string, sep = '\t') => `${String(n).padStart(6)}${sep}${line}`;

describe('partial line-number prefixes', () => {
  const file = 'def f():\n    a = 1\n    b = 2\n    return a + b\n';

  it('strips prefixes on some lines, the first copied from after its prefix', async () => {
    const { text, result } = await editText(file, `    a = 1\n${numbered(3, '    b = 2')}`, `    a = 1\n${numbered(3, '    b = 3')}`);
    expect(result.strategy).toBe('line-number-prefix');
    expect(text).toBe('def f():\n    a = 1\n    b = 3\n    return a + b\n');
  });

  it('drops the tab left in front of the first line, in old_str and new_str alike', async () => {
    const { text } = await editText(file, `\t    a = 1\n${numbered(3, '    b = 2')}`, `\t    a = 10\n${numbered(3, '    b = 2')}`);
    expect(text).toBe('def f():\n    a = 10\n    b = 2\n    return a + b\n');
  });

  it('strips the numbers a model invented for new lines', async () => {
    const old = [numbered(2, '    a = 1'), numbered(3, '    b = 2')].join('\n');
    const neu = [numbered(2, '    a = 1'), numbered(3, '    c = 3'), numbered(4, '    b = 2')].join('\n');
    expect((await editText(file, old, neu)).text).toBe('def f():\n    a = 1\n    c = 3\n    b = 2\n    return a + b\n');
  });

  it('refuses numbers that do not line up, and says where the text is', async () => {
    const err = await refusal(editText(file, `    a = 1\n${numbered(7, '    b = 2')}`, `    a = 1\n${numbered(7, '    b = 3')}`));
    expect(err.code).toBe('EDIT_NO_OCCURRENCE_FOUND');
    expect(err.message).toMatch(/old_str is at line 2 .* numbers say line 6/);
  });

  it('refuses numbers inconsistent with each other', async () => {
    const err = await refusal(editText(file, `${numbered(2, '    a = 1')}\n${numbered(4, '    b = 2')}`, 'x'));
    expect(err.code).toBe('EDIT_NO_OCCURRENCE_FOUND');
  });

  it('refuses a new_str whose numbers run backwards', async () => {
    const old = [numbered(2, '    a = 1'), numbered(3, '    b = 2')].join('\n');
    const neu = [numbered(3, '    a = 1'), numbered(2, '    b = 5')].join('\n');
    expect((await refusal(editText(file, old, neu))).code).toBe('EDIT_NO_OCCURRENCE_FOUND');
  });
});

describe('one misaligned line', () => {
  const file = 'x = call(a,\n         b,\n         c)\ny = 2\n';

  it('recovers a continuation line aligned a column short, keeping the file’s line', async () => {
    const { text, result } = await editText(file, 'x = call(a,\n        b,\n         c)\ny = 2', 'x = call(a,\n        b,\n         c)\ny = 3');
    expect(result.strategy).toBe('misaligned-line');
    expect(text).toBe('x = call(a,\n         b,\n         c)\ny = 3\n');
  });

  it('a rewrite of the misaligned line takes the file’s indentation, as the match did', async () => {
    const { text } = await editText(file, 'x = call(a,\n        b,\n         c)', 'x = call(a,\n        B,\n         c)');
    expect(text).toBe('x = call(a,\n         B,\n         c)\ny = 2\n');
  });

  it('a new line at the misaligned indentation goes where that indentation maps', async () => {
    const { text } = await editText(file, 'x = call(a,\n        b,\n         c)', 'x = call(a,\n        b,\n        b2,\n         c)');
    expect(text).toBe('x = call(a,\n         b,\n         b2,\n         c)\ny = 2\n');
  });

  it('a line whose indentation the reading maps two ways is refused, nothing written', async () => {
    // old_str gives two spaces to a line the file has at three, and to one it has at two.
    const twice = 'f(a,\n   b)\n  g()\n';
    const err = await refusal(editText(twice, 'f(a,\n  b)\n  g()', 'f(a,\n  b)\n  h()\n  g()'));
    expect(err.code).toBe('EDIT_NO_OCCURRENCE_FOUND');
    expect(err.message).toContain('read as misaligned-line it is lines 1-3, but new_str line 3 ("  h()")');
    expect(err.message).toContain('     2→   b)');
  });

  it('refuses two misaligned lines, naming the first that differs, without asking the model', async () => {
    const corrector = fakeCorrector({ old: 'x = call(a,\n         b,\n         c)' });
    const err = await refusal(editText(file, 'x = call(a,\n        b,\n        c)', 'x = call(a,\n        b,\n        d)', { corrector }));
    expect(err.code).toBe('EDIT_NO_OCCURRENCE_FOUND');
    expect(err.message).toContain('first difference is at line 2');
    expect(err.message).toContain('old_str line 2: "        b,"');
    expect(corrector.asked).toEqual([]);
  });

  it('refuses a misaligned line that fits two places', async () => {
    const twice = 'if a:\n    f(x,\n      y)\nif a:\n    f(x,\n       y)\n';
    const err = await refusal(editText(twice, 'if a:\n    f(x,\n     y)', 'if a:\n    g(x,\n     y)'));
    expect(err.code).toBe('EDIT_EXPECTED_OCCURRENCE_MISMATCH');
    expect(err.message).toContain('lines 1, 4');
  });
});

describe('a statement joined into one line', () => {
  const file = 'total = compute(price,\n                qty)\nprint(total)\n';

  it('finds the broken statement, with or without a space at the break', async () => {
    for (const joined of ['total = compute(price, qty)', 'total = compute(price,qty)']) {
      const { text, result } = await editText(file, `${joined}\nprint(total)`, `${joined}\nlog(total)`);
      expect(result.strategy).toBe('joined-lines');
      expect(text).toBe('total = compute(price,\n                qty)\nlog(total)\n');
    }
  });

  it('breaks a rewritten statement where the file breaks it, each piece with the file’s indentation', async () => {
    expect((await editText(file, 'total = compute(price, qty)', 'total = compute(price, qty * 2)')).text).toBe('total = compute(price,\n                qty * 2)\nprint(total)\n');
    expect((await editText(file, 'total = compute(price,qty)', 'total = compute(cost,qty)')).text).toBe('total = compute(cost,\n                qty)\nprint(total)\n');
    expect((await editText('if (a) {\n  go();\n}\n', 'if (a) { go();', 'if (a) { stop();')).text).toBe('if (a) {\n  stop();\n}\n');
  });

  it('a piece the rewrite leaves alone keeps the file’s bytes, trailing blanks included', async () => {
    expect((await editText('let a = 1;  \n    let b = 2;\n', 'let a = 1; let b = 2;', 'let a = 1; let b = 3;')).text).toBe('let a = 1;  \n    let b = 3;\n');
  });

  it('statements the file writes one per line: a rewrite with more of them is refused, never half split', async () => {
    const stmts = 'function f() {\n  let a = 1;\n  let b = 2;\n}\n';
    for (const [oldStr, newStr] of [
      ['  let a = 1; let b = 2;', '  let a = 1; let b = 2; let c = 3;'],
      ['  let a = 1;let b = 2;', '  let a = 1;let c = 3;let b = 2;'],
      // The new statement on a line of its own, still joined to another.
      ['  let a = 1; let b = 2;\n}', '  let a = 1; let b = 2;\n  let c = 3; let d = 4;\n}'],
    ]) {
      const err = await refusal(editText(stmts, oldStr, newStr));
      expect(err.code).toBe('EDIT_NO_OCCURRENCE_FOUND');
      expect(err.message).toContain('read as joined-lines it is lines 2-');
      expect(err.message).toContain('     3→  let b = 2;');
    }
    // One statement fewer, or one rewritten, is clear.
    expect((await editText(stmts, '  let a = 1; let b = 2;', '  let a = 1;')).text).toBe('function f() {\n  let a = 1;\n}\n');
    expect((await editText(stmts, '  let a = 1; let b = 2;', '  let a = 1; let b = 5;')).text).toBe('function f() {\n  let a = 1;\n  let b = 5;\n}\n');
  });

  it('a joined statement deleted beside a rewrite: the rewrite is not split on a guess', async () => {
    // new_str has one line fewer: whether it rewrites the joined line or the next is not in the strings.
    const f = '\nv1_\n\t  v2_\nv3_\n\t  v4_\n\n';
    const err = await refusal(editText(f, 'v1_\n\t  v2_ v3_\n\t  v4_', 'v1_\n\t  n4_ x'));
    expect(err.code).toBe('EDIT_NO_OCCURRENCE_FOUND');
    expect(err.message).toContain('new_str has fewer lines than old_str here');
    // With nothing the file breaks after, either reading gives the same one line.
    expect((await editText(f, 'v1_\n\t  v2_ v3_\n\t  v4_', 'v1_\n\t  n4 x')).text).toBe('\nv1_\n\t  n4 x\n\n');
  });

  it('refuses a rewrite when where the break went is not clear', async () => {
    for (const [f, oldStr, newStr] of [
      [file, 'total = compute(price, qty)', 'total = compute(price, qty, tax)'],
      [file, 'total = compute(price,qty)', 'total = compute(price,tax,qty)'],
      ['v1_\nv2_\nv3_\n', 'v1_v2_\nv3_', 'n3_ x'],
      // Text inserted right at a break with no space: the end of one line or the start of the next.
      ['f(a,\n  b)\n', 'f(a,b)', 'f(a,xb)'],
    ]) {
      expect((await refusal(editText(f, oldStr, newStr))).code).toBe('EDIT_NO_OCCURRENCE_FOUND');
    }
  });

  it('a rewrite with nothing the file breaks after is one line, as the file would have it', async () => {
    expect((await editText(file, 'total = compute(price, qty)\nprint(total)', 'total = 0\nprint(total)')).text).toBe('total = 0\nprint(total)\n');
  });

  it('refuses a joined statement the file has twice', async () => {
    const err = await refusal(editText(file + file, 'total = compute(price, qty)', 'x'));
    expect(err.code).toBe('EDIT_EXPECTED_OCCURRENCE_MISMATCH');
    expect(err.message).toContain('lines 1, 4');
  });
});

describe('very long requests', () => {
  it('a 20,000-line old_str with a joined statement is read without exhausting the stack', async () => {
    const body = Array.from({ length: 20_000 }, (_, i) => `  step(${i})`);
    const file = `run(a,\n    b)\n${body.join('\n')}\n`;
    const oldStr = `run(a, b)\n${body.join('\n')}`;
    const { text, result } = await editText(file, oldStr, oldStr.replace('step(19999)', 'done()'));
    expect(result.strategy).toBe('joined-lines');
    expect(text).toBe(file.replace('step(19999)', 'done()'));
  });

  it('a 20,000-line old_str one line off is refused with its first differing line', async () => {
    const body = Array.from({ length: 20_000 }, (_, i) => `  step(${i})`);
    const err = await refusal(editText(`${body.join('\n')}\n`, body.map((l, i) => (i === 7 ? '  skip(7)' : l)).join('\n'), 'x'));
    expect(err.message).toContain('first difference is at line 8:');
  });
});

describe('stacked slips: compositions of the deterministic steps', () => {
  it('prefixes, lost indentation and a CRLF file', async () => {
    const file = 'class A:\r\n    def f(self):\r\n        return 1\r\n';
    const { text, result } = await editText(file, `${numbered(2, 'def f(self):')}\n${numbered(3, '    return 1')}`, `${numbered(2, 'def f(self):')}\n${numbered(3, '    return 2')}`);
    expect(result.strategy).toBe('line-number-prefix+indentation');
    expect(text).toBe('class A:\r\n    def f(self):\r\n        return 2\r\n');
  });

  it('a literal \\n where a line break was, with shifted indentation', async () => {
    const file = 'if x:\n    a()\n    b()\n';
    const { text, result } = await editText(file, 'a()\\nb()', 'a()\\nc()');
    expect(result.strategy).toBe('unescape+indentation');
    expect(text).toBe('if x:\n    a()\n    c()\n');
  });

  it('refuses when two compositions find two places', async () => {
    // Lines 1-2 differ from old_str in trailing blanks, lines 4-5 in indentation.
    const file = 'foo  \nbar\n--\n  foo\n  bar\n';
    const err = await refusal(editText(file, 'foo\nbar', 'baz\nbar', { corrector: fakeCorrector({ old: 'foo  \nbar' }) }));
    expect(err.code).toBe('EDIT_EXPECTED_OCCURRENCE_MISMATCH');
    expect(err.message).toMatch(/occurs 2 times in f.txt once corrected \(trailing-whitespace, indentation.*\), at lines 1, 4,/);
  });
});

describe('ambiguity that appears only after normalising', () => {
  it.each([
    ['indentation', '  a()\n  b()\n--\n    a()\n    b()\n', '\ta()\n\tb()', [1, 4]],
    ['indentation, one place without a consistent mapping', 'x:\n  a\n  b\ny:\n  a\n    b\n', '\ta\n\tb', [2, 5]],
    ['trailing whitespace', 'a \nb\na\t\nb\n', 'a\nb', [1, 3]],
    ['typography', 'say “hi”\nsay ‘hi’x\nsay ”hi“\n', 'say "hi"\n', [1, 3]],
    ['unescaping', 'a\nb\na\nb\n', 'a\\nb', [1, 3]],
  ])('%s: refused, naming both places', async (_name, file, oldStr, lines) => {
    const corrector = fakeCorrector({ old: 'unused' });
    const err = await refusal(editText(file, oldStr, 'z', { corrector }));
    expect(err.code).toBe('EDIT_EXPECTED_OCCURRENCE_MISMATCH');
    expect(err.message).toContain(`lines ${lines.join(', ')}`);
    expect(corrector.asked).toEqual([]);
  });
});

describe('no-op calls', () => {
  it('says the file already holds the text, and where', () => {
    expect(noChangeReason('a\nb\nc\n', 'b', false)).toBe('old_str and new_str are identical, and the file already holds this text at line 2');
    expect(noChangeReason('if x:\n    b()\n', 'b()\n', false)).toContain('at line 2');
    expect(noChangeReason('a:\n  x\n  y\n', 'x\ny', false)).toBe('old_str and new_str are identical, and the file already holds this text (read with indentation) at line 2');
  });

  it('says so when the text is not there, or nothing is known of the file', () => {
    expect(noChangeReason('a\n', 'zzz', false)).toBe('old_str and new_str are identical, so this call changes nothing; and old_str is not in the file as given');
    expect(noChangeReason(null, 'zzz', true)).toBe('old_str and new_str differ only in line endings, which the file keeps as they are, so this call changes nothing');
  });

  it('a correction that leaves the file as it is says where the file holds it', async () => {
    const err = await refusal(editText('She said “hi”.\n', 'She said "hi".', 'She said “hi”.'));
    expect(err.code).toBe('EDIT_NO_CHANGE');
    expect(err.message).toContain('already holds at line 1');
  });
});

describe('content slips inside a long old_str', () => {
  const lines = Array.from({ length: 60 }, (_, i) => `    step_${i}(value, ${i})`);
  const file = `def run(value):\n${lines.join('\n')}\n`;
  const block = lines.slice(5, 55);

  it('one paraphrased token: refused, the closest region and the first differing line shown, no model asked', async () => {
    const slipped = [...block];
    slipped[20] = slipped[20].replace('value', 'val');
    const corrector = fakeCorrector({ old: block.join('\n') });
    const err = await refusal(editText(file, slipped.join('\n'), slipped.join('\n').replace('step_40', 'STEP_40'), { corrector }));
    expect(err.code).toBe('EDIT_NO_OCCURRENCE_FOUND');
    expect(err.message).toContain('The closest text is lines 7-56');
    expect(err.message).toContain('first difference is at line 27:');
    expect(err.message).toContain('old_str line 21: "    step_25(val, 25)"');
    expect(err.message).toContain('file line 27: "    step_25(value, 25)"');
    expect(err.message).toContain('    27→    step_25(value, 25)');
    expect(corrector.asked).toEqual([]);
  });

  it('one omitted line: refused, naming the line old_str leaves out', async () => {
    const slipped = block.filter((_, i) => i !== 30);
    const err = await refusal(editText(file, slipped.join('\n'), slipped.join('\n').replace('step_10', 'STEP_10'), { corrector: fakeCorrector({}) }));
    expect(err.message).toContain('first difference is at line 37:');
    expect(err.message).toContain('leaves out, before old_str line 31');
    expect(err.message).toContain('file line 37: "    step_35(value, 35)"');
  });
});
