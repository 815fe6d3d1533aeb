// How a command is started: plainly, or inside the OS sandbox with its private temp folder and,
// when it needs one, its network (a filtering proxy and the ports of this machine its rules name
// for a network grant, port forwards for a background process). Shared by the foreground runner, the process manager and the language
// servers (sandboxedArgv) so each runs by the same policy (docs/architecture.md, sandbox).
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bwrapArgs, type SandboxPolicy } from './bwrapPolicy';
import { sandboxExecProfile } from './sbpl';
import { SandboxNet } from './net/sandboxNet';
import { sandboxTempEnv } from './tempEnv';

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
    // The ports of this machine its rules forward in are fixed when it starts, like its mounts.
    const hostPorts = (await policy.network?.guard.hostPorts?.()) ?? [];
    if (policy.network || (wantsNet && !mac)) net = await SandboxNet.open({ guard: policy.network?.guard, lookup: policy.network?.lookup, tcpProxy: mac, hostPorts });
  } catch (err) {
    rmSync(tmpDir, { recursive: true, force: true });
    throw err;
  }
  const close = () => {
    net?.close();
    rmSync(tmpDir, { recursive: true, force: true });
  };
  const env = { ...sandboxTempEnv(tmpDir), ...(net?.env() ?? {}) };
  const [program, argv] = sandboxedArgv(policy, tmpDir, spec.cwd, [spec.shell, '-c', spec.command], net);
  return { program, argv, env, tmpDir, net, close };
}

/**
 * The program and arguments that run `argv` inside the sandbox with `policy`, in `cwd`: the one
 * wrapper for commands, background processes and language servers, so each runs by the same policy.
 */
export function sandboxedArgv(policy: SandboxPolicy, tmpDir: string, cwd: string, argv: readonly string[], net: SandboxNet | null = null): [string, string[]] {
  if (process.platform === 'darwin') return ['/usr/bin/sandbox-exec', ['-p', sandboxExecProfile(policy, tmpDir, net?.proxyPort ?? 0, net?.hostPorts.insidePorts() ?? []), ...argv]];
  const inner: [string, readonly string[]] = net ? net.wrap(argv[0]!, argv.slice(1)) : [argv[0]!, argv.slice(1)];
  return ['bwrap', [...bwrapArgs(policy, tmpDir, cwd, net?.dir), inner[0], ...inner[1]]];
}
