// One round trip to learn what a remote machine is before anything is copied there: its OS and
// architecture, its glibc, a Node it already has, bubblewrap, free disk in the home folder, and
// the Loupe versions installed in ~/.loupe-server. A plain POSIX sh script on stdin, so the
// person's login shell (bash, zsh, fish) only ever runs `sh -s`.
import { LoupeError } from '../errors';
import type { BundleManifest } from './layout';

export const PROBE_SCRIPT = `
echo "os=$(uname -s 2>/dev/null)"
echo "arch=$(uname -m 2>/dev/null)"
echo "home=$HOME"
echo "uid=$(id -u 2>/dev/null)"
echo "glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null || ldd --version 2>&1 | head -n 1)"
n=$(command -v node 2>/dev/null)
echo "node=$n"
if [ -n "$n" ]; then echo "node_version=$("$n" --version 2>/dev/null)"; fi
echo "bwrap=$(command -v bwrap 2>/dev/null)"
echo "tar=$(command -v tar 2>/dev/null)"
echo "disk_kb=$(df -Pk "$HOME" 2>/dev/null | awk 'NR==2 {print $4}')"
for d in "$HOME/.loupe-server"/*/; do
  if [ -f "$d/manifest.json" ]; then echo "installed=$(tr -d '\\n' < "$d/manifest.json")"; fi
done
echo "probe=done"
`;

export interface RemoteFacts {
  os: string;
  arch: string;
  home: string;
  uid: number;
  /** "2.36", or null when the C library is not glibc (musl) or could not be told. */
  glibc: string | null;
  node: { path: string; version: string } | null;
  bwrap: string | null;
  tar: string | null;
  diskKb: number | null;
  installed: BundleManifest[];
}

export function parseProbe(stdout: string): RemoteFacts {
  const lines = stdout.split('\n');
  if (!lines.includes('probe=done')) throw new LoupeError('REMOTE_UNAVAILABLE', `The remote machine did not answer the probe as a POSIX shell would: ${stdout.slice(0, 300)}`);
  const one = (key: string): string => lines.find((l) => l.startsWith(`${key}=`))?.slice(key.length + 1).trim() ?? '';
  const glibc = /(?:glibc|GLIBC|GNU libc)[^\d]*(\d+\.\d+)/.exec(one('glibc'))?.[1] ?? null;
  const installed: BundleManifest[] = [];
  for (const l of lines) {
    if (!l.startsWith('installed=')) continue;
    try {
      installed.push(JSON.parse(l.slice('installed='.length)) as BundleManifest);
    } catch {
      // A manifest being written: that folder is not installed yet.
    }
  }
  const nodeVersion = one('node_version');
  return {
    os: one('os'),
    arch: one('arch'),
    home: one('home'),
    uid: Number(one('uid')),
    glibc,
    node: one('node') && /^v\d+\.\d+\.\d+/.test(nodeVersion) ? { path: one('node'), version: nodeVersion } : null,
    bwrap: one('bwrap') || null,
    tar: one('tar') || null,
    diskKb: one('disk_kb') ? Number(one('disk_kb')) : null,
    installed,
  };
}

const ARCH: Record<string, string> = { x64: 'x86_64', arm64: 'aarch64' };

/** `a` >= `b` for dotted numbers. */
function atLeast(a: string, b: string): boolean {
  const x = a.replace(/^v/, '').split('.').map(Number);
  const y = b.replace(/^v/, '').split('.').map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d) return d > 0;
  }
  return true;
}

/** The oldest Node Loupe's host runs on (package.json's engines). */
export const MIN_NODE = '20.19.0';

export interface Fit {
  /** Use the machine's own Node, or upload this machine's. */
  node: 'system' | 'bundled';
}

/**
 * Can this machine's build run there? Its native modules (node-pty, the file watcher) and, when
 * uploaded, its Node were built here: same OS and architecture, and a glibc at least as new.
 */
export function checkFit(facts: RemoteFacts, here: { platform: string; arch: string; glibc: string | null }, bundleBytes: number): Fit {
  const where = `the remote machine (${facts.os || 'unknown OS'} ${facts.arch || 'unknown architecture'})`;
  if (here.platform !== 'linux' || facts.os !== 'Linux') {
    throw new LoupeError('REMOTE_UNSUPPORTED', `Loupe's remote host runs on Linux, uploaded from a Linux machine of the same architecture; ${where} and this one (${here.platform} ${here.arch}) do not match.`);
  }
  if ((ARCH[here.arch] ?? here.arch) !== facts.arch) {
    throw new LoupeError('REMOTE_UNSUPPORTED', `This Loupe was built for ${ARCH[here.arch] ?? here.arch}; ${where} needs a build for ${facts.arch}.`);
  }
  if (!facts.glibc) throw new LoupeError('REMOTE_UNSUPPORTED', `${where} has no glibc (musl, as on Alpine?): Loupe's host needs glibc. Use a glibc-based image or machine.`);
  if (here.glibc && !atLeast(facts.glibc, here.glibc)) {
    throw new LoupeError('REMOTE_UNSUPPORTED', `${where} has glibc ${facts.glibc}; the native modules this Loupe was built with need glibc ${here.glibc} or newer. Update the remote system, or connect from a machine with an older glibc.`);
  }
  if (!facts.tar) throw new LoupeError('REMOTE_UNSUPPORTED', `${where} has no tar, which Loupe needs to unpack its host there.`);
  const node = facts.node && atLeast(facts.node.version, MIN_NODE) ? 'system' : 'bundled';
  if (facts.diskKb !== null && facts.diskKb * 1024 < bundleBytes * 3) {
    throw new LoupeError('REMOTE_UNAVAILABLE', `${where} has ${Math.round(facts.diskKb / 1024)} MB free in ${facts.home}; Loupe's host needs about ${Math.round((bundleBytes * 3) / 1048576)} MB to install.`);
  }
  return { node };
}
