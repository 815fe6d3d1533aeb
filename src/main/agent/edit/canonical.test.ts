import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { applyEditedText, canonicalise, spliceOriginal } from './canonical';

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

describe('applyEditedText: an editor’s text back onto the file’s bytes', () => {
  const line = fc.stringMatching(/^[ab\t ]{0,3}$/);
  const eol = fc.constantFrom('\n', '\r\n');
  const file = fc.record({ bom: fc.boolean(), lines: fc.array(fc.tuple(line, eol), { maxLength: 8 }), last: fc.option(line, { nil: undefined }) });
  const rawOf = (f: { bom: boolean; lines: [string, string][]; last?: string }) => (f.bom ? '\uFEFF' : '') + f.lines.map(([l, e]) => l + e).join('') + (f.last ?? '');

  it('gives the edited text, and every line outside the change keeps its own ending', () => {
    fc.assert(
      fc.property(file, fc.array(line, { maxLength: 4 }), fc.nat(), fc.nat(), fc.boolean(), (f, inserted, at, cut, finalBreak) => {
        const raw = rawOf(f);
        const lf = canonicalise(raw).text;
        const lines = lf.split('\n');
        const from = at % (lines.length + 1);
        const to = Math.min(lines.length, from + (cut % 3));
        let edited = [...lines.slice(0, from), ...inserted, ...lines.slice(to)].join('\n');
        if (finalBreak && !edited.endsWith('\n')) edited += '\n';
        const out = applyEditedText(raw, edited);
        expect(canonicalise(out).text).toBe(edited);
        expect(out.startsWith('\uFEFF')).toBe(f.bom);
        // The untouched head keeps its bytes.
        const head = lines.slice(0, Math.max(0, Math.min(from, lines.length) - 1));
        const rawBody = f.bom ? raw.slice(1) : raw;
        const outBody = f.bom ? out.slice(1) : out;
        let pos = 0;
        for (const l of head) {
          const end = rawBody.indexOf('\n', pos) + 1;
          if (l.length && end > 0) expect(outBody.slice(pos, end)).toBe(rawBody.slice(pos, end));
          pos = end;
        }
      }),
      { numRuns: 500 },
    );
  });

  it('returns the same text when nothing changed, whatever its endings', () => {
    for (const raw of ['', '\uFEFFa\r\nb\n', 'a\r\nb\r\n', 'x']) expect(applyEditedText(raw, canonicalise(raw).text)).toBe(raw);
  });

  it('keeps a CRLF file CRLF around an edited line, and a removed final newline removed', () => {
    expect(applyEditedText('a\r\nb\r\nc\r\n', 'a\nB\nc\n')).toBe('a\r\nB\r\nc\r\n');
    expect(applyEditedText('a\r\nb\n', 'a\nb\nnew\n')).toBe('a\r\nb\nnew\n');
    expect(applyEditedText('a\nb\n', 'a\nb')).toBe('a\nb');
  });
});
