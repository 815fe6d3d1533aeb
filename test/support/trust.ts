// Workspace trust in tests goes through the real store (a UserSettings in its own temp config
// folder) and the real act of trusting (`trustCurrentConfig`, what `loupe trust` does).
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { trustCurrentConfig } from '../../src/main/services/permissions/trust';
import { UserSettings } from '../../src/main/services/settings/userSettings';
import { writeUserSettings } from './userSettings';

export interface TestTrust {
  /** The user's settings, in a config folder of its own (outside every workspace). */
  store: UserSettings;
  configDir: string;
  /** Trusts the folder with its config as it is now, as `loupe trust` would. */
  trust(root: string): Promise<void>;
  cleanup(): void;
}

export interface TestTrustOptions {
  /** The user's "sandbox" setting ("off" for tests about the questions asked without one). */
  sandbox?: 'auto' | 'off';
}

export function testTrust(opts: TestTrustOptions = {}): TestTrust {
  const configDir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'loupe-user-')));
  if (opts.sandbox) writeUserSettings(configDir, { sandbox: opts.sandbox });
  const store = new UserSettings(configDir);
  return {
    store,
    configDir,
    trust: async (root) => void (await trustCurrentConfig(root, store)),
    cleanup: () => rmSync(configDir, { recursive: true, force: true }),
  };
}
