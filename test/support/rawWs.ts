// A WebSocket client at the byte level, for tests that must send what no library would:
// malformed frames, a socket that is never read, a handshake cut short.
import { randomBytes } from 'node:crypto';
import net from 'node:net';

export interface FrameSpec {
  fin?: boolean;
  /** RSV1..RSV3 as a 3-bit number (4 = RSV1). */
  rsv?: number;
  opcode: number;
  /** Client frames must be masked; false sends the payload in the clear. */
  masked?: boolean;
  payload?: Buffer;
  /** The length field as declared, whatever the payload really is (7, 16 or 64-bit form). */
  length?: { form: 7 | 16 | 64; value: bigint };
}

export function frame(spec: FrameSpec): Buffer {
  const payload = spec.payload ?? Buffer.alloc(0);
  const masked = spec.masked ?? true;
  const n = BigInt(payload.length);
  const length = spec.length ?? { form: n < 126n ? 7 : n < 65536n ? 16 : 64, value: n };
  const b0 = (spec.fin === false ? 0 : 0x80) | ((spec.rsv ?? 0) << 4) | (spec.opcode & 0x0f);
  const m = masked ? 0x80 : 0;
  let head: Buffer;
  if (length.form === 7) head = Buffer.from([b0, m | Number(length.value & 0x7fn)]);
  else if (length.form === 16) {
    head = Buffer.alloc(4);
    head[0] = b0;
    head[1] = m | 126;
    head.writeUInt16BE(Number(length.value & 0xffffn), 2);
  } else {
    head = Buffer.alloc(10);
    head[0] = b0;
    head[1] = m | 127;
    head.writeBigUInt64BE(length.value & 0xffffffffffffffffn, 2);
  }
  if (!masked) return Buffer.concat([head, payload]);
  const key = randomBytes(4);
  const body = Buffer.from(payload);
  for (let i = 0; i < body.length; i++) body[i] ^= key[i % 4];
  return Buffer.concat([head, key, body]);
}

export const textFrame = (text: string | Buffer, more: Partial<FrameSpec> = {}): Buffer =>
  frame({ opcode: 1, payload: Buffer.isBuffer(text) ? text : Buffer.from(text), ...more });

export function closePayload(code: number, reason: Buffer = Buffer.alloc(0)): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(code & 0xffff);
  return Buffer.concat([b, reason]);
}

export function upgradeRequest(port: number, pathAndQuery: string, extra: Record<string, string> = {}): string {
  const headers: Record<string, string> = {
    Host: `127.0.0.1:${port}`,
    Upgrade: 'websocket',
    Connection: 'Upgrade',
    'Sec-WebSocket-Key': randomBytes(16).toString('base64'),
    'Sec-WebSocket-Version': '13',
    ...extra,
  };
  return `GET ${pathAndQuery} HTTP/1.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;
}

/** Connects and completes the opening handshake; rejects on anything but 101. */
export function rawConnect(port: number, pathAndQuery: string, extra: Record<string, string> = {}): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let head = '';
    const onData = (d: Buffer) => {
      head += d.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      if (!/^HTTP\/1\.1 101 /.test(head)) {
        socket.destroy();
        reject(new Error(`handshake refused: ${head.split('\r\n')[0]}`));
        return;
      }
      resolve(socket);
    };
    socket.on('data', onData);
    socket.on('error', reject);
    socket.on('connect', () => socket.write(upgradeRequest(port, pathAndQuery, extra)));
  });
}

/** Resolves when the peer has closed the socket (or after `ms`, then closes it ourselves). */
export function closedWithin(socket: net.Socket, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    if (socket.destroyed) return resolve(true);
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(false);
    }, ms);
    socket.resume();
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}
