import { describe, expect, it } from 'vitest';
import { keepUnchangedLines } from './keepLines';
import { editText } from './testing';

const rstrip = (a: string, b: string) => a.replace(/[ \t]+$/, '') === b.replace(/[ \t]+$/, '');

describe('keepUnchangedLines', () => {
  it('deleting one of several lines that only differ in whitespace keeps the ones the request kept', () => {
    // Under trailing-whitespace sameness every line here but the last is "" — only the model's
    // own text says the deleted line is the fourth, not the fifth.
    const file = ['\t', '', '', '        ', '\t', 'v6_'];
    const old = ['\t', '', '', '', '\t', 'v6_'];
    expect(keepUnchangedLines(file, old, ['\t', '', '', '\t'], rstrip)).toBe('\t\n\n\n\t');
  });

  it('a line the request left alone keeps the file bytes even when the model retyped its whitespace', () => {
    expect(keepUnchangedLines(['a  ', 'b\t', 'c'], ['a', 'b', 'c'], ['a ', 'B', 'c'], rstrip)).toBe('a  \nB\nc');
  });
});

describe('edit_file through the trailing-whitespace strategy', () => {
  it('writes exactly the lines asked for among whitespace-only lines (a generated counterexample)', async () => {
    const { text, result } = await editText('\n\t\n\n\n        \n\t\nv6_', '\t\n\n\n\n\t\nv6_', '\t\n\n\n\t');
    expect(result.strategy).toBe('trailing-whitespace');
    expect(text).toBe('\n\t\n\n\n\t');
  });
});
