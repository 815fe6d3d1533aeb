// Malformed WebSocket client frames: every edge of RFC 6455's frame format, and random ones.
import fc from 'fast-check';
import { closePayload, frame, textFrame } from './rawWs';

const MAX_PAYLOAD = 16 * 1024 * 1024;
const hex = (...b: number[]) => Buffer.from(b);

/** Byte sequences that are not UTF-8: stray continuations, overlongs, surrogates, > U+10FFFF, cut short. */
const BAD_UTF8: Buffer[] = [
  hex(0x80), hex(0xbf), hex(0xc0, 0x80), hex(0xc1, 0xbf), hex(0xe0, 0x80, 0x80), hex(0xe0, 0x9f, 0xbf),
  hex(0xed, 0xa0, 0x80), hex(0xed, 0xbf, 0xbf), hex(0xf0, 0x80, 0x80, 0x80), hex(0xf4, 0x90, 0x80, 0x80),
  hex(0xf5, 0x80, 0x80, 0x80), hex(0xf8, 0x88, 0x80, 0x80, 0x80), hex(0xfc, 0x84, 0x80, 0x80, 0x80, 0x80),
  hex(0xfe), hex(0xff), hex(0xc2), hex(0xe2, 0x82), hex(0xf0, 0x9f, 0x98), hex(0xc2, 0x41), hex(0xe2, 0x28, 0xa1),
];

const INVALID_CLOSE_CODES = [0, 1, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535];

/** Each case is one connection's bytes, sent right after the handshake. */
export function frameCorpus(): { name: string; bytes: Buffer[] }[] {
  const cases: { name: string; bytes: Buffer[] }[] = [];
  const add = (name: string, ...bytes: Buffer[]) => cases.push({ name, bytes });
  for (const op of [3, 4, 5, 6, 7, 11, 12, 13, 14, 15]) add(`reserved opcode ${op}`, frame({ opcode: op, payload: Buffer.from('x') }));
  for (const op of [0x1, 0x2, 0x8, 0x9, 0xa]) {
    for (let rsv = 1; rsv <= 7; rsv++) add(`rsv ${rsv} on opcode ${op}`, frame({ opcode: op, rsv, payload: Buffer.from('{}') }));
  }
  for (const op of [0x0, 0x1, 0x2, 0x8, 0x9, 0xa]) add(`unmasked opcode ${op}`, frame({ opcode: op, masked: false, payload: Buffer.from('hi') }));
  // Length encodings at each boundary, minimal and not, and lengths no server can honour.
  for (const n of [0, 1, 125, 126, 127, 65535, 65536]) {
    add(`text of ${n} bytes`, textFrame(Buffer.alloc(n, 0x61)));
    add(`binary of ${n} bytes, 64-bit form`, frame({ opcode: 2, payload: Buffer.alloc(n, 1), length: { form: 64, value: BigInt(n) } }));
  }
  for (const n of [0, 5, 125]) add(`text of ${n} in 16-bit form`, frame({ opcode: 1, payload: Buffer.alloc(n, 0x61), length: { form: 16, value: BigInt(n) } }));
  for (const value of [2n ** 63n, 2n ** 64n - 1n, 2n ** 53n, 2n ** 53n + 1n, 2n ** 32n, BigInt(MAX_PAYLOAD) + 1n, 2n ** 62n]) {
    for (const opcode of [1, 2, 0]) add(`declared length ${value} opcode ${opcode}`, frame({ opcode, payload: Buffer.from('abc'), length: { form: 64, value } }));
  }
  add('16-bit length beyond the bytes sent', frame({ opcode: 1, payload: Buffer.from('abc'), length: { form: 16, value: 65535n } }));
  // Text that is not UTF-8, whole, inside valid text, and split across fragments.
  for (const bad of BAD_UTF8) {
    add(`invalid utf-8 ${bad.toString('hex')}`, textFrame(bad));
    add(`invalid utf-8 inside text ${bad.toString('hex')}`, textFrame(Buffer.concat([Buffer.from('{"t":"req","id":1,"ch":"'), bad, Buffer.from('"}')])));
    add(`invalid utf-8 across fragments ${bad.toString('hex')}`, textFrame(Buffer.from('ok'), { fin: false }), frame({ opcode: 0, payload: bad }));
    add(`invalid utf-8 in a close reason ${bad.toString('hex')}`, frame({ opcode: 8, payload: closePayload(1000, bad) }));
  }
  for (const code of INVALID_CLOSE_CODES) add(`close with code ${code}`, frame({ opcode: 8, payload: closePayload(code, Buffer.from('bye')) }));
  add('close with a 1-byte payload', frame({ opcode: 8, payload: hex(0x03) }));
  for (const op of [0x8, 0x9, 0xa]) {
    add(`fragmented control ${op}`, frame({ opcode: op, fin: false, payload: op === 8 ? closePayload(1000) : Buffer.from('p') }));
    for (const n of [126, 127, 200, 65535]) {
      const payload = op === 8 ? Buffer.concat([closePayload(1000), Buffer.alloc(n - 2, 0x61)]) : Buffer.alloc(n, 0x61);
      add(`oversize control ${op} of ${n}`, frame({ opcode: op, payload }));
    }
    add(`control ${op} claiming 64-bit length`, frame({ opcode: op, payload: Buffer.from('x'), length: { form: 64, value: 2n ** 63n } }));
  }
  add('continuation with nothing to continue', frame({ opcode: 0, payload: Buffer.from('x') }));
  add('new data frame inside a fragmented message', textFrame('a', { fin: false }), textFrame('b'));
  add('binary inside a fragmented text', textFrame('a', { fin: false }), frame({ opcode: 2, payload: Buffer.from('b') }));
  add('fragments past the size limit', frame({ opcode: 1, fin: false, payload: Buffer.alloc(1024, 0x61) }), frame({ opcode: 0, payload: Buffer.from('x'), length: { form: 64, value: BigInt(MAX_PAYLOAD) } }));
  // Cut short: the socket ends mid-header, mid-length, mid-mask, mid-payload.
  const whole = textFrame(Buffer.alloc(300, 0x61));
  for (const cut of [1, 2, 3, 4, 5, 7, 9, 50]) add(`truncated after ${cut} bytes`, whole.subarray(0, cut));
  add('truncated 64-bit length', frame({ opcode: 1, payload: Buffer.alloc(70000, 0x61) }).subarray(0, 6));
  add('garbage', Buffer.from('GET / HTTP/1.1\r\n\r\n'));
  return cases;
}

/** Random frame sequences and random bytes, the same ones on every run. */
export function randomFrameStreams(count: number, seed = 20261124): Buffer[][] {
  const spec = fc.record({
    fin: fc.boolean(),
    rsv: fc.integer({ min: 0, max: 7 }),
    opcode: fc.integer({ min: 0, max: 15 }),
    masked: fc.boolean(),
    payload: fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
    length: fc.option(fc.record({ form: fc.constantFrom(7 as const, 16 as const, 64 as const), value: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }) }), { nil: undefined }),
  });
  return fc.sample(
    fc.oneof(
      fc.array(spec, { minLength: 1, maxLength: 4 }).map((specs) => specs.map(frame)),
      fc.uint8Array({ minLength: 1, maxLength: 64 }).map((a) => [Buffer.from(a)]),
    ),
    { numRuns: count, seed },
  );
}
