// How a program that only reads the repository (a language server) runs in the OS sandbox: the
// same mounts as a command's (the system read-only, credentials and read-denied paths hidden, a
// fresh PID namespace that dies with Loupe, no network namespace way out), but the workspace
// read-only as well, so its private temp folder is the only place it can write
// (docs/architecture.md, language servers). It is wrapped by launch.ts like every command.
import type { SandboxPolicy } from './bwrapPolicy';

/** The policy: nothing of the workspace writable, no network. */
export function readOnlyPolicy(root: string, hide: readonly string[] = []): SandboxPolicy {
  return { root, grant: { network: false, networkRule: null, readOnly: true }, hide };
}
