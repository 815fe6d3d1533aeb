// A malformed WebSocket frame costs its own connection, never the server: every edge of the
// frame format, each on a fresh raw connection, while a healthy client keeps being answered.
import net from 'node:net';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type WebSocket from 'ws';
import { closePayload, closedWithin, frame, rawConnect, textFrame, upgradeRequest } from '../support/rawWs';
import { healthyClient, request, serveFixture, type ServeFixture } from '../support/serveFixture';

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

function corpus(): { name: string; bytes: Buffer[] }[] {
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

let fx: ServeFixture;
let healthy: WebSocket;
const uncaught: unknown[] = [];
const onUncaught = (err: unknown) => uncaught.push(err);

beforeAll(() => {
  process.on('uncaughtException', onUncaught);
});
afterAll(() => {
  process.off('uncaughtException', onUncaught);
});
beforeEach(async () => {
  uncaught.length = 0;
  fx = await serveFixture();
  healthy = await healthyClient(fx.srv);
});
afterEach(async () => {
  healthy.terminate();
  await fx.close();
});

async function sendOnOwnConnection(bytes: Buffer[]): Promise<void> {
  const socket = await rawConnect(fx.srv.port, `/ws?token=${fx.srv.token}`);
  socket.on('error', () => undefined);
  for (const b of bytes) socket.write(b);
  // A truncated frame leaves the server waiting for the rest: end our side after a moment.
  if (!(await closedWithin(socket, 150))) socket.destroy();
}

async function expectHealthy(): Promise<void> {
  expect(uncaught).toEqual([]);
  expect(fx.srv.server.listening).toBe(true);
  const res = await request(healthy, 'tree.list', { dir: '' });
  expect(res).toMatchObject({ t: 'res', ok: true });
}

async function inBatches<T>(items: T[], size: number, run: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) {
    await Promise.all(items.slice(i, i + size).map(run));
    await expectHealthy();
  }
}

describe('loupe serve survives malformed WebSocket frames', () => {
  it('every edge of the frame format, each on its own connection', async () => {
    const cases = corpus();
    expect(cases.length).toBeGreaterThan(200);
    await inBatches(cases, 24, (c) => sendOnOwnConnection(c.bytes));
    // The server still accepts new clients, not only the one it already had.
    const fresh = await healthyClient(fx.srv);
    expect(await request(fresh, 'app.info', null)).toMatchObject({ ok: true });
    fresh.close();
  }, 60_000);

  it('random frames and random bytes (property)', async () => {
    const spec = fc.record({
      fin: fc.boolean(),
      rsv: fc.integer({ min: 0, max: 7 }),
      opcode: fc.integer({ min: 0, max: 15 }),
      masked: fc.boolean(),
      payload: fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
      length: fc.option(fc.record({ form: fc.constantFrom(7 as const, 16 as const, 64 as const), value: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }) }), { nil: undefined }),
    });
    const streams = fc.sample(
      fc.oneof(
        fc.array(spec, { minLength: 1, maxLength: 4 }).map((specs) => specs.map(frame)),
        fc.uint8Array({ minLength: 1, maxLength: 64 }).map((a) => [Buffer.from(a)]),
      ),
      { numRuns: 150, seed: 20261124 },
    );
    await inBatches(streams, 25, sendOnOwnConnection);
  }, 60_000);

  it('a handshake reset mid-way, accepted or refused, costs nothing', async () => {
    const paths = [`/ws?token=${fx.srv.token}`, '/ws?token=wrong', '/ws', '/elsewhere'];
    await inBatches(paths.flatMap((p) => [p, p, p]), 12, (p) =>
      new Promise<void>((resolve) => {
        const s = net.connect(fx.srv.port, '127.0.0.1', () => {
          s.write(upgradeRequest(fx.srv.port, p));
          setImmediate(() => {
            s.resetAndDestroy();
            resolve();
          });
        });
        s.on('error', () => resolve());
      }),
    );
    await new Promise((r) => setTimeout(r, 200));
    await expectHealthy();
  });
});
