// A user's settings.json as a person would have saved it, for tests that start from a given
// setting (e.g. `"sandbox": "off"` for tests about the questions asked without a sandbox).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SETTINGS_FILE } from '../../src/main/services/settings/userSettings';

export function writeUserSettings(configDir: string, settings: Record<string, unknown>): void {
  mkdirSync(configDir, { recursive: true });
  writeFileSync(path.join(configDir, SETTINGS_FILE), JSON.stringify(settings, null, 2));
}
