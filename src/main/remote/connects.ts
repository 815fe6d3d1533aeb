import net from 'node:net';

/** Whether a connection opens (a Unix socket's host answers, a TCP port is reachable) within the bound. */
export function connects(to: net.NetConnectOpts, timeoutMs = 3000): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(to);
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(timeoutMs, () => done(false));
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}
