// A user's settings.json as a person would have saved it, for tests that start from a given
// setting (e.g. `"sandbox": "off"` for tests about the questions asked without a sandbox).
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { SETTINGS_FILE } from '../../src/main/services/settings/userSettings';

export async function writeUserSettings(configDir: string, settings: Record<string, unknown>): Promise<void> {
  await mkdir(configDir, { recursive: true });
  await writeFile(path.join(configDir, SETTINGS_FILE), JSON.stringify(settings, null, 2));
}
