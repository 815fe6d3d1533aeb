import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { capLines } from './lineCap';

async function through(chunks: Uint8Array[], max: number): Promise<string> {
  const out: Uint8Array[] = [];
  const cap = capLines(max);
  const writer = cap.writable.getWriter();
  const reading = (async () => {
    for await (const c of cap.readable as unknown as AsyncIterable<Uint8Array>) out.push(c);
  })();
  for (const c of chunks) await writer.write(c);
  await writer.close();
  await reading;
  return Buffer.concat(out).toString('utf8');
}

describe('capLines', () => {
  it('passes lines within the limit as they are, however the bytes are chunked, and replaces longer ones', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.string({ unit: fc.constantFrom('a', 'b', '{', '"'), maxLength: 30 }), { maxLength: 12 }), fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1 }), async (lines, cuts) => {
        const max = 16;
        const bytes = Buffer.from(lines.map((l) => `${l}\n`).join(''));
        const chunks: Uint8Array[] = [];
        for (let at = 0, i = 0; at < bytes.length; i++) {
          const n = cuts[i % cuts.length];
          chunks.push(bytes.subarray(at, at + n));
          at += n;
        }
        const expected = lines.map((l) => (Buffer.byteLength(l) > max ? '<a line over the size limit was dropped>\n' : `${l}\n`)).join('');
        expect(await through(chunks, max)).toBe(expected);
      }),
      { numRuns: 200 },
    );
  });
});
