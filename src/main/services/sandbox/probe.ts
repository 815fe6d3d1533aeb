// Finds out once per workspace whether an OS sandbox works here. Asked lazily: nothing at
// start-up waits for it.
import type { SandboxAvailability } from './types';

export class SandboxProbe {
  private result: Promise<SandboxAvailability> | null = null;

  status(): Promise<SandboxAvailability> {
    this.result ??= Promise.resolve({ available: false, kind: null, reason: 'the sandbox is not built yet', install: null });
    return this.result;
  }
}
