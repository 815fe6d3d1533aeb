// The dev container image of the tests, built without a registry: Debian's own packages
// (debootstrap --variant=minbase from the configured Debian mirror) imported into Podman. Built
// once per machine and kept under a name only these tests use; later runs take it as it is.
// A first build took about 75 s here.
import { execFileSync, spawnSync } from 'node:child_process';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { tempDir } from './tmp';

/** The packages on top of minbase: the sandbox, a server for the agent to start, git. */
const PACKAGES = ['bubblewrap', 'busybox', 'git'];
/** The image's user, as dev container images have one (`vscode`, `node`): bwrap needs no privilege for it. */
export const TEST_USER = 'dev';
export const TEST_IMAGE = `localhost/loupe-test/devcontainer:bookworm-${PACKAGES.join('-')}-${TEST_USER}`;

const mirror = (): string => {
  try {
    const sources = execFileSync('sh', ['-c', 'cat /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null'], { encoding: 'utf8' });
    return /URIs:\s*(\S+\/debian)\s*$/m.exec(sources)?.[1] ?? /^deb\s+(\S+\/debian)\s/m.exec(sources)?.[1] ?? 'http://deb.debian.org/debian';
  } catch {
    return 'http://deb.debian.org/debian';
  }
};

export async function devcontainerImage(): Promise<string> {
  if (spawnSync('podman', ['image', 'exists', TEST_IMAGE]).status === 0) return TEST_IMAGE;
  const t = await tempDir('loupe-debootstrap-');
  try {
    const rootfs = path.join(t.dir, 'rootfs');
    execFileSync('debootstrap', ['--variant=minbase', `--include=${PACKAGES.join(',')}`, 'bookworm', rootfs, mirror()], { stdio: 'ignore', timeout: 15 * 60_000 });
    execFileSync('chroot', [rootfs, 'useradd', '-m', '-u', '1000', '-s', '/bin/bash', TEST_USER], { stdio: 'ignore' });
    execFileSync('sh', ['-c', `tar -C '${rootfs}' -c . | podman import --change 'CMD ["/bin/bash"]' - '${TEST_IMAGE}'`], { stdio: 'ignore', timeout: 10 * 60_000 });
  } finally {
    execFileSync('rm', ['-rf', t.dir]);
    await rm(t.dir, { recursive: true, force: true });
  }
  return TEST_IMAGE;
}

/** Removes the containers `devcontainer up` made for a folder, and the image it derived for them (`vsc-…-uid`). */
export function removeContainersOf(folder: string): void {
  const ids = execFileSync('podman', ['ps', '-aq', '--filter', `label=devcontainer.local_folder=${folder}`], { encoding: 'utf8' }).split('\n').filter(Boolean);
  if (!ids.length) return;
  const images = execFileSync('podman', ['inspect', '--format', '{{.ImageName}}', ...ids], { encoding: 'utf8' }).split('\n').filter((n) => /^(localhost\/)?vsc-/.test(n));
  spawnSync('podman', ['rm', '-f', ...ids], { stdio: 'ignore' });
  if (images.length) spawnSync('podman', ['rmi', ...new Set(images)], { stdio: 'ignore' });
}
