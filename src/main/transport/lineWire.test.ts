import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineSplitter, lineWire } from './lineWire';

describe('one JSON text per line', () => {
  it('finds the same lines however the bytes are cut', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ minLength: 1, maxLength: 30 }).map((s) => s.replace(/\n/g, ' ')), { maxLength: 8 }), fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1 }), (lines, cuts) => {
        const bytes = Buffer.from(lines.map((l) => `${l}\n`).join(''));
        const s = new LineSplitter();
        const got: string[] = [];
        let at = 0;
        for (let i = 0; at < bytes.length; i++) {
          const n = cuts[i % cuts.length];
          got.push(...s.push(bytes.subarray(at, at + n)));
          at += n;
        }
        expect(got).toEqual(lines.filter((l) => l !== ''));
      }),
    );
  });

  it('ends the connection on a line past the bound instead of holding it', () => {
    const s = new LineSplitter(10);
    expect(() => s.push(Buffer.from('0123456789abc'))).toThrow(/longer than 10/);
    const input = new PassThrough();
    const w = lineWire(input, new PassThrough());
    let closed = false;
    w.onClose(() => (closed = true));
    input.write(Buffer.alloc(17 * 1024 * 1024, 0x61));
    expect(closed).toBe(true);
  });
});
