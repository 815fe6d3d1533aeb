// Where Loupe lives on a remote machine (docs/architecture.md, "Remote workspaces"):
// `~/.loupe-server/<version>/` holds one version's host — its built bundle, the node_modules it
// needs, a Node runtime when the machine had no suitable one, and `manifest.json`, written last,
// so a folder without it is an upload that did not finish. The host of a version listens on
// `host.sock` in its folder (0600, the folder 0700).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { LOUPE_VERSION } from '../host/version';

export const SERVER_DIR = '.loupe-server';

export interface BundleManifest {
  /** The version the folder is named after. */
  version: string;
  /** Identifies the exact files (a rebuild of the same version is another build). */
  build: string;
  /** `bundled`: `node/bin/node` in the folder; `system`: the machine's own, at `node_path`. */
  node: 'bundled' | 'system';
  node_path?: string;
  created_at: string;
}

export const MANIFEST = 'manifest.json';
/** Linux's sun_path is 108 bytes with its NUL. */
const MAX_SOCKET_PATH = 100;

/** The manifest of a bundle folder, or null (a checkout, or a folder that is not one). */
export function readManifest(bundleDir: string): BundleManifest | null {
  try {
    const m = JSON.parse(readFileSync(path.join(bundleDir, MANIFEST), 'utf8')) as BundleManifest;
    return typeof m.version === 'string' && typeof m.build === 'string' ? m : null;
  } catch {
    return null;
  }
}

/** This process's version: its bundle's manifest (an installed host), else the build's. */
export function bundleVersion(bundleDir: string): { version: string; build: string } {
  const m = readManifest(bundleDir);
  return m ? { version: m.version, build: m.build } : { version: LOUPE_VERSION, build: 'checkout' };
}

/** The socket of a bundle's host: in its folder, or, when that path is too long, a short one per user. */
export function socketPath(bundleDir: string, uid: number = process.getuid?.() ?? 0, tmp = '/tmp'): string {
  const beside = path.join(bundleDir, 'host.sock');
  if (Buffer.byteLength(beside) <= MAX_SOCKET_PATH) return beside;
  const id = createHash('sha256').update(bundleDir).digest('hex').slice(0, 16);
  return path.join(tmp, `loupe-${uid}`, `${id}.sock`);
}

/** `a` compared with `b` as dotted versions (numeric parts numerically; a pre-release sorts first). */
export function compareVersions(a: string, b: string): number {
  const parts = (v: string) => {
    const [main, pre] = v.split('-', 2);
    return { nums: main.split('.').map((n) => Number.parseInt(n, 10) || 0), pre: pre ?? null };
  };
  const x = parts(a);
  const y = parts(b);
  for (let i = 0; i < Math.max(x.nums.length, y.nums.length); i++) {
    const d = (x.nums[i] ?? 0) - (y.nums[i] ?? 0);
    if (d) return Math.sign(d);
  }
  if (x.pre === y.pre) return 0;
  if (x.pre === null) return 1;
  if (y.pre === null) return -1;
  return x.pre < y.pre ? -1 : 1;
}

/** Is `dir` an installed version folder (its manifest is there)? */
export const isInstalled = (dir: string): boolean => existsSync(path.join(dir, MANIFEST));
