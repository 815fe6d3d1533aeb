// Putting this version's host on a remote machine (docs/architecture.md, "Remote workspaces"):
// one stream of gzip'd tar over the link into a fresh `~/.loupe-server/.tmp-<version>-XXXXXX`,
// the manifest written last, then one rename to `~/.loupe-server/<version>`. A folder named for
// the version is therefore always complete; an upload cut off leaves only a `.tmp-` folder, which
// the next host removes after an hour. The remote needs no internet: everything comes from here.
// A folder of the same version from another build (a rebuild of a checkout) is replaced only when
// its host is idle; a busy one is never stopped.
import { createReadStream } from 'node:fs';
import { PassThrough } from 'node:stream';
import { LoupeError } from '../errors';
import type { BundleManifest } from './layout';
import { shellWord, shScript } from './ssh';

/** Runs a shell command there with stdin from the stream; resolves stdout and the exit code. */
export type RemoteRun = (command: string, input?: NodeJS.ReadableStream) => Promise<{ code: number; stdout: string; stderr: string }>;

export interface InstallPlan {
  version: string;
  build: string;
  /** The host's archive, and this machine's Node's when the remote has none to use. */
  archives: string[];
  node: { kind: 'system'; path: string } | { kind: 'bundled' };
}

/** The remote folder of this version, `$HOME`-relative for the shell. */
export const versionDir = (home: string, version: string): string => `${home}/.loupe-server/${version}`;

/** The Node the host runs on there. */
export function nodeFor(home: string, m: Pick<BundleManifest, 'version' | 'node' | 'node_path'>): string {
  return m.node === 'system' && m.node_path ? m.node_path : `${versionDir(home, m.version)}/node/bin/node`;
}

/** Concatenated gzip'd tars, read by `tar -i` as one. */
function concat(files: string[]): NodeJS.ReadableStream {
  const out = new PassThrough();
  const next = (i: number) => {
    if (i === files.length) return void out.end();
    const s = createReadStream(files[i]);
    s.on('error', (e) => out.destroy(e));
    s.on('end', () => next(i + 1));
    s.pipe(out, { end: false });
  };
  next(0);
  return out;
}

export function installScript(plan: InstallPlan): string {
  const manifest: BundleManifest = {
    version: plan.version,
    build: plan.build,
    node: plan.node.kind,
    ...(plan.node.kind === 'system' ? { node_path: plan.node.path } : {}),
    created_at: new Date().toISOString(),
  };
  const v = plan.version;
  if (!/^[0-9A-Za-z.+-]+$/.test(v)) throw new LoupeError('INVALID_ARGUMENT', `Not a version Loupe installs: ${v}`);
  const json = JSON.stringify(manifest);
  const nodeWord = plan.node.kind === 'system' ? shellWord(plan.node.path) : `"$t/node/bin/node"`;
  // Double-quoted $ words only; the manifest's JSON in single quotes (it holds none).
  return [
    'set -e',
    'umask 077',
    'r="$HOME/.loupe-server"',
    'mkdir -p "$r/links"',
    'chmod 700 "$r" "$r/links"',
    `t=$(mktemp -d "$r/.tmp-${v}-XXXXXX")`,
    'tar -xzif - -C "$t"',
    `${nodeWord} --version >/dev/null`,
    `printf '%s\\n' ${shellWord(json)} > "$t/manifest.json"`,
    `if [ -e "$r/${v}" ]; then`,
    `  if [ -f "$r/${v}/bin/loupe.mjs" ] && ! ${plan.node.kind === 'system' ? shellWord(plan.node.path) : `"$r/${v}/node/bin/node"`} "$r/${v}/bin/loupe.mjs" remote-server --stop-if-idle; then rm -rf "$t"; echo busy; exit 3; fi`,
    `  mv "$r/${v}" "$r/.trash-${v}-$$"`,
    'fi',
    `mv "$t" "$r/${v}"`,
    `rm -rf "$r/.trash-${v}-$$"`,
    'echo installed',
  ].join('\n');
}

/** Uploads and installs; throws with what went wrong (busy, no space, a broken Node). */
export async function install(run: RemoteRun, plan: InstallPlan): Promise<void> {
  const r = await run(shScript(installScript(plan)), concat(plan.archives));
  if (r.code === 3) {
    throw new LoupeError('REMOTE_UNAVAILABLE', `Another build of Loupe ${plan.version} is running a turn, a command or a window on the remote machine; it is left alone. Try again once it is done.`);
  }
  if (r.code !== 0 || !r.stdout.includes('installed')) {
    throw new LoupeError('REMOTE_UNAVAILABLE', `Installing Loupe ${plan.version} on the remote machine failed: ${(r.stderr.trim().split('\n').pop() ?? '') || `exit ${r.code}`}`);
  }
}
