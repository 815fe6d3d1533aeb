import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

type Env = Record<string, string | undefined>;
type Launch =
  | { mode: 'electron'; command: string; args: string[]; env: Env }
  | { mode: 'serve'; reason: string; command: string; args: string[]; env: Env };
/** The part of scripts/start.mjs under test (a plain JS module without declarations). */
interface StartModule {
  BUILD_OUTPUTS: string[];
  buildReason(root: string): string | null;
  parseStartArgs(args: string[], cwd: string): { folder: string | null; port: string | null };
  electronUnavailableReason(o: { platform: NodeJS.Platform; env: Env; electronBin: string | null }): string | null;
  decideLaunch(o: {
    platform: NodeJS.Platform;
    env: Env;
    electronBin: string | null;
    folder: string | null;
    port: string | null;
    cwd: string;
    nodePath: string;
  }): Launch;
}
const specifier = new URL('./start.mjs', import.meta.url).href;
const { BUILD_OUTPUTS, buildReason, decideLaunch, electronUnavailableReason, parseStartArgs }: StartModule = await import(specifier);

const BIN = '/repo/node_modules/electron/dist/electron';
const base = { folder: null, port: null, cwd: '/home/u/proj', nodePath: '/usr/bin/node' };

describe('electronUnavailableReason', () => {
  it('needs the binary everywhere', () => {
    for (const platform of ['linux', 'darwin', 'win32'] as const) {
      expect(electronUnavailableReason({ platform, env: { DISPLAY: ':0' }, electronBin: null })).toMatch(/Electron binary is not installed.*npx install-electron/);
    }
  });

  it('needs a display on Linux only', () => {
    expect(electronUnavailableReason({ platform: 'linux', env: {}, electronBin: BIN })).toMatch(/no display/);
    expect(electronUnavailableReason({ platform: 'linux', env: { DISPLAY: ':99' }, electronBin: BIN })).toBeNull();
    expect(electronUnavailableReason({ platform: 'linux', env: { WAYLAND_DISPLAY: 'wayland-0' }, electronBin: BIN })).toBeNull();
    expect(electronUnavailableReason({ platform: 'freebsd', env: {}, electronBin: BIN })).toMatch(/no display/);
    expect(electronUnavailableReason({ platform: 'darwin', env: {}, electronBin: BIN })).toBeNull();
    expect(electronUnavailableReason({ platform: 'win32', env: {}, electronBin: BIN })).toBeNull();
  });
});

describe('decideLaunch', () => {
  it('runs Electron on the folder when given, else on the directory npm was run from', () => {
    const env = { DISPLAY: ':0', ELECTRON_RUN_AS_NODE: '1', HOME: '/home/u' };
    const d = decideLaunch({ ...base, platform: 'linux', env, electronBin: BIN, folder: '/w/app' });
    expect(d).toEqual({ mode: 'electron', command: BIN, args: ['.', '/w/app'], env: { DISPLAY: ':0', HOME: '/home/u' } });
    expect(decideLaunch({ ...base, platform: 'darwin', env: {}, electronBin: BIN }).args).toEqual(['.', '/home/u/proj']);
  });

  it('falls back to `loupe serve` on the folder, else the current directory', () => {
    const none = decideLaunch({ ...base, platform: 'linux', env: { DISPLAY: ':0' }, electronBin: null });
    expect(none).toMatchObject({ mode: 'serve', command: '/usr/bin/node', args: ['bin/loupe.mjs', 'serve', '/home/u/proj'] });
    expect(none.mode === 'serve' && none.reason).toMatch(/not installed/);

    const headless = decideLaunch({ ...base, platform: 'linux', env: {}, electronBin: BIN, folder: '/w/app', port: '0' });
    expect(headless).toMatchObject({ mode: 'serve', args: ['bin/loupe.mjs', 'serve', '/w/app', '--port', '0'] });
    expect(headless.mode === 'serve' && headless.reason).toMatch(/no display/);
  });
});

describe('parseStartArgs', () => {
  it('resolves the folder against where the user ran npm, and reads --port', () => {
    expect(parseStartArgs([], '/u')).toEqual({ folder: null, port: null });
    expect(parseStartArgs(['../x'], '/u/p')).toEqual({ folder: '/u/x', port: null });
    expect(parseStartArgs(['--port', '0', 'a'], '/u')).toEqual({ folder: '/u/a', port: '0' });
    expect(parseStartArgs(['a', '--port=8080', 'b'], '/u')).toEqual({ folder: '/u/a', port: '8080' });
  });
});

describe('buildReason', () => {
  let root: string;
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const touch = (rel: string, seconds: number) => {
    const p = path.join(root, rel);
    mkdirSync(path.dirname(p), { recursive: true });
    writeFileSync(p, '');
    utimesSync(p, seconds, seconds);
  };

  it('builds when an output is missing, or a source is newer than the oldest output', () => {
    root = mkdtempSync(path.join(tmpdir(), 'loupe-start-'));
    touch('src/main/a.ts', 1000);
    touch('package.json', 1000);
    expect(buildReason(root)).toBe('out/main/index.js is missing');

    for (const out of BUILD_OUTPUTS) touch(out, 2000);
    expect(buildReason(root)).toBeNull();

    touch('src/renderer/deep/b.tsx', 3000);
    expect(buildReason(root)).toMatch(/sources changed/);
    for (const out of BUILD_OUTPUTS) touch(out, 4000);
    expect(buildReason(root)).toBeNull();

    touch('electron.vite.config.ts', 5000);
    expect(buildReason(root)).toMatch(/sources changed/);
  });
});
