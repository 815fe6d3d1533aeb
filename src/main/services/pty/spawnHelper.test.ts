import { chmodSync, cpSync, mkdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/support/tmp';
import { ensureSpawnHelper, SpawnHelperNotExecutableError } from './spawnHelper';

const NODE_PTY = path.dirname(createRequire(import.meta.url).resolve('node-pty/package.json'));

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir('loupe-spawn-helper-')));
afterEach(() => cleanup());

/** A copy of node-pty's published macOS helper, with the mode node-pty 1.1.0 ships it in. */
function copiedHelper(arch: 'arm64' | 'x64'): string {
  const helper = path.join(dir, 'node-pty', 'prebuilds', `darwin-${arch}`, 'spawn-helper');
  mkdirSync(path.dirname(helper), { recursive: true });
  cpSync(path.join(NODE_PTY, 'prebuilds', `darwin-${arch}`, 'spawn-helper'), helper);
  chmodSync(helper, 0o644);
  return helper;
}

describe('ensureSpawnHelper (the check before the first terminal)', () => {
  it('repairs the helper on macOS, then finds nothing to do', () => {
    for (const arch of ['arm64', 'x64'] as const) {
      const helper = copiedHelper(arch);
      expect(ensureSpawnHelper({ platform: 'darwin', arch, nodePtyDir: path.join(dir, 'node-pty') })).toBe(helper);
      expect(statSync(helper).mode & 0o777).toBe(0o755);
      expect(ensureSpawnHelper({ platform: 'darwin', arch, nodePtyDir: path.join(dir, 'node-pty') })).toBeNull();
    }
  });

  it('says what to run when the helper cannot be repaired', () => {
    const helper = copiedHelper('arm64');
    const refuse = () => {
      throw Object.assign(new Error('EPERM: operation not permitted'), { code: 'EPERM' });
    };
    let caught: unknown;
    try {
      ensureSpawnHelper({ platform: 'darwin', arch: 'arm64', nodePtyDir: path.join(dir, 'node-pty'), chmod: refuse });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(SpawnHelperNotExecutableError);
    expect((caught as SpawnHelperNotExecutableError).helper).toBe(helper);
    expect((caught as Error).message).toContain(`chmod +x "${helper}"`);
    // A chmod that "succeeds" without effect is caught too.
    expect(() => ensureSpawnHelper({ platform: 'darwin', arch: 'arm64', nodePtyDir: path.join(dir, 'node-pty'), chmod: () => undefined })).toThrow(
      SpawnHelperNotExecutableError,
    );
  });

  it('leaves other platforms and a missing node-pty alone', () => {
    const helper = copiedHelper('x64');
    expect(ensureSpawnHelper({ platform: 'linux', arch: 'x64', nodePtyDir: path.join(dir, 'node-pty') })).toBeNull();
    expect(statSync(helper).mode & 0o777).toBe(0o644);
    expect(ensureSpawnHelper({ platform: 'darwin', arch: 'x64', nodePtyDir: null })).toBeNull();
  });
});
