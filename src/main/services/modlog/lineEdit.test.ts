import { describe, expect, it } from 'vitest';
import { applyLineEdit } from './lineEdit';

describe('code_modify line endings', () => {
  it('an unchanged line in a replaced range keeps its own ending; a changed one takes the replaced line’s', () => {
    expect(applyLineEdit('a\r\nb\nc\r\nd\n', { operation: 'replace', range: [1, 3], content: 'A\nb\nC' }).text).toBe('A\r\nb\nC\r\nd\n');
    expect(applyLineEdit('a\nb\r\nc\n', { operation: 'replace', range: [1, 2], content: 'A\nB\nB2' }).text).toBe('A\nB\r\nB2\r\nc\n');
  });
});
