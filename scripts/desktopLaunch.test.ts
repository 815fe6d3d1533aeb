// `npm start` where Electron cannot run: the real scripts/start.mjs in a copied checkout, with a
// stand-in Electron binary that says what Electron says on Ubuntu >= 23.10 and dies as it does,
// and a stand-in `bin/loupe.mjs` that records the `serve` it was asked for.
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../test/support/tmp';

interface Failure {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  elapsedMs: number;
  stopped: boolean;
  spawnError?: Error | null;
  electronBin: string;
  startupMs?: number;
}
interface DesktopLaunch {
  electronFailure(r: Failure): string | null;
  appArmorAdvice(bin: string): string;
}
const { electronFailure, appArmorAdvice }: DesktopLaunch = await import(new URL('./desktopLaunch.mjs', import.meta.url).href);

const SCRIPTS = path.dirname(fileURLToPath(import.meta.url));
const BUILD_OUTPUTS = ['out/main/index.js', 'out/main/cli.js', 'out/preload/index.cjs', 'out/renderer/index.html'];
// Electron 45 on Ubuntu 24.04 (electron/electron#42510), then SIGTRAP.
const SUID_MESSAGE =
  "[18134:0612/103034.017462:FATAL:setuid_sandbox_host.cc(158)] The SUID sandbox helper binary was found, but is not configured correctly. Rather than run without sandboxing I'm aborting now. You need to make sure that /opt/loupe/node_modules/electron/dist/chrome-sandbox is owned by root and has mode 4755.";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir('loupe-start-')));
afterEach(() => cleanup());

/** A built checkout whose Electron binary is `electronScript` (a shell script). */
function checkout(electronScript: string): { root: string; bin: string; served: string } {
  const root = path.join(dir, 'my loupé');
  mkdirSync(path.join(root, 'scripts'), { recursive: true });
  for (const f of readdirSync(SCRIPTS).filter((f) => f.endsWith('.mjs'))) cpSync(path.join(SCRIPTS, f), path.join(root, 'scripts', f));
  writeFileSync(path.join(root, 'package.json'), '{ "name": "loupe-copy", "type": "module" }\n');
  for (const out of BUILD_OUTPUTS) {
    mkdirSync(path.dirname(path.join(root, out)), { recursive: true });
    writeFileSync(path.join(root, out), '');
  }
  const electron = path.join(root, 'node_modules', 'electron');
  mkdirSync(path.join(electron, 'dist'), { recursive: true });
  writeFileSync(path.join(electron, 'package.json'), '{ "name": "electron", "version": "45.4.1" }\n');
  writeFileSync(path.join(electron, 'path.txt'), 'electron');
  const bin = path.join(electron, 'dist', 'electron');
  writeFileSync(bin, `#!/bin/sh\n${electronScript}\n`);
  chmodSync(bin, 0o755);
  const served = path.join(dir, 'served.json');
  mkdirSync(path.join(root, 'bin'));
  writeFileSync(
    path.join(root, 'bin', 'loupe.mjs'),
    `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(served)}, JSON.stringify(process.argv.slice(2)));\nconsole.log('http://127.0.0.1:1/?token=x');\n`,
  );
  return { root, bin, served };
}

function npmStart(root: string, args: string[], cwd: string) {
  const env: NodeJS.ProcessEnv = { ...process.env, DISPLAY: ':0', INIT_CWD: cwd };
  delete env.WAYLAND_DISPLAY;
  return spawnSync(process.execPath, ['scripts/start.mjs', ...args], { cwd: root, env, encoding: 'utf8', timeout: 15_000 });
}

describe('npm start when Electron cannot run', () => {
  it('explains the AppArmor restriction and serves the folder in the browser instead', () => {
    const { root, bin, served } = checkout(`echo "${SUID_MESSAGE}" >&2\nkill -TRAP $$`);
    const project = path.join(dir, 'project');
    mkdirSync(project);
    const r = npmStart(root, ['sub'], project);
    expect(r.stderr).toContain('setuid_sandbox_host'); // Electron's own words reach the user
    expect(r.stderr).toContain('AppArmor');
    expect(r.stderr).toContain('sudo apparmor_parser -r /etc/apparmor.d/loupe-electron');
    expect(r.stderr).toContain(`profile loupe-electron ${JSON.stringify(bin)} flags=(unconfined)`);
    expect(r.stderr).toContain('userns,');
    expect(r.stderr).not.toMatch(/sysctl|--disable-setuid-sandbox|ELECTRON_DISABLE_SANDBOX/);
    expect(r.stderr).not.toMatch(/(?<!not start Electron with )--no-sandbox/);
    expect(JSON.parse(readFileSync(served, 'utf8'))).toEqual(['serve', path.join(project, 'sub')]);
    expect(r.status).toBe(0);
  });

  it('falls back whenever Electron dies at start, and opens the current folder when none is given', () => {
    const { root, served } = checkout('echo "error while loading shared libraries: libnss3.so" >&2\nexit 127');
    const project = path.join(dir, 'here');
    mkdirSync(project);
    const r = npmStart(root, [], project);
    expect(r.stderr).toContain('libnss3.so');
    expect(r.stderr).toContain('serving Loupe in the browser instead');
    expect(JSON.parse(readFileSync(served, 'utf8'))).toEqual(['serve', project]);
  });

  it('passes the folder (or the current one) to a working Electron and does not fall back', () => {
    const { root, served } = checkout('printf "%s\\n" "$@" > "$(dirname "$0")/argv.txt"\nexit 0');
    const project = path.join(dir, 'cwd');
    mkdirSync(project);
    const r = npmStart(root, [], project);
    expect(r.status).toBe(0);
    expect(existsSync(served)).toBe(false);
    expect(readFileSync(path.join(root, 'node_modules/electron/dist/argv.txt'), 'utf8').split('\n').slice(0, 2)).toEqual(['.', project]);
  });
});

describe('electronFailure', () => {
  const base = { code: 1, signal: null, stderr: '', elapsedMs: 100, stopped: false, electronBin: '/e/electron' } as const;
  it('tells a failure at start from a stop, a clean exit and a late crash', () => {
    expect(electronFailure({ ...base, stderr: `${SUID_MESSAGE}\n`, code: null, signal: 'SIGTRAP' })).toBe(appArmorAdvice('/e/electron'));
    expect(electronFailure({ ...base, spawnError: Object.assign(new Error('spawn EACCES'), { code: 'EACCES' }) })).toMatch(/could not be started \(spawn EACCES\)/);
    expect(electronFailure({ ...base, stderr: 'a\nGtk: cannot open display\n' })).toMatch(/code 1.*cannot open display/);
    expect(electronFailure({ ...base, code: 0 })).toBeNull(); // e.g. handed its folder to a running Loupe
    expect(electronFailure({ ...base, code: null, signal: 'SIGINT', stopped: true })).toBeNull();
    expect(electronFailure({ ...base, code: null, signal: 'SIGINT' })).toBeNull(); // Ctrl+C seen before our handler ran
    expect(electronFailure({ ...base, code: null, signal: 'SIGSEGV' })).toMatch(/signal SIGSEGV/);
    expect(electronFailure({ ...base, elapsedMs: 60_000 })).toBeNull();
  });
});
