'use strict';
// Runs INSIDE the sandbox, in front of the command (docs/architecture.md, "The sandbox's
// network"). The sandbox's network namespace has no route out; the only way out is a Unix
// socket of the host, in a folder bind-mounted read-only. This bridge:
//   (a) listens on 127.0.0.1:<proxy port> inside and pipes each connection to the host's
//       filtering proxy (HTTP_PROXY points here);
//   (b) keeps a control connection to the host, which asks "connect me to inside port N", so
//       127.0.0.1:N on the host reaches a server the command started in here (and a few idle
//       connections the host can use for that at once, without a round trip);
//   (c) listens inside on the ports of this machine a rule names (`127.0.0.1:5432,[::1]:6379`)
//       and pipes each connection to the host as `local <address> <port>`; the host decides
//       and connects to that port of its own loopback;
// then, once every listener is up, starts the command as its child and exits with its status. Every connection to the host
// opens with a token line: other sandboxes can see the folder, but never this process's env.
// Plain CommonJS with no dependencies: it runs with the same Node (or Electron as Node) as Loupe.
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');

const [dir, proxyPortArg, hostPortsArg, sep, program, ...args] = process.argv.slice(2);
if (sep !== '--' || !program) {
  process.stderr.write('loupe net bridge: usage: bridge <dir> <proxy port> <host ports|-> -- program [args]\n');
  process.exit(2);
}
const token = process.env.LOUPE_NET_TOKEN || '';
delete process.env.LOUPE_NET_TOKEN;
delete process.env.ELECTRON_RUN_AS_NODE;
const hostSock = path.join(dir, 'host.sock');
const proxyPort = Number(proxyPortArg);

function toHost(kind) {
  const s = net.connect(hostSock);
  s.write(`${token} ${kind}\n`);
  return s;
}

function pipe(a, b) {
  a.pipe(b);
  b.pipe(a);
  const end = () => {
    a.destroy();
    b.destroy();
  };
  a.on('error', end).on('close', end);
  b.on('error', end).on('close', end);
}

function control() {
  const ctl = toHost('ctl');
  ctl.on('error', () => {});
  let buf = '';
  ctl.on('data', (d) => {
    buf += d.toString('utf8');
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      const m = /^open (\d+) (\S+) (\d+)$/.exec(line);
      if (!m) continue;
      const id = m[1];
      const inner = net.connect({ host: m[2], port: Number(m[3]) });
      let connected = false;
      inner.setNoDelay(true);
      inner.once('connect', () => {
        connected = true;
        pipe(inner, toHost(`conn ${id}`));
      });
      inner.once('error', (e) => {
        if (!connected) ctl.write(`fail ${id} ${e.code || 'ERROR'}\n`);
      });
    }
  });
  // The bridge must never keep the command's sandbox alive on its own.
  ctl.unref();
}

// Idle connections to the host, each waiting for `open <addr> <port>`: a forwarded connection
// then costs no round trip to set up (the host writes the client's first bytes right behind it).
const SPARES = 4;
function spare() {
  const s = toHost('spare');
  s.unref();
  s.on('error', () => s.destroy());
  let head = Buffer.alloc(0);
  const onData = (d) => {
    head = Buffer.concat([head, d]);
    const nl = head.indexOf(10);
    if (nl < 0) {
      if (head.length > 256) s.destroy();
      return;
    }
    s.off('data', onData);
    s.pause();
    spare();
    const m = /^open (\S+) (\d+)$/.exec(head.subarray(0, nl).toString('utf8'));
    if (!m) return void s.destroy();
    const inner = net.connect({ host: m[1], port: Number(m[2]) });
    inner.setNoDelay(true);
    const rest = head.subarray(nl + 1);
    if (rest.length) inner.write(rest);
    pipe(inner, s);
    s.resume();
  };
  s.on('data', onData);
}

function run() {
  const child = spawn(program, args, { stdio: 'inherit' });
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(sig, () => child.kill(sig));
  child.on('error', (e) => {
    process.stderr.write(`${program}: ${e.message}\n`);
    process.exit(127);
  });
  child.on('exit', (code, signal) => process.exit(code ?? 128 + (os.constants.signals[signal] || 0)));
}

/** Listens on `host:port` inside; each connection goes to the host as `kind`. Resolves either way. */
function listen(host, port, kind, what) {
  return new Promise((resolve) => {
    const server = net.createServer((c) => {
      c.setNoDelay(true);
      pipe(c, toHost(kind));
    });
    server.on('error', (e) => {
      process.stderr.write(`loupe net bridge: cannot listen on ${what}: ${e.message}\n`);
      resolve();
    });
    server.listen(port, host, resolve);
    server.unref();
  });
}

control();
for (let i = 0; i < SPARES; i++) spare();
const listening = [];
if (proxyPort > 0) listening.push(listen('127.0.0.1', proxyPort, 'proxy', `127.0.0.1:${proxyPort}`));
for (const spec of hostPortsArg && hostPortsArg !== '-' ? hostPortsArg.split(',') : []) {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(spec);
  if (!m) continue;
  const host = m[1] || m[2];
  listening.push(listen(host, Number(m[3]), `local ${host} ${m[3]}`, `${spec} (this machine's port, forwarded by a rule)`));
}
Promise.all(listening).then(run);
