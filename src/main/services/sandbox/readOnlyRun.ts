// How a program that only reads the repository (a language server) runs in the OS sandbox: the
// same mounts as a command's (the system read-only, credentials and read-denied paths hidden, a
// fresh PID namespace that dies with Loupe), but the workspace read-only as well and no network,
// so its private temp folder is the only place it can write (docs/architecture.md, language servers).
import { sandboxExecProfile } from './sbpl';
import { bwrapArgs, type SandboxPolicy } from './bwrapPolicy';

/** The policy: nothing of the workspace writable, no network. */
export function readOnlyPolicy(root: string, hide: readonly string[] = []): SandboxPolicy {
  return { root, grant: { network: false, networkRule: null }, hide, readOnlyWorkspace: true };
}

/** The program and arguments that run `argv` inside the sandbox with `policy`, in `cwd`. */
export function sandboxedArgv(policy: SandboxPolicy, tmpDir: string, cwd: string, argv: readonly string[], platform: NodeJS.Platform = process.platform): [string, string[]] {
  if (platform === 'darwin') return ['/usr/bin/sandbox-exec', ['-p', sandboxExecProfile(policy, tmpDir), ...argv]];
  return ['bwrap', [...bwrapArgs(policy, tmpDir, cwd), ...argv]];
}
