// `npm start`: build if the sources are newer than out/, then open the desktop app where
// Electron can run, else fall back to `loupe serve` (same UI in a browser) and print its URL.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runDesktopOrServe, runServe } from './desktopLaunch.mjs';
import { isEntryModule } from './entryModule.mjs';
import { electronBinary } from './postinstall.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Files the app needs from `electron-vite build`. */
export const BUILD_OUTPUTS = ['out/main/index.js', 'out/main/cli.js', 'out/preload/index.cjs', 'out/renderer/index.html'];
/** Inputs besides src/ whose change calls for a rebuild. */
const BUILD_INPUTS = ['electron.vite.config.ts', 'package.json'];

/**
 * `npm start [folder] [--port N]` arguments. `cwd` is where the user typed the command
 * (npm runs scripts from the package root and passes the original directory as INIT_CWD).
 * @param {string[]} args
 * @param {string} cwd
 * @returns {{ folder: string | null, port: string | null }}
 */
export function parseStartArgs(args, cwd) {
  let folder = null;
  let port = null;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--port') port = args[++i] ?? null;
    else if (a.startsWith('--port=')) port = a.slice('--port='.length);
    else if (!a.startsWith('-') && folder === null) folder = path.resolve(cwd, a);
  }
  return { folder, port };
}

/**
 * Why the desktop app cannot run here, or null when it can.
 * @param {{ platform: NodeJS.Platform, env: Record<string, string | undefined>, electronBin: string | null }} o
 * @returns {string | null}
 */
export function electronUnavailableReason({ platform, env, electronBin }) {
  if (!electronBin) {
    return 'the Electron binary is not installed (its download host was unreachable at install time; run `npx install-electron` where it is reachable)';
  }
  if (platform !== 'darwin' && platform !== 'win32' && !env.DISPLAY && !env.WAYLAND_DISPLAY) {
    return 'there is no display (neither DISPLAY nor WAYLAND_DISPLAY is set)';
  }
  return null;
}

/**
 * `loupe serve` on the folder (the folder argument, else the directory the user ran npm from).
 * @param {{ env: Record<string, string | undefined>, folder: string | null, port: string | null, cwd: string, nodePath: string }} o
 * @returns {{ command: string, args: string[], env: Record<string, string | undefined> }}
 */
export function serveLaunch({ env, folder, port, cwd, nodePath }) {
  return { command: nodePath, args: ['bin/loupe.mjs', 'serve', folder ?? cwd, ...(port !== null ? ['--port', port] : [])], env };
}

/**
 * What `npm start` runs: the Electron app, else `loupe serve`; either on the folder argument,
 * else the directory the user ran npm from (as the README promises).
 * @param {{ platform: NodeJS.Platform, env: Record<string, string | undefined>, electronBin: string | null, folder: string | null, port: string | null, cwd: string, nodePath: string }} o
 * @returns {{ mode: 'electron', command: string, args: string[], env: Record<string, string | undefined> } | { mode: 'serve', reason: string, command: string, args: string[], env: Record<string, string | undefined> }}
 */
export function decideLaunch({ platform, env, electronBin, folder, port, cwd, nodePath }) {
  const reason = electronUnavailableReason({ platform, env, electronBin });
  if (reason === null && electronBin) {
    // ELECTRON_RUN_AS_NODE would turn the app into a plain Node process.
    const { ELECTRON_RUN_AS_NODE: _drop, ...childEnv } = env;
    return { mode: 'electron', command: electronBin, args: ['.', folder ?? cwd], env: childEnv };
  }
  return { mode: 'serve', reason: reason ?? 'unknown', ...serveLaunch({ env, folder, port, cwd, nodePath }) };
}

/**
 * Newest modification time (ms) of the files under `dir`, skipping dot-folders and node_modules.
 * @param {string} dir
 * @returns {number}
 */
function newestMtime(dir) {
  let newest = 0;
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      const p = path.join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (entry.isFile()) newest = Math.max(newest, statSync(p).mtimeMs);
    }
  };
  if (existsSync(dir)) walk(dir);
  return newest;
}

/**
 * Does out/ need a rebuild? A cheap mtime comparison: any build output missing, or any file
 * under src/ (or the build config) newer than the oldest output.
 * @param {string} root
 * @returns {string | null} why a build is needed, or null when out/ is current
 */
export function buildReason(root) {
  const outputs = BUILD_OUTPUTS.map((rel) => path.join(root, rel));
  const missing = BUILD_OUTPUTS.find((_rel, i) => !existsSync(outputs[i]));
  if (missing) return `${missing} is missing`;
  const oldestOutput = Math.min(...outputs.map((p) => statSync(p).mtimeMs));
  const inputs = Math.max(newestMtime(path.join(root, 'src')), ...BUILD_INPUTS.map((rel) => (existsSync(path.join(root, rel)) ? statSync(path.join(root, rel)).mtimeMs : 0)));
  return inputs > oldestOutput ? 'sources changed since the last build' : null;
}

function electronViteCli() {
  const require = createRequire(import.meta.url);
  const pkgPath = require.resolve('electron-vite/package.json');
  const bin = JSON.parse(readFileSync(pkgPath, 'utf8')).bin;
  return path.join(path.dirname(pkgPath), typeof bin === 'string' ? bin : bin['electron-vite']);
}

async function main() {
  const why = buildReason(ROOT);
  if (why) {
    console.log(`loupe: building (${why}): electron-vite build`);
    const r = spawnSync(process.execPath, [electronViteCli(), 'build'], { cwd: ROOT, stdio: 'inherit' });
    if (r.status !== 0) {
      console.error(`loupe: the build failed (exit ${r.status ?? r.signal}); fix it and run \`npm start\` again.`);
      process.exit(r.status ?? 1);
    }
  } else {
    console.log('loupe: out/ is up to date; skipping the build');
  }

  const userCwd = process.env.INIT_CWD || process.cwd();
  const { folder, port } = parseStartArgs(process.argv.slice(2), userCwd);
  const o = { platform: process.platform, env: process.env, electronBin: electronBinary(), folder, port, cwd: userCwd, nodePath: process.execPath };
  const launch = decideLaunch(o);

  let kill = (_signal) => {};
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => kill(signal));
  const onChild = (k) => (kill = k);

  if (launch.mode === 'electron') {
    console.log(`loupe: starting the desktop app on ${launch.args[1]}`);
    process.exit((await runDesktopOrServe({ electron: launch, serve: serveLaunch(o), cwd: ROOT, onChild })).code);
  }
  console.log(`loupe: not starting the desktop app: ${launch.reason}. Serving Loupe in the browser instead.`);
  process.exit(await runServe({ serve: launch, cwd: ROOT, onChild }));
}

if (isEntryModule(import.meta.url, process.argv[1])) await main();
