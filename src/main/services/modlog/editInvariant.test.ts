import { describe, expect, it } from 'vitest';
import { editInvariantViolations } from './editInvariant';

describe('edit invariant', () => {
  it('accepts an edit that changes only its own lines', () => {
    expect(editInvariantViolations('a\r\nb\nc\r\n', 'A\r\nb\nC\r\n', [{ first: 1, last: 3 }])).toEqual([]);
    expect(editInvariantViolations('\uFEFFa\nb', '\uFEFFa\nb\nc', [{ first: 2, last: 2 }])).toEqual([]);
  });

  it('names an unchanged line whose bytes changed inside the span', () => {
    expect(editInvariantViolations('a\r\nb\nc\r\n', 'A\r\nb\r\nC\r\n', [{ first: 1, last: 3 }])).toEqual([expect.stringContaining('line 2 keeps its text')]);
  });

  it('names a line outside the span that changed', () => {
    expect(editInvariantViolations('f:\n\tx\n\ty\n', 'f:\n\tX\ny\n', [{ first: 2, last: 2, count: 1 }])).toEqual([expect.stringContaining('line 3 is outside the edit')]);
  });

  it('notices a lost BOM and a lost final newline', () => {
    expect(editInvariantViolations('\uFEFFa\n', 'b\n', [{ first: 1, last: 1 }])).toEqual([expect.stringContaining('byte order mark')]);
    expect(editInvariantViolations('a\nb\n', 'A\nb', [{ first: 1, last: 1, count: 1 }])).toEqual([expect.stringContaining('line 2 is outside')]);
  });
});
