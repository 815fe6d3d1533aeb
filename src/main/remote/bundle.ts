// What is copied to a remote machine: the built host (`out/main`, `bin/loupe.mjs`, a package.json
// saying the bundle is ESM) and the node_modules it loads at run time — the production
// dependencies of package-lock.json that are on disk here, native ones as built here (node-pty,
// the watcher's platform package, ripgrep's binary, tree-sitter's WASM). Docs, tests, sources and
// other platforms' prebuilt binaries are left out. The archive is made once per build with the
// system's tar and kept in Loupe's config folder; its build id is a hash of every file's path,
// size and time, so a rebuild is a new build.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { mkdir, readdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { LoupeError } from '../errors';
import { bundleVersion } from './layout';

/** Packages the laptop side uses and the remote host never loads. */
const LAPTOP_ONLY = new Set(['@devcontainers/cli']);

/**
 * A package's own top folders that are never loaded at run time. Only at its top: deeper down the
 * same names hold code (`yaml/dist/doc/`, the MCP SDK's `dist/esm/examples`).
 */
const SKIP_DIRS = new Set(['test', 'tests', '__tests__', 'docs', 'example', 'examples', 'benchmark', '.github', 'coverage']);
const SKIP_FILE = /(\.md|\.markdown|\.map|\.tsbuildinfo|\.gyp|\.gypi|\.cc|\.cpp|\.h|\.c)$|^(CHANGELOG|HISTORY|AUTHORS)(\..*)?$/i;

/** Per package, the only entries it needs (the rest is sources and other platforms' builds). */
const KEEP_ONLY: Record<string, (rel: string) => boolean> = {
  'tree-sitter-bash': (rel) => rel === 'package.json' || rel === 'tree-sitter-bash.wasm' || /^LICENSE/.test(rel),
  'node-pty': (rel) => rel === 'package.json' || rel.startsWith('lib/') || rel.startsWith('build/Release/') || rel.startsWith(`prebuilds/${process.platform}-${process.arch}/`) || /^LICENSE/.test(rel),
  openai: (rel) => !rel.startsWith('src/'),
};

export interface BundleFiles {
  /** The checkout's top folder. */
  root: string;
  version: string;
  /** Paths relative to the bundle's top, as they will be on the remote machine. */
  files: { rel: string; abs: string; size: number; mtimeMs: number }[];
  bytes: number;
  build: string;
}

/** `pkg`: the package being walked, its lock key (`node_modules/a/node_modules/b`) and name (`b`). */
function walk(absDir: string, relDir: string, pkg: { key: string; name: string } | null, out: BundleFiles['files']): void {
  for (const name of readdirSync(absDir)) {
    const abs = path.join(absDir, name);
    const rel = relDir ? `${relDir}/${name}` : name;
    const st = statSync(abs, { throwIfNoEntry: false });
    if (!st) continue;
    const inPkg = pkg ? rel.slice(pkg.key.length + 1) : rel;
    if (st.isDirectory()) {
      if (name === '.bin' || (pkg && !inPkg.includes('/') && SKIP_DIRS.has(name))) continue;
      if (name === 'node_modules') continue; // a nested copy is listed by the lock on its own
      walk(abs, rel, pkg, out);
      continue;
    }
    if (!st.isFile()) continue;
    if (pkg && KEEP_ONLY[pkg.name] && !KEEP_ONLY[pkg.name](inPkg)) continue;
    if (SKIP_FILE.test(name) && name !== 'package.json') continue;
    if (/\.ts$/.test(name) && !/\.d\.[cm]?ts$/.test(name)) continue;
    out.push({ rel, abs, size: st.size, mtimeMs: st.mtimeMs });
  }
}

/** The production packages the lock names, installed here. */
function productionPackages(root: string): string[] {
  const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean; devOptional?: boolean }> };
  const out: string[] = [];
  for (const [key, meta] of Object.entries(lock.packages)) {
    if (!key.startsWith('node_modules/') || meta.dev) continue;
    const name = key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length);
    if (LAPTOP_ONLY.has(name) || [...LAPTOP_ONLY].some((p) => key.includes(`node_modules/${p}/`))) continue;
    if (existsSync(path.join(root, key, 'package.json'))) out.push(key);
  }
  return out;
}

export function listBundle(root: string, version = bundleVersion(root).version): BundleFiles {
  if (!existsSync(path.join(root, 'out', 'main', 'cli.js'))) throw new LoupeError('REMOTE_UNAVAILABLE', `Loupe is not built here (${path.join(root, 'out', 'main')} is missing): run \`npm run build\` first.`);
  const files: BundleFiles['files'] = [];
  walk(path.join(root, 'out', 'main'), 'out/main', null, files);
  const bin = path.join(root, 'bin', 'loupe.mjs');
  const binSt = statSync(bin);
  files.push({ rel: 'bin/loupe.mjs', abs: bin, size: binSt.size, mtimeMs: binSt.mtimeMs });
  for (const key of productionPackages(root)) {
    const name = key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length);
    walk(path.join(root, key), key, { key, name }, files);
  }
  files.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  const h = createHash('sha256');
  h.update(version);
  for (const f of files) h.update(`${f.rel}\0${f.size}\0${Math.round(f.mtimeMs)}\n`);
  return { root, version, files, bytes: files.reduce((n, f) => n + f.size, 0), build: h.digest('hex').slice(0, 16) };
}

/** The package.json of the bundle: ESM, named and versioned, nothing to install. */
export const bundlePackageJson = (version: string): string => `${JSON.stringify({ name: 'loupe-server', version, private: true, type: 'module' })}\n`;

function runTar(args: string[], cwd: string, out: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('tar', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.on('error', (e) => reject(new LoupeError('REMOTE_UNAVAILABLE', `Could not run tar to pack Loupe's host: ${e.message}`)));
    child.on('close', (code) => (code === 0 ? resolve() : reject(new LoupeError('REMOTE_UNAVAILABLE', `tar failed packing ${out}: ${err.trim().split('\n').pop()}`))));
  });
}

/**
 * The archive of a build (gzip), made once and kept in `<cacheDir>`. The files keep their paths
 * relative to the checkout, so GNU tar reads them where they are (`-T` with `-C` lines); only the
 * bundle's package.json is written for it.
 */
export async function bundleArchive(bundle: BundleFiles, cacheDir: string): Promise<string> {
  const out = path.join(cacheDir, `host-${bundle.version}-${bundle.build}.tar.gz`);
  if (existsSync(out)) return out;
  await mkdir(cacheDir, { recursive: true, mode: 0o700 });
  const stage = path.join(cacheDir, `.stage-${randomBytes(6).toString('hex')}`);
  try {
    await mkdir(stage);
    await writeFile(path.join(stage, 'package.json'), bundlePackageJson(bundle.version));
    const list = path.join(stage, 'files');
    await writeFile(list, [`-C ${stage}`, 'package.json', `-C ${bundle.root}`, ...bundle.files.map((f) => f.rel), ''].join('\n'));
    const tmp = `${out}.${process.pid}.tmp`;
    // gzip -1: a third of the time of the default for a few percent more bytes.
    await runTar(['-cf', tmp, '--use-compress-program=gzip -1', '--no-recursion', '-T', list], stage, out);
    await rename(tmp, out);
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
  // This version's older builds' archives go: one kept per version is enough.
  for (const name of await readdir(cacheDir)) {
    if (name.startsWith(`host-${bundle.version}-`) && name.endsWith('.tar.gz') && path.join(cacheDir, name) !== out) await rm(path.join(cacheDir, name), { force: true });
  }
  return out;
}

/** This machine's Node as an archive of `node/bin/node`, for a remote machine without a suitable one. */
export async function nodeArchive(nodeBinary: string, cacheDir: string): Promise<string> {
  const version = process.version;
  const out = path.join(cacheDir, `node-${version}-${process.platform}-${process.arch}.tar.gz`);
  if (existsSync(out)) return out;
  await mkdir(cacheDir, { recursive: true, mode: 0o700 });
  const stage = path.join(cacheDir, `.stage-${randomBytes(6).toString('hex')}`);
  try {
    await mkdir(path.join(stage, 'node', 'bin'), { recursive: true });
    await symlink(nodeBinary, path.join(stage, 'node', 'bin', 'node'));
    const tmp = `${out}.${process.pid}.tmp`;
    await runTar(['-czhf', tmp, 'node/bin/node'], stage, out);
    await rename(tmp, out);
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
  return out;
}
