// "Was this script run directly?" Shared by the npm scripts. Comparing `import.meta.url` with
// `file://${process.argv[1]}` fails on Windows (`C:\…` against `file:///C:/…`) and wherever the
// URL is percent-encoded (a space, a non-ASCII letter, `%`), so both sides become paths first.
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Is the module at `moduleUrl` the script Node was started with (`argv1`, as typed, possibly
 * relative to `cwd`)? On Windows, paths compare without regard to case or separator style.
 * @param {string} moduleUrl `import.meta.url`
 * @param {string | undefined} argv1 `process.argv[1]`
 * @param {{ platform?: NodeJS.Platform, cwd?: string, realpath?: (p: string) => string }} [o]
 * @returns {boolean}
 */
export function isEntryModule(moduleUrl, argv1, o = {}) {
  const platform = o.platform ?? process.platform;
  const windows = platform === 'win32';
  const p = windows ? path.win32 : path.posix;
  if (!argv1) return false;
  let modulePath;
  try {
    modulePath = fileURLToPath(moduleUrl, { windows });
  } catch {
    return false; // not a file: URL (a data: or http: module is never the entry script)
  }
  const cwd = o.cwd ?? process.cwd();
  const key = (file) => {
    const resolved = p.resolve(cwd, file);
    return windows ? resolved.toLowerCase() : resolved;
  };
  if (key(modulePath) === key(argv1)) return true;
  // Node runs the entry script from its real path; argv[1] may name it through a symlink.
  const realpath = o.realpath ?? realpathSync;
  try {
    return key(realpath(p.resolve(cwd, modulePath))) === key(realpath(p.resolve(cwd, argv1)));
  } catch {
    return false;
  }
}
