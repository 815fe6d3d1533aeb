// node-pty 1.1.0 publishes `prebuilds/darwin-*/spawn-helper` without its executable bit, so on
// macOS every terminal fails with "posix_spawnp failed" (microsoft/node-pty#850). Restore it.
import { chmodSync, existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Makes every `spawn-helper` under node-pty's prebuilds and build folders executable (u+x, and
 * g+x/o+x where the file is readable by them, as an installed binary is).
 * @param {string} nodePtyDir
 * @returns {string[]} the helpers whose mode was changed
 */
export function fixSpawnHelpers(nodePtyDir) {
  const candidates = [path.join(nodePtyDir, 'build', 'Release', 'spawn-helper'), path.join(nodePtyDir, 'build', 'Debug', 'spawn-helper')];
  const prebuilds = path.join(nodePtyDir, 'prebuilds');
  if (existsSync(prebuilds)) {
    for (const entry of readdirSync(prebuilds, { withFileTypes: true })) {
      if (entry.isDirectory()) candidates.push(path.join(prebuilds, entry.name, 'spawn-helper'));
    }
  }
  const fixed = [];
  for (const file of candidates) {
    let mode;
    try {
      const st = statSync(file);
      if (!st.isFile()) continue;
      mode = st.mode & 0o777;
    } catch {
      continue;
    }
    // Execute wherever read is granted: r-- becomes r-x.
    const wanted = mode | 0o100 | ((mode & 0o044) >> 2);
    if (wanted !== mode) {
      chmodSync(file, wanted);
      fixed.push(file);
    }
  }
  return fixed;
}
