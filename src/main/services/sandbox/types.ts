// What the permission engine and the command runner agree on about the OS sandbox
// (docs/architecture.md, sandbox). The probe and the wrappers live beside this file.

/** Whether commands can run inside an OS sandbox on this machine, and if not, why. */
export interface SandboxAvailability {
  available: boolean;
  /** The mechanism: Linux bubblewrap or macOS sandbox-exec; null when none works here. */
  kind: 'bwrap' | 'sandbox-exec' | null;
  /** Why there is none (no bwrap, no user namespaces, Windows); null when available. */
  reason: string | null;
  /** How to get one (e.g. `sudo apt install bubblewrap`); null when available or impossible. */
  install: string | null;
}

/** How an allowed command runs: inside the sandbox (with or without the network). */
export interface SandboxGrant {
  network: boolean;
  /** Why the network is open: the network rule that matched; null when closed. */
  networkRule: string | null;
  /** The workspace too is read-only inside (plan mode, language servers): nothing but the private temp folder is writable. */
  readOnly?: boolean;
}
