import fc from 'fast-check';
import { expect, it } from 'vitest';
import { peekPath } from './rgJson';

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
  expect(peekPath(Buffer.from('{"type":"match","data":{"path":{"text":"unterminated'))).toBeNull();
});
