// A real OpenSSH server for a test: Debian's sshd on 127.0.0.1 on a free port, with its own host
// key and config in a temp folder, a user made for the test (its home in that folder) and a key
// pair made for it. The client side gets an ssh_config naming the server as a Host alias; Loupe is
// pointed at it through its `remote.ssh_args` setting (`-F`), since ssh reads ~/.ssh/config from
// the password database's home, not from $HOME. Everything is removed by `stop`, the user too.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { tempDir } from './tmp';

export const SSHD = '/usr/sbin/sshd';

export interface Sshd {
  port: number;
  /** The Host alias of `sshConfig` that reaches this server as `user`. */
  alias: string;
  user: string;
  uid: number;
  home: string;
  /** The client's ssh_config (pass with -F). */
  sshConfig: string;
  dir: string;
  /** Runs a command as the user on this machine (what a check "on the remote" does). */
  asUser(command: string, opts?: { timeoutMs?: number }): string;
  /** Pids of every process the user runs now. */
  userPids(): number[];
  /** Stops (SIGSTOP) and resumes the listening server: no new connection gets through meanwhile, those made go on. */
  pause(): void;
  resume(): void;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number, proc: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`sshd exited: ${log()}`);
    const ok = await new Promise<boolean>((r) => {
      const s = net.connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        r(true);
      });
      s.once('error', () => r(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`sshd did not listen: ${log()}`);
}

export interface SshdOptions {
  /** Lines added to the server's sshd_config. */
  serverConfig?: string[];
  /** Lines added to the client's Host block. */
  clientConfig?: string[];
  /** The user's login shell (default /bin/bash). */
  shell?: string;
}

export async function startSshd(opts: SshdOptions = {}): Promise<Sshd> {
  const t = await tempDir('loupe-sshd-');
  const dir = t.dir;
  // The user's home lies inside: the folder must be traversable by it.
  await chmod(dir, 0o755);
  const user = `lt${randomBytes(5).toString('hex')}`;
  const home = path.join(dir, 'home');
  execFileSync('useradd', ['-M', '-d', home, '-s', opts.shell ?? '/bin/bash', user]);
  const uid = Number(execFileSync('id', ['-u', user], { encoding: 'utf8' }).trim());
  // Not locked (a "!" password refuses even keys), yet no password works.
  execFileSync('usermod', ['-p', '*', user]);
  await mkdir(home, { mode: 0o755 });
  execFileSync('chown', [`${user}:${user}`, home]);

  const server = path.join(dir, 'server');
  await mkdir(server, { mode: 0o700 });
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path.join(server, 'host_key')]);
  const client = path.join(dir, 'client');
  await mkdir(client, { mode: 0o700 });
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path.join(client, 'id')]);
  const authorized = path.join(server, 'authorized_keys');
  execFileSync('cp', [path.join(client, 'id.pub'), authorized]);
  await chmod(authorized, 0o644);
  await chmod(server, 0o755);

  const port = await freePort();
  const config = path.join(server, 'sshd_config');
  await writeFile(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${path.join(server, 'host_key')}`,
      `PidFile ${path.join(server, 'sshd.pid')}`,
      `AuthorizedKeysFile ${authorized}`,
      'StrictModes no',
      'UsePAM no',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PubkeyAuthentication yes',
      `AllowUsers ${user}`,
      'AllowTcpForwarding yes',
      'AllowStreamLocalForwarding yes',
      'MaxSessions 64',
      'MaxStartups 64',
      'LogLevel VERBOSE',
      ...(opts.serverConfig ?? []),
      '',
    ].join('\n'),
  );
  // sshd's privilege separation needs its empty folder.
  await mkdir('/run/sshd', { recursive: true, mode: 0o755 });
  let log = '';
  const proc = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  proc.stderr!.on('data', (d) => (log = (log + d).slice(-20_000)));
  await waitForPort(port, proc, () => log);

  const alias = `loupe-test-${port}`;
  const sshConfig = path.join(client, 'ssh_config');
  await writeFile(
    sshConfig,
    [
      `Host ${alias}`,
      '  HostName 127.0.0.1',
      `  Port ${port}`,
      `  User ${user}`,
      `  IdentityFile ${path.join(client, 'id')}`,
      '  IdentitiesOnly yes',
      `  UserKnownHostsFile ${path.join(client, 'known_hosts')}`,
      '  StrictHostKeyChecking accept-new',
      '  BatchMode yes',
      ...(opts.clientConfig ?? []).map((l) => `  ${l}`),
      '',
    ].join('\n'),
  );

  const userPids = (): number[] => {
    try {
      return execFileSync('pgrep', ['-u', String(uid)], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
    } catch {
      return [];
    }
  };
  return {
    port,
    alias,
    user,
    uid,
    home,
    sshConfig,
    dir,
    asUser: (command, o = {}) => execFileSync('runuser', ['-u', user, '--', 'sh', '-c', command], { encoding: 'utf8', cwd: home, timeout: o.timeoutMs ?? 30_000, env: { PATH: process.env.PATH, HOME: home } }),
    userPids,
    pause: () => void proc.kill('SIGSTOP'),
    resume: () => void proc.kill('SIGCONT'),
    async stop() {
      proc.kill('SIGCONT');
      proc.kill('SIGTERM');
      // Whatever the user still runs (a detached host, a command) was started by this test.
      for (let i = 0; i < 50 && userPids().length; i++) {
        for (const pid of userPids()) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // Gone already.
          }
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      try {
        execFileSync('userdel', [user], { stdio: 'ignore' });
      } catch {
        // Kept busy by a process that just died; the group goes with the user below.
      }
      execFileSync('rm', ['-rf', dir]);
      await t.cleanup();
    },
  };
}
