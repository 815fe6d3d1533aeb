// How a command is started: plainly, or inside the OS sandbox with its private temp folder and,
// when it needs one, its network (a filtering proxy for a network grant, port forwards for a
// background process). Shared by the foreground runner and the process manager so both run a
// command by the same policy (docs/architecture.md, sandbox).
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bwrapArgs, type SandboxPolicy } from './bwrapPolicy';
import { sandboxExecProfile } from './sbpl';
import { SandboxNet } from './net/sandboxNet';

export interface LaunchSpec {
  shell: string;
  command: string;
  cwd: string;
  sandbox?: SandboxPolicy;
  /** Start the bridge even without a network grant, so ports the command listens on can be forwarded. */
  forwardPorts?: boolean;
}

export interface Launch {
  program: string;
  argv: string[];
  /** Added to the command's environment. */
  env: NodeJS.ProcessEnv;
  tmpDir: string | null;
  /** The sandbox's network (proxy and forwards); null outside it or when it needs none. */
  net: SandboxNet | null;
  /** Removes the temp folder and closes the network; call once the command and its family are gone. */
  close(): void;
}

export async function prepareLaunch(spec: LaunchSpec): Promise<Launch> {
  if (!spec.sandbox) return { program: spec.shell, argv: ['-c', spec.command], env: {}, tmpDir: null, net: null, close: () => {} };
  // A fresh private temp folder per command, the only writable place besides the workspace
  // (TMPDIR points there; /tmp itself stays read-only, like the rest), removed afterwards.
  const tmpDir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'loupe-sbx-')));
  const policy = spec.sandbox;
  const wantsNet = !!policy.network || !!spec.forwardPorts;
  let net: SandboxNet | null = null;
  try {
    const mac = process.platform === 'darwin';
    // macOS has no namespace to forward into: a local port the command binds is the host's already.
    if (policy.network || (wantsNet && !mac)) net = await SandboxNet.open({ guard: policy.network?.guard, lookup: policy.network?.lookup, tcpProxy: mac });
  } catch (err) {
    rmSync(tmpDir, { recursive: true, force: true });
    throw err;
  }
  const close = () => {
    net?.close();
    rmSync(tmpDir, { recursive: true, force: true });
  };
  const env = { ...sandboxTempEnv(tmpDir), ...(net?.env() ?? {}) };
  if (process.platform === 'darwin') {
    return { program: '/usr/bin/sandbox-exec', argv: ['-p', sandboxExecProfile(policy, tmpDir, net?.proxyPort ?? 0), spec.shell, '-c', spec.command], env, tmpDir, net, close };
  }
  const inner: [string, string[]] = net ? net.wrap(spec.shell, ['-c', spec.command]) : [spec.shell, ['-c', spec.command]];
  return { program: 'bwrap', argv: [...bwrapArgs(policy, tmpDir, spec.cwd, net?.dir), inner[0], ...inner[1]], env, tmpDir, net, close };
}

/**
 * Inside the sandbox HOME is read-only, so the package managers' caches (npm, yarn, pip, go and
 * the XDG cache) move into the command's private temp folder: an install allowed the network
 * works, at the cost of a cold cache, and nothing it writes outlives the command.
 */
function sandboxTempEnv(tmpDir: string): NodeJS.ProcessEnv {
  const cache = path.join(tmpDir, '.cache');
  return {
    TMPDIR: tmpDir,
    TMP: tmpDir,
    TEMP: tmpDir,
    XDG_CACHE_HOME: cache,
    npm_config_cache: path.join(cache, 'npm'),
    YARN_CACHE_FOLDER: path.join(cache, 'yarn'),
    PIP_CACHE_DIR: path.join(cache, 'pip'),
    GOCACHE: path.join(cache, 'go-build'),
  };
}
