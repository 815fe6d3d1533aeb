// A user's home in a temp folder, as a first launch of the app meets it: HOME, XDG and APPDATA
// point inside `dir`, the keychain tools are stand-ins, no model or Loupe variables are set.
// Not an isolated LOUPE_HOME: the test sees where a real launch puts things.
import path from 'node:path';
import { standInKeyring } from './standInKeyring';

const ENV_KEYS = ['HOME', 'XDG_CONFIG_HOME', 'APPDATA', 'LOUPE_HOME', 'LOUPE_DEV', 'LOUPE_LOG', 'ELECTRON_RENDERER_URL', 'PATH', 'STANDIN_KEYRING', 'OPENAI_API_KEY', 'OPENAI_BASE_URL', 'LOUPE_MODEL'];

/** Sets process.env for a first launch under `dir`; returns the config folder and the undo. */
export function firstLaunchHome(dir: string): { configDir: string; restore: () => void } {
  const saved = Object.fromEntries(ENV_KEYS.map((k) => [k, process.env[k]]));
  const savedArgv = process.argv;
  const ring = standInKeyring(dir); // never the machine's own keyring
  for (const k of ENV_KEYS) delete process.env[k];
  process.env.HOME = path.join(dir, 'home');
  process.env.XDG_CONFIG_HOME = path.join(dir, 'xdg');
  process.env.APPDATA = path.join(dir, 'appdata');
  process.env.PATH = ring.env.PATH;
  process.env.STANDIN_KEYRING = ring.env.STANDIN_KEYRING;
  const configDir =
    process.platform === 'win32' ? path.join(dir, 'appdata', 'loupe') : process.platform === 'darwin' ? path.join(dir, 'home', 'Library', 'Application Support', 'loupe') : path.join(dir, 'xdg', 'loupe');
  const restore = () => {
    process.argv = savedArgv;
    for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  };
  return { configDir, restore };
}
