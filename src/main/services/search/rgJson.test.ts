import fc from 'fast-check';
import { expect, it } from 'vitest';
import { displayLines, firstLine, peekPath, peekType } from './rgJson';

/** A match record as rg --json writes it (path first). */
const record = (path: { text: string } | { bytes: string }) =>
  Buffer.from(JSON.stringify({ type: 'match', data: { path, lines: { text: 'a "quoted" \\ line\n' }, line_number: 1, absolute_offset: 0, submatches: [] } }));

it('reads the path of a match record as a full parse would, whatever it holds', () => {
  const hostile = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.constantFrom('a"b', 'a\\', '\\"', 'x\\\\"y', 'dir/"},"lines":{"text":"evil'));
  fc.assert(
    fc.property(hostile, (p) => {
      expect(peekPath(record({ text: p }))).toBe(JSON.parse(record({ text: p }).toString()).data.path.text);
    }),
    { numRuns: 500 },
  );
});

it('leaves other shapes to a full parse', () => {
  expect(peekPath(record({ bytes: 'Y2Fm6Q==' }))).toBeNull();
  expect(peekPath(Buffer.from('{"type":"context","data":{"path":{"text":"a"}}}'))).toBeNull();
  expect(peekPath(Buffer.from('{"type":"context","data":{"path":{"text":"a\\"b"}}}'), 'context')).toBe('a"b');
  expect(peekPath(Buffer.from('{"type":"match","data":{"path":{"text":"unterminated'))).toBeNull();
});

it('tells each kind of record rg writes by its first bytes, and nothing else', () => {
  for (const type of ['match', 'context', 'begin', 'end']) expect(peekType(Buffer.from(JSON.stringify({ type, data: {} })))).toBe(type);
  expect(peekType(Buffer.from('{"data":{"elapsed_total":{}},"type":"summary"}'))).toBe('');
  expect(peekType(Buffer.from('{"type":"'))).toBe('');
  expect(peekType(Buffer.from('not json'))).toBe('');
});

it('firstLine is the first of displayLines, for any text and line endings', () => {
  const text = fc.array(fc.oneof(fc.string({ maxLength: 5 }), fc.constantFrom('\n', '\r\n', '\r', 'x'.repeat(2100))), { maxLength: 6 }).map((p) => p.join(''));
  fc.assert(
    fc.property(text, (t) => {
      expect(firstLine({ text: t })).toBe(displayLines({ text: t })[0]);
    }),
    { numRuns: 1000 },
  );
});
