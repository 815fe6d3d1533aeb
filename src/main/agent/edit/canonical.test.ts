import { describe, expect, it } from 'vitest';
import { canonicalise, spliceOriginal } from './canonical';

describe('canonical form', () => {
  it('remembers BOM, CRLF positions and the final newline', () => {
    const c = canonicalise('\uFEFFa\r\nb\nc\r\n');
    expect(c).toMatchObject({ text: 'a\nb\nc\n', bom: true, crlfAt: [1, 5], finalNewline: true, eol: '\r\n' });
  });

  it('round-trips untouched text byte for byte', () => {
    for (const raw of ['', 'x', 'a\r\nb', 'a\nb\r\n', '\uFEFF\r\n', 'lone\rcr\n']) {
      const c = canonicalise(raw);
      expect(spliceOriginal(c, [{ start: 0, end: 0, replacement: '' }])).toBe(raw);
    }
  });

  it('writes a replacement with the line ending of the line it lands on', () => {
    const c = canonicalise('a\r\nb\nc');
    expect(spliceOriginal(c, [{ start: 0, end: 1, replacement: 'x\ny' }])).toBe('x\r\ny\r\nb\nc');
    expect(spliceOriginal(c, [{ start: 2, end: 3, replacement: 'x\ny' }])).toBe('a\r\nx\ny\nc');
  });
});
