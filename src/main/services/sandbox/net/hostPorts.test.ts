// The host's end of the forwards into a sandbox: whatever a command inside writes on the
// bridge's socket (it can read the bridge's token from /proc), a `local` line reaches a port of
// this machine only when it is exactly one the rules forward, and then only that port. Generated
// lines against real servers on this machine's loopback; no sandbox needed for the host's end.
import fc from 'fast-check';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxNet } from './sandboxNet';
import type { HostPort, NetworkGuard } from './types';

interface Srv {
  server: net.Server;
  port: number;
  accepted: number;
}

async function lineServer(name: string): Promise<Srv> {
  const me: Srv = { server: net.createServer(), port: 0, accepted: 0 };
  me.server.on('connection', (s) => {
    me.accepted++;
    s.on('error', () => s.destroy());
    s.on('data', () => s.write(`${name}\n`));
  });
  await new Promise<void>((r) => me.server.listen(0, '127.0.0.1', r));
  me.port = (me.server.address() as AddressInfo).port;
  return me;
}

let named: Srv;
let other: Srv;
beforeAll(async () => {
  named = await lineServer('named');
  other = await lineServer('other');
});
afterAll(async () => {
  for (const s of [named, other]) await new Promise((r) => s.server.close(r));
});

const allowAll: NetworkGuard = { decide: async () => ({ allowed: true, named: true, reason: 'test' }) };

/** One `local` line on the bridge's socket with the token: what came back (or '' when closed). */
function ask(sn: SandboxNet, line: string): Promise<string> {
  return new Promise((resolve) => {
    const s = net.connect(path.join(sn.dir, 'host.sock'));
    let got = '';
    const done = () => {
      s.destroy();
      resolve(got.trim());
    };
    s.write(`${sn.env().LOUPE_NET_TOKEN} ${line}\nping\n`);
    s.on('data', (d) => {
      got += d;
      if (got.includes('\n')) done();
    });
    s.on('error', done);
    s.on('close', done);
    setTimeout(done, 5000);
  });
}

describe('HostPortForwards (the host end of the bridge)', () => {
  it('a generated local line reaches a server only when it is exactly a forwarded address and port', async () => {
    const forward = (p: number): HostPort => ({ host: '127.0.0.1', port: p, listen: '127.0.0.1', connect: ['127.0.0.1'] });
    const sn = await SandboxNet.open({ guard: allowAll, hostPorts: [forward(named.port)] });
    try {
      const address = fc.constantFrom('127.0.0.1', '::1', 'localhost', '127.0.0.2', '0.0.0.0', '::ffff:127.0.0.1', '127.1', 'LOCALHOST', '[127.0.0.1]', '10.0.0.1', '');
      const port = fc.oneof(fc.constantFrom(String(named.port), String(other.port), `0${named.port}`, `${named.port}0`, `${named.port} x`, '0', '65536', '-1'), fc.integer({ min: 1, max: 65535 }).map(String));
      const sep = fc.constantFrom(' ', '  ', '\t');
      // The one line that does reach, asked for once whatever the generator picks.
      expect(await ask(sn, `local 127.0.0.1 ${named.port}`)).toBe('named');
      await fc.assert(
        fc.asyncProperty(address, port, sep, async (a, p, s) => {
          const before = other.accepted;
          const got = await ask(sn, `local${s}${a}${s}${p}`);
          const exact = s === ' ' && a === '127.0.0.1' && p === String(named.port);
          expect(got, `local${s}${a}${s}${p}`).toBe(exact ? 'named' : '');
          expect(other.accepted).toBe(before);
        }),
        { numRuns: 300 },
      );
      expect(sn.activity().reached).toEqual([`127.0.0.1:${named.port}`]);
    } finally {
      sn.close();
    }
  });

  it('without a guard nothing is forwarded, and a guard that refuses is reported as refused', async () => {
    const f: HostPort = { host: 'localhost', port: named.port, listen: '127.0.0.1', connect: ['127.0.0.1', '::1'] };
    const none = await SandboxNet.open({ hostPorts: [f] });
    const refusing = await SandboxNet.open({ guard: { decide: async () => ({ allowed: false, named: false, reason: 'the person denied it' }) }, hostPorts: [f] });
    try {
      expect(none.hostPorts.ports).toEqual([]);
      expect(await ask(refusing, `local 127.0.0.1 ${named.port}`)).toBe('');
      expect(refusing.blocked()).toEqual({ host: `localhost:${named.port}`, reason: 'the person denied it' });
      // The proxy's own port inside never collides with a forwarded one.
      expect(refusing.bridgePorts().has(named.port)).toBe(true);
      expect(refusing.proxyPort).not.toBe(named.port);
    } finally {
      none.close();
      refusing.close();
    }
  });

  it("a forwarded port nothing answers on is listed, but not as the sandbox's refusal", async () => {
    const gone = await lineServer('gone');
    await new Promise((r) => gone.server.close(r));
    const sn = await SandboxNet.open({ guard: allowAll, hostPorts: [{ host: '127.0.0.1', port: gone.port, listen: '127.0.0.1', connect: ['127.0.0.1'] }] });
    try {
      expect(await ask(sn, `local 127.0.0.1 ${gone.port}`)).toBe('');
      expect(sn.activity().refused).toEqual([{ host: `127.0.0.1:${gone.port}`, reason: expect.stringContaining("nothing answers at this machine's") }]);
      expect(sn.blocked()).toBeNull();
    } finally {
      sn.close();
    }
  });
});
