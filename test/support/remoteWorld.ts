// A remote workspace as a person would have it, all real: an sshd with its own user (sshd.ts), a
// git project in that user's home, the scripted model server on this machine's 127.0.0.1, and
// `loupe remote ssh://…/~/<name> --serve` started as the bin runs it, with a Loupe home of its own
// whose settings point ssh at the test's ssh_config. Nothing of Loupe is installed there before.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import type { HostConnection } from '../../src/renderer/host-client/types';
import { createWsClient, type SocketLike } from '../../src/renderer/host-client/wsClient';
import { startScriptedLlm, type Responder, type ScriptedLlm, type ScriptedReply } from './scriptedLlm';
import { startSshd, type Sshd, type SshdOptions } from './sshd';
import { tempDir } from './tmp';

export const BIN = fileURLToPath(new URL('../../bin/loupe.mjs', import.meta.url));

export interface RemoteWorld {
  sshd: Sshd;
  llm: ScriptedLlm;
  /** The Loupe side's config folder (LOUPE_HOME) and home (HOME). */
  loupeHome: string;
  home: string;
  /** The project's absolute path there. */
  project: string;
  /** `ssh://<alias>/~/<name>` */
  target: string;
  env: NodeJS.ProcessEnv;
  /** Starts `loupe remote <target> --serve` and reads its URL. */
  serve(extra?: string[]): Promise<ServedRemote>;
  /** `loupe serve <folder>` of this machine with the same Loupe home (its Open Remote Folder reaches the test's sshd). */
  serveLocal(folder: string): Promise<{ url: string; stop(): Promise<void> }>;
  /** `loupe run --remote <target> …`, to its end (`bin`: another Loupe's). */
  run(args: string[], opts?: { timeoutMs?: number; input?: string; bin?: string }): Promise<{ code: number | null; stdout: string; stderr: string }>;
  /** The pid of ssh's shared connection to the test server, or null. */
  masterPid(): number | null;
  stop(): Promise<void>;
}

export interface RemoteWorldOptions {
  name?: string;
  files?: Record<string, string>;
  script?: ScriptedReply[] | Responder;
  sshd?: SshdOptions;
  /** More of the Loupe side's settings.json. */
  settings?: Record<string, unknown>;
}

export async function remoteWorld(opts: RemoteWorldOptions = {}): Promise<RemoteWorld> {
  const sshd = await startSshd(opts.sshd);
  const llm = await startScriptedLlm(opts.script ?? []);
  const local = await tempDir('loupe-remote-local-');
  const loupeHome = path.join(local.dir, 'loupe');
  const home = path.join(local.dir, 'home');
  await mkdir(loupeHome, { recursive: true });
  await mkdir(home, { recursive: true });
  await writeFile(
    path.join(loupeHome, 'settings.json'),
    JSON.stringify({ remote: { ssh_args: ['-F', sshd.sshConfig] }, llm: { base_url: llm.baseURL, model: 'scripted', api_key: 'sk-remote-test-key-7f3a' }, ...opts.settings }, null, 2),
  );
  const name = opts.name ?? 'proj';
  const project = path.join(sshd.home, name);
  const files = opts.files ?? { 'README.md': '# remote project\n' };
  sshd.asUser(`mkdir -p ${name} && cd ${name} && git init -q`);
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(project, rel);
    sshd.asUser(`mkdir -p '${path.dirname(abs)}' && cat > '${abs}' <<'LOUPE_EOF'\n${content}LOUPE_EOF`);
  }
  sshd.asUser(`cd ${name} && git add -A && git -c user.email=t@x -c user.name=T commit -qm init`);
  const env: NodeJS.ProcessEnv = { ...process.env, LOUPE_HOME: loupeHome, HOME: home, LOUPE_KEYCHAIN: 'off', LOUPE_LSP: 'off' };
  delete env.OPENAI_BASE_URL;
  delete env.OPENAI_API_KEY;
  delete env.LOUPE_MODEL;
  delete env.SSH_AUTH_SOCK;
  const target = `ssh://${sshd.alias}/~/${name}`;
  const procs = new Set<ChildProcess>();

  const masterPid = (): number | null => {
    const r = spawnSync('ssh', ['-F', sshd.sshConfig, '-o', `ControlPath=${path.join(loupeHome, 'ssh', '%C')}`, '-O', 'check', '--', sshd.alias], { encoding: 'utf8' });
    const m = /pid=(\d+)/.exec(r.stderr ?? '');
    return r.status === 0 && m ? Number(m[1]) : null;
  };

  return {
    sshd,
    llm,
    loupeHome,
    home,
    project,
    target,
    env,
    masterPid,
    async serve(extra = []) {
      const served = await serveRemote(target, env, extra);
      procs.add(served.proc);
      return served;
    },
    async serveLocal(folder) {
      const proc = spawn(process.execPath, [BIN, 'serve', folder, '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      procs.add(proc);
      let stderr = '';
      proc.stderr!.on('data', (d) => (stderr += d));
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        proc.stdout!.on('data', (d) => {
          out += d;
          const m = /^(http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)$/m.exec(out);
          if (m) resolve(m[1]);
        });
        proc.on('exit', (code) => reject(new Error(`loupe serve exited with ${code}: ${stderr}`)));
      });
      return {
        url,
        async stop() {
          if (proc.exitCode === null && proc.signalCode === null) {
            const exited = new Promise((r) => proc.once('exit', r));
            proc.kill('SIGTERM');
            await exited;
          }
          procs.delete(proc);
        },
      };
    },
    run(args, o = {}) {
      return new Promise((resolve, reject) => {
        const proc = spawn(process.execPath, [o.bin ?? BIN, 'run', '--remote', target, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
        procs.add(proc);
        let stdout = '';
        let stderr = '';
        proc.stdout!.on('data', (d) => (stdout += d));
        proc.stderr!.on('data', (d) => (stderr += d));
        proc.stdin!.end(o.input ?? '');
        const timer = setTimeout(() => {
          proc.kill('SIGKILL');
          reject(new Error(`loupe run --remote did not end; stderr: ${stderr}`));
        }, o.timeoutMs ?? 180_000);
        proc.on('close', (code) => {
          clearTimeout(timer);
          procs.delete(proc);
          resolve({ code, stdout, stderr });
        });
      });
    },
    async stop() {
      for (const p of procs) p.kill('SIGKILL');
      // The shared connection outlives Loupe by design; this test's is closed here.
      const pid = masterPid();
      if (pid) {
        try {
          process.kill(pid, 'SIGTERM');
        } catch {
          // Gone already.
        }
      }
      await llm.close();
      await sshd.stop();
      await local.cleanup();
    },
  };
}

/** The window's own client (renderer/host-client) on a relay's URL, as the page would connect. */
export function windowClient(url: string): HostConnection {
  const u = new URL(url);
  return createWsClient({
    url: `ws://127.0.0.1:${u.port}/ws?token=${u.searchParams.get('token')}`,
    createSocket: (ws) => new WebSocket(ws, { headers: { origin: `http://127.0.0.1:${u.port}` } }) as unknown as SocketLike,
    setTimer: (fn, ms) => setTimeout(fn, ms),
  });
}

/**
 * Another Loupe on this machine, older: this checkout's build copied to a folder whose
 * manifest names `version` (node_modules linked), run through its own bin.
 */
export async function olderLoupe(version: string): Promise<{ bin: string; cleanup: () => Promise<void> }> {
  const root = path.resolve(path.dirname(BIN), '..');
  const t = await tempDir('loupe-older-');
  for (const part of ['bin', 'out/main']) {
    await mkdir(path.join(t.dir, part), { recursive: true });
    spawnSync('cp', ['-a', `${path.join(root, part)}/.`, path.join(t.dir, part)]);
  }
  for (const f of ['package.json', 'package-lock.json']) spawnSync('cp', [path.join(root, f), path.join(t.dir, f)]);
  await symlink(path.join(root, 'node_modules'), path.join(t.dir, 'node_modules'));
  await writeFile(path.join(t.dir, 'manifest.json'), JSON.stringify({ version, build: 'older', node: 'system', created_at: new Date().toISOString() }));
  return { bin: path.join(t.dir, 'bin', 'loupe.mjs'), cleanup: t.cleanup };
}

export interface ServedRemote {
  url: string;
  proc: ChildProcess;
  stderr: () => string;
  stop(): Promise<void>;
}

/** `loupe remote <target> --serve` as the bin runs it; resolves once it prints its URL. */
export async function serveRemote(target: string, env: NodeJS.ProcessEnv, extra: string[] = []): Promise<ServedRemote> {
  const proc = spawn(process.execPath, [BIN, 'remote', target, '--serve', '--port', '0', ...extra], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr!.on('data', (d) => (stderr += d));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`loupe remote printed no URL; stderr: ${stderr}`)), 240_000);
    proc.stdout!.on('data', (d) => {
      out += d;
      const m = /^(http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`loupe remote exited with ${code}: ${stderr}`));
    });
  });
  return {
    url,
    proc,
    stderr: () => stderr,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) {
        const exited = new Promise((r) => proc.once('exit', r));
        proc.kill('SIGTERM');
        await exited;
      }
    },
  };
}
