// Starting and stopping one language server process (docs/architecture.md, language servers):
// at low CPU priority (nice 10), in its own process group, inside the OS sandbox with the
// workspace read-only and no network when the sandbox is on, its stderr to the log (a bounded
// number of lines per start), and its memory watched: the whole family's resident memory over
// the bound stops it.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '../log/logger';
import { familyOf, signalAll } from '../process/processTable';
import { expandDenyGlobs } from '../sandbox/denyPaths';
import { sandboxedArgv } from '../sandbox/launch';
import { readOnlyPolicy } from '../sandbox/readOnlyRun';
import { sandboxTempEnv } from '../sandbox/tempEnv';
import type { LspSettings, ServerSpec } from './serverTable';

/** Names a server's processes in the process table (and lets a test find them). */
export const SERVER_MARKER = 'LOUPE_LSP_ROOT';

const DROP = ['BASH_ENV', 'ENV', 'PROMPT_COMMAND', 'ELECTRON_RUN_AS_NODE', 'ELECTRON_NO_ATTACH_CONSOLE', 'NODE_OPTIONS'];
const STDERR_LINES = 200;
const KILL_GRACE_MS = 1000;

export interface ServerProcess {
  child: ChildProcess;
  sandboxed: boolean;
  /** Resident memory of the server and everything it started, in bytes (Linux; 0 elsewhere). */
  memory(): number;
  /** SIGTERM to the group, SIGKILL after a grace period; resolves once it exited. */
  kill(): Promise<void>;
}

function niceBinary(): string | null {
  for (const p of ['/usr/bin/nice', '/bin/nice']) if (existsSync(p)) return p;
  return null;
}

function serverEnv(spec: ServerSpec, root: string, tmpDir: string | null): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of DROP) delete env[k];
  return {
    ...env,
    ...(spec.node && process.versions.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {}),
    [SERVER_MARKER]: root,
    ...(tmpDir
      ? {
          ...sandboxTempEnv(tmpDir),
          // Build output and toolchain downloads would go to the read-only workspace or the closed network.
          CARGO_TARGET_DIR: path.join(tmpDir, 'target'),
          GOTOOLCHAIN: 'local',
          GOPROXY: 'off',
        }
      : {}),
  };
}

function rssOf(pid: number): number {
  try {
    const pages = Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]);
    return Number.isFinite(pages) ? pages * 4096 : 0;
  } catch {
    return 0;
  }
}

export function startServerProcess(spec: ServerSpec, root: string, settings: LspSettings, logger: Logger): ServerProcess {
  const sandboxed = settings.sandboxed;
  // Its private temp folder at its real path, as bwrap mounts it (a command's too, launch.ts).
  const tmpDir = sandboxed ? realpathSync(mkdtempSync(path.join(os.tmpdir(), 'loupe-lsp-'))) : null;
  let [program, args] = [spec.argv[0], spec.argv.slice(1)];
  if (tmpDir) [program, args] = sandboxedArgv(readOnlyPolicy(root, expandDenyGlobs(root, settings.denyRead)), tmpDir, root, spec.argv);
  const nice = niceBinary();
  if (nice) [program, args] = [nice, ['-n', '10', program, ...args]];
  const child = spawn(program, args, { cwd: root, env: serverEnv(spec, root, tmpDir), stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  let lines = 0;
  let partial = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop() ?? '';
    for (const line of parts) {
      if (!line.trim()) continue;
      if (++lines <= STDERR_LINES) logger.info('lsp.stderr', { language: spec.key, server: spec.name, line: line.slice(0, 2000) });
      else if (lines === STDERR_LINES + 1) logger.info('lsp.stderr', { language: spec.key, server: spec.name, line: `(more stderr from this start is left out)` });
    }
  });
  child.on('error', (error) => logger.warn('lsp.spawn_failed', { language: spec.key, server: spec.name, error }));
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  void exited.then(() => {
    if (tmpDir) rmSync(tmpDir, { recursive: true, force: true });
  });
  return {
    child,
    sandboxed,
    memory() {
      if (process.platform !== 'linux' || !child.pid) return 0;
      return familyOf(child.pid).reduce((sum, p) => sum + rssOf(p.pid), 0);
    },
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return exited;
      const pid = child.pid;
      if (!pid) return;
      const family = () => [-pid, ...familyOf(pid).map((p) => p.pid)];
      signalAll(family(), 'SIGTERM');
      const timer = setTimeout(() => signalAll(family(), 'SIGKILL'), KILL_GRACE_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}
