import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Served {
  url: string;
  port: number;
  token: string;
  proc: ChildProcess;
  /** The user's config folder (LOUPE_HOME) this server keeps settings.json in. */
  home: string;
  stop(): Promise<void>;
}

const BIN = fileURLToPath(new URL('../../bin/loupe.mjs', import.meta.url));

export interface ServeOptions {
  /** The user's settings.json as saved before the start (e.g. `{ sandbox: 'off' }` for tests about asking). */
  settings?: Record<string, unknown>;
  /**
   * Runs the server in a user namespace of its own whose inotify limit is this small (the
   * kernel keeps one limit per namespace), so running out of watches leaves other tests alone.
   */
  inotifyLimit?: number;
  /** Language servers may start (off unless a test is about them: each costs seconds of CPU). */
  lsp?: boolean;
}

/** Starts the real `loupe serve` on a folder, as a user would, and reads its one URL line. */
export async function startServe(folder: string, env: Record<string, string> = {}, opts: ServeOptions = {}): Promise<Served> {
  const home = await realpath(await mkdtemp(path.join(os.tmpdir(), 'loupe-home-')));
  if (opts.settings) await writeFile(path.join(home, 'settings.json'), JSON.stringify(opts.settings, null, 2));
  const args = [BIN, 'serve', folder, '--port', '0'];
  const [cmd, argv] = opts.inotifyLimit
    ? ['unshare', ['-U', '-r', 'sh', '-c', `echo ${opts.inotifyLimit} > /proc/sys/user/max_inotify_watches && exec "$0" "$@"`, process.execPath, ...args]]
    : [process.execPath, args];
  const proc = spawn(cmd, argv, {
    // HOME too: the terminal's shells must not run (or, killed mid-way, damage) the machine's rc
    // files. LOUPE_KEYCHAIN=off: a key saved by a test stays in that home, out of the user's keyring.
    env: { ...process.env, LOUPE_HOME: home, HOME: home, LOUPE_KEYCHAIN: 'off', LOUPE_LSP: opts.lsp ? 'on' : 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  proc.stderr!.on('data', (d) => (stderr += d));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`loupe serve printed no URL; stderr: ${stderr}`)), 20_000);
    proc.stdout!.on('data', (d) => {
      out += d;
      const m = out.match(/^(http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)$/m);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    proc.on('exit', (code) => reject(new Error(`loupe serve exited with ${code}: ${stderr}`)));
  });
  const u = new URL(url);
  return {
    url,
    port: Number(u.port),
    token: u.searchParams.get('token')!,
    proc,
    home,
    async stop() {
      if (proc.exitCode === null) {
        const exited = new Promise((r) => proc.once('exit', r));
        proc.kill('SIGTERM');
        await exited;
      }
      await rm(home, { recursive: true, force: true });
    },
  };
}
