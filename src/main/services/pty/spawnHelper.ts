// On macOS node-pty starts every shell through its `spawn-helper` binary. node-pty 1.1.0
// publishes it without the executable bit (microsoft/node-pty#850); the install script restores
// it, but an install run with --ignore-scripts, or a copy that lost modes, still fails with the
// opaque "posix_spawnp failed". Check before the first spawn, repair if we can, else say how.
import { accessSync, chmodSync, constants, existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { LoupeError } from '../../errors';

export class SpawnHelperNotExecutableError extends LoupeError {
  constructor(
    readonly helper: string,
    reason: string,
  ) {
    super(
      'INTERNAL',
      `Terminals cannot start: node-pty's helper ${helper} is not executable (${reason}). ` +
        `Run \`chmod +x "${helper}"\` (or \`npm rebuild node-pty\`), then open a terminal again.`,
    );
  }
}

/** Where node-pty looks for its helper, in its own order (a source build first, then the prebuild). */
export function spawnHelperCandidates(nodePtyDir: string, platform: NodeJS.Platform, arch: string): string[] {
  return [
    path.join(nodePtyDir, 'build', 'Release', 'spawn-helper'),
    path.join(nodePtyDir, 'build', 'Debug', 'spawn-helper'),
    path.join(nodePtyDir, 'prebuilds', `${platform}-${arch}`, 'spawn-helper'),
  ];
}

export interface SpawnHelperCheck {
  platform: NodeJS.Platform;
  /** node-pty's folder; null when it cannot be found (then node-pty itself will say so). */
  nodePtyDir: string | null;
  arch?: string;
  chmod?: (file: string, mode: number) => void;
}

/**
 * Makes sure the helper node-pty will use is executable. Returns the helper when it had to be
 * repaired, null when nothing was needed; throws SpawnHelperNotExecutableError when it stays
 * unusable.
 */
export function ensureSpawnHelper({ platform, nodePtyDir, arch = process.arch, chmod = chmodSync }: SpawnHelperCheck): string | null {
  if (platform !== 'darwin' || !nodePtyDir) return null;
  const helper = spawnHelperCandidates(nodePtyDir, platform, arch).find((f) => existsSync(f));
  if (!helper) return null;
  const executable = () => {
    try {
      accessSync(helper, constants.X_OK);
      // root passes X_OK whenever any execute bit is set, but not with none at all.
      return (statSync(helper).mode & 0o111) !== 0;
    } catch {
      return false;
    }
  };
  if (executable()) return null;
  try {
    chmod(helper, (statSync(helper).mode & 0o777) | 0o755);
  } catch (err) {
    throw new SpawnHelperNotExecutableError(helper, (err as Error).message);
  }
  if (!executable()) throw new SpawnHelperNotExecutableError(helper, 'its mode could not be changed');
  return helper;
}

let checked = false;

/** Once per process, before the first terminal. */
export function checkSpawnHelperOnce(log: (message: string) => void = (m) => console.warn(m)): void {
  if (checked) return;
  let nodePtyDir: string | null;
  try {
    nodePtyDir = path.dirname(createRequire(import.meta.url).resolve('node-pty/package.json'));
  } catch {
    nodePtyDir = null;
  }
  const repaired = ensureSpawnHelper({ platform: process.platform, nodePtyDir });
  if (repaired) log(`loupe: made ${repaired} executable (node-pty ships it without the bit)`);
  checked = true;
}
