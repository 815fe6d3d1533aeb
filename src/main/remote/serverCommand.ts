// `loupe remote-server`: what the window's machine runs on a remote machine (or in a container)
// through ssh or `exec`, never typed by a person.
//   --connect (the default)  the proxy: starts this version's host if none answers, then joins
//                            stdin/stdout to its socket (one JSON text per line), so a link that
//                            drops only ends this process, never the host
//   --daemon                 the host itself (started detached by --connect)
//   --start                  starts this version's host if none answers, and returns (a container's
//                            host is started through `devcontainer exec`, with its environment)
//   --tunnel                 connections both ways over stdin/stdout (tunnel.ts): a container's
//                            forwarded ports, and its socket back to this machine's model
//   --status                 prints the host's status (a JSON line), or nothing when none runs
//   --stop-if-idle           stops this version's host if nothing runs there (exit 0), else exit 1
import { spawn } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { LoupeError } from '../errors';
import { userLog } from '../services/log/userLog';
import { defaultConfigDir } from '../services/settings/configDir';
import { parseArgs } from '../cli/args';
import { answers, RemoteDaemon } from './daemon';
import { bundleVersion, socketPath } from './layout';
import { pruneOlder, stopIfIdle } from './prune';
import { Tunnel } from './tunnel';

const START_WAIT_MS = 30_000;
/** Variables of the ssh session that started the host: they mean nothing once it is gone, and the agent socket is a credential. */
const SESSION_VARS = ['SSH_AUTH_SOCK', 'SSH_AGENT_PID', 'SSH_CONNECTION', 'SSH_CLIENT', 'SSH_TTY', 'SSH_ORIGINAL_COMMAND'];

export async function runRemoteServer(argv: string[], bundleDir: string): Promise<number> {
  const { flags } = parseArgs(argv, { daemon: 'boolean', connect: 'boolean', status: 'boolean', 'stop-if-idle': 'boolean', start: 'boolean', tunnel: 'boolean', 'agent-socket': 'string' });
  const socket = socketPath(bundleDir);
  if (flags.daemon) return runDaemon(bundleDir, socket);
  if (flags.tunnel) return runTunnel();
  if (flags.start) {
    (await connectWithStart(bundleDir, socket, typeof flags['agent-socket'] === 'string' ? flags['agent-socket'] : undefined)).destroy();
    return 0;
  }
  if (flags['stop-if-idle']) return (await stopIfIdle(socket)) ? 0 : 1;
  if (flags.status) return printStatus(socket);
  return bridge(bundleDir, socket);
}

async function runDaemon(bundleDir: string, socket: string): Promise<number> {
  const configDir = defaultConfigDir();
  const { logger } = userLog({ configDir });
  const { version, build } = bundleVersion(bundleDir);
  let lastPrune = 0;
  const daemon = new RemoteDaemon({
    socket,
    version,
    build,
    configDir,
    logger,
    onAttach: () => {
      // Older versions go once idle; asked at most every few seconds.
      if (Date.now() - lastPrune < 5_000) return;
      lastPrune = Date.now();
      void pruneOlder(bundleDir, version).then(
        (r) => r.removed.length && logger.info('remote.pruned', { removed: r.removed }),
        (err: unknown) => logger.warn('remote.prune_failed', { error: err }),
      );
    },
  });
  try {
    await daemon.listen();
  } catch (err) {
    // Another host of this version won the race to start: it serves.
    if (err instanceof LoupeError) return 0;
    throw err;
  }
  process.on('SIGTERM', () => void daemon.stop('SIGTERM'));
  process.on('SIGINT', () => void daemon.stop('SIGINT'));
  // A lost ssh session sends SIGHUP to what it started; the host is not part of it any more.
  process.on('SIGHUP', () => undefined);
  await daemon.done;
  // Stopped: whatever handle a disposed service left (a watcher, a timer) must not keep it alive.
  process.exit(0);
}

async function printStatus(socket: string): Promise<number> {
  if (!(await answers(socket))) return 1;
  const s = net.connect(socket);
  s.write(`${JSON.stringify({ t: 'status' })}\n`);
  let buf = '';
  for await (const chunk of s) {
    buf += String(chunk);
    if (buf.includes('\n')) break;
  }
  s.destroy();
  process.stdout.write(buf.slice(0, buf.indexOf('\n') + 1));
  return 0;
}

/**
 * Starts the host detached: its own session (setsid), no terminal, its output in a 0600 log beside
 * it. `agentSocket`: the SSH agent the person chose to forward into a container (never otherwise).
 */
function startDaemon(bundleDir: string, agentSocket?: string): void {
  const env = { ...process.env };
  for (const v of SESSION_VARS) delete env[v];
  if (agentSocket) env.SSH_AUTH_SOCK = agentSocket;
  mkdirSync(bundleDir, { recursive: true });
  const log = openSync(path.join(bundleDir, 'host.log'), 'a', 0o600);
  const entry = path.join(bundleDir, 'bin', 'loupe.mjs');
  const child = spawn(process.execPath, ['--max-semi-space-size=4', entry, 'remote-server', '--daemon'], {
    detached: true,
    stdio: ['ignore', log, log],
    env,
    cwd: process.env.HOME || '/',
  });
  child.unref();
}

async function connectWithStart(bundleDir: string, socket: string, agentSocket?: string): Promise<net.Socket> {
  const tryConnect = () =>
    new Promise<net.Socket | null>((resolve) => {
      const s = net.connect(socket);
      s.once('connect', () => resolve(s));
      s.once('error', () => resolve(null));
    });
  const first = await tryConnect();
  if (first) return first;
  startDaemon(bundleDir, agentSocket);
  const deadline = Date.now() + START_WAIT_MS;
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    const s = await tryConnect();
    if (s) return s;
  }
  throw new LoupeError('REMOTE_UNAVAILABLE', `The Loupe host did not start within ${START_WAIT_MS / 1000} s; see ${path.join(bundleDir, 'host.log')}.`);
}

/** The container's end of a tunnel: connections to its loopback ports, and sockets listened on for the other side. */
async function runTunnel(): Promise<number> {
  const tunnel = new Tunnel(process.stdin, process.stdout, {
    side: 'remote',
    connect: (target) =>
      new Promise((resolve, reject) => {
        if (!('port' in target) || !Number.isInteger(target.port)) return reject(new Error('not a port'));
        const s = net.connect(target.port, '127.0.0.1');
        s.once('connect', () => resolve(s));
        s.once('error', reject);
      }),
  });
  await new Promise<void>((resolve) => tunnel.onClose(resolve));
  process.exit(0);
}

async function bridge(bundleDir: string, socket: string): Promise<number> {
  const s = await connectWithStart(bundleDir, socket);
  await new Promise<void>((resolve) => {
    process.stdin.pipe(s);
    s.pipe(process.stdout);
    s.on('close', () => resolve());
    s.on('error', () => resolve());
    process.stdin.on('end', () => s.end());
    process.stdout.on('error', () => s.destroy());
  });
  // The link's end is this process's end; stdin would keep it alive.
  process.stdin.destroy();
  return 0;
}
