import os from 'node:os';
import path from 'node:path';

/** Where user-level state (recent folders, settings) lives. LOUPE_HOME wins, for tests. */
export function defaultConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.LOUPE_HOME) return env.LOUPE_HOME;
  if (process.platform === 'win32' && env.APPDATA) return path.join(env.APPDATA, 'loupe');
  if (process.platform === 'darwin') return path.join(os.homedir(), 'Library', 'Application Support', 'loupe');
  return path.join(env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'), 'loupe');
}
