import { randomBytes } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/support/tmp';
import { Tunnel, type OpenTarget } from './tunnel';

const closers: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

/** Both ends of a tunnel over two pipes, each connecting to this machine's loopback. */
function pair(): { local: Tunnel; remote: Tunnel } {
  const up = new PassThrough();
  const down = new PassThrough();
  const connect = (target: OpenTarget) =>
    new Promise<net.Socket>((resolve, reject) => {
      if (!('port' in target)) return reject(new Error('no listener'));
      const s = net.connect(target.port, '127.0.0.1');
      s.once('connect', () => resolve(s));
      s.once('error', reject);
    });
  const local = new Tunnel(down, up, { side: 'local', connect: (t) => ('listener' in t ? connect({ port: Number(t.listener) }) : Promise.reject(new Error('no'))) });
  const remote = new Tunnel(up, down, { side: 'remote', connect });
  closers.push(() => local.close(), () => remote.close());
  return { local, remote };
}

async function echoServer(): Promise<number> {
  const server = net.createServer((s) => s.pipe(s));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  closers.push(() => new Promise((r) => server.close(r)));
  return (server.address() as net.AddressInfo).port;
}

/** A socket pair through `listen`: what the tunnel carries from one end. */
async function through(carry: (s: net.Socket) => void): Promise<net.Socket> {
  const server = net.createServer(carry);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  closers.push(() => new Promise((r) => server.close(r)));
  const client = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
  closers.push(() => client.destroy());
  await new Promise((r) => client.once('connect', r));
  return client;
}

function roundTrip(socket: net.Socket, data: Buffer): Promise<Buffer> {
  return new Promise((resolve) => {
    const got: Buffer[] = [];
    let n = 0;
    socket.on('data', (d: Buffer) => {
      got.push(d);
      n += d.length;
      if (n >= data.length) resolve(Buffer.concat(got));
    });
    socket.write(data);
  });
}

describe('a tunnel over one pipe pair', () => {
  it('carries several connections to ports at once, every byte in order, larger than a frame', async () => {
    const port = await echoServer();
    const { local } = pair();
    const payloads = [randomBytes(10), randomBytes(3 * 1024 * 1024 + 7), randomBytes(70_000)];
    const sockets = await Promise.all(payloads.map(() => through((s) => local.carry(s, { port }))));
    const back = await Promise.all(sockets.map((s, i) => roundTrip(s, payloads[i])));
    back.forEach((b, i) => expect(b.equals(payloads[i])).toBe(true));
  });

  it('listens on an owner-only socket on the other side whose connections come back', async () => {
    const port = await echoServer();
    const { local } = pair();
    const { dir, cleanup } = await tempDir('loupe-tunnel-');
    closers.push(cleanup);
    const sock = path.join(dir, 'sub', 'model.sock');
    local.listenThere(String(port), sock);
    const client = await new Promise<net.Socket>((resolve) => {
      const tryIt = () => {
        const s = net.connect(sock);
        s.once('connect', () => resolve(s));
        s.once('error', () => setTimeout(tryIt, 20));
      };
      tryIt();
    });
    closers.push(() => client.destroy());
    const data = randomBytes(5000);
    expect((await roundTrip(client, data)).equals(data)).toBe(true);
    const { statSync } = await import('node:fs');
    expect(statSync(sock).mode & 0o777).toBe(0o600);
  });

  it('a refused connection closes only its own stream', async () => {
    const port = await echoServer();
    const { local } = pair();
    const dead = await new Promise<number>((r) => {
      const s = net.createServer();
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => r(p));
      });
    });
    const refused = await through((s) => local.carry(s, { port: dead }));
    await new Promise((r) => refused.once('close', r));
    const ok = await through((s) => local.carry(s, { port }));
    const data = randomBytes(100);
    expect((await roundTrip(ok, data)).equals(data)).toBe(true);
    expect(local.isOpen).toBe(true);
  });
});
