// A workspace's services for a test, built the way every front end builds them: by the
// composition root. The user's settings come from LOUPE_HOME (the tests point it at a temp dir).
import { nullLogger, type Logger } from '../../src/main/services/log/logger';
import { defaultConfigDir } from '../../src/main/services/settings/configDir';
import type { UserSettings } from '../../src/main/services/settings/userSettings';
import { composeWorkspace, openUserSettings, type Asker, type WorkspaceServices } from '../../src/main/workspace/compose';

export interface TestServicesOptions {
  configDir?: string;
  /** The user's settings to use instead of those in `configDir`. */
  user?: UserSettings;
  asker?: Asker;
  logger?: Logger;
  /** Language servers may start (default off in tests: a test that wants them says so). */
  lsp?: boolean;
  /** The environment MCP servers and the keychain see (default this process's). */
  env?: NodeJS.ProcessEnv;
}

export function testServices(root: string, opts: TestServicesOptions = {}): WorkspaceServices {
  return composeWorkspace({ root, user: opts.user ?? openUserSettings(opts.configDir ?? defaultConfigDir()), asker: opts.asker ?? { kind: 'deny' }, logger: opts.logger ?? nullLogger, lsp: opts.lsp ?? false, ...(opts.env ? { env: opts.env } : {}) });
}
