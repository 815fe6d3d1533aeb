// "Reopen in Container" in the window, all real: a folder with a devcontainer.json of the test
// image (built from Debian's packages, no registry), `loupe serve` of it, Chromium on its URL,
// the reference CLI and Podman behind the button. The tab goes to the folder inside its container.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { devcontainerImage, removeContainersOf, TEST_USER } from '../test/support/devcontainerImage';
import { BIN } from '../test/support/remoteWorld';
import { tempDir } from '../test/support/tmp';

const SHOTS = path.resolve('test-results', 'devcontainer');

let dir = '';
let cleanup: (() => Promise<void>) | null = null;
let serve: ChildProcess | null = null;
let project = '';
let plain = '';

test.beforeAll(async () => {
  test.setTimeout(20 * 60_000);
  const image = await devcontainerImage();
  ({ dir, cleanup } = await tempDir('loupe-e2e-devcontainer-'));
  project = path.join(dir, 'app');
  plain = path.join(dir, 'plain');
  await mkdir(path.join(project, '.devcontainer'), { recursive: true });
  await mkdir(plain, { recursive: true });
  await writeFile(path.join(project, 'hello.txt'), 'inside\n');
  await writeFile(path.join(plain, 'hello.txt'), 'no container here\n');
  await writeFile(
    path.join(project, '.devcontainer', 'devcontainer.json'),
    JSON.stringify({
      image,
      containerUser: TEST_USER,
      runArgs: ['--ulimit', 'nofile=4096:4096', '--ulimit', 'nproc=4096:4096', '--security-opt', 'systempaths=unconfined'],
    }),
  );
  // The person's folder is theirs: the image's user has their uid (see devcontainer.e2e.test.ts).
  execFileSync('chown', ['-R', '1000:1000', project]);
});

test.afterEach(async () => {
  if (serve && serve.exitCode === null && serve.signalCode === null) {
    const exited = new Promise((r) => serve!.once('exit', r));
    serve.kill('SIGTERM');
    await exited;
  }
  serve = null;
});

test.afterAll(async () => {
  if (project) removeContainersOf(project);
  if (dir) execFileSync('rm', ['-rf', dir]);
  await cleanup?.();
});

async function serveFolder(folder: string): Promise<string> {
  const home = path.join(dir, 'home');
  await mkdir(home, { recursive: true });
  const env: NodeJS.ProcessEnv = { ...process.env, LOUPE_HOME: path.join(dir, 'loupe'), HOME: home, LOUPE_KEYCHAIN: 'off', LOUPE_LSP: 'off' };
  delete env.SSH_AUTH_SOCK;
  const proc = spawn(process.execPath, [BIN, 'serve', folder, '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  serve = proc;
  let stderr = '';
  proc.stderr!.on('data', (d) => (stderr += d));
  return new Promise<string>((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (d) => {
      out += d;
      const m = /^(http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)$/m.exec(out);
      if (m) resolve(m[1]);
    });
    proc.on('exit', (code) => reject(new Error(`loupe serve exited with ${code}: ${stderr}`)));
  });
}

test('a folder without a dev container offers no Reopen in Container', async ({ page }) => {
  await page.goto(await serveFolder(plain));
  await expect(page.getByTestId('workspace-root')).toContainText('plain');
  await expect(page.getByTestId('open-remote')).toBeVisible();
  await expect(page.getByTestId('reopen-in-container')).toHaveCount(0);
});

test('Reopen in Container starts the folder’s container and the tab goes to the folder inside it', async ({ page }) => {
  test.setTimeout(10 * 60_000);
  const url = await serveFolder(project);
  await page.setViewportSize({ width: 1024, height: 700 });
  await page.goto(url);
  await expect(page.getByTestId('workspace-root')).toContainText('app');
  await expect(page.getByTestId('remote-status')).toHaveCount(0);
  await page.getByTestId('reopen-in-container').click();
  const status = page.getByTestId('remote-status');
  await expect(status).toHaveAttribute('data-state', 'connected', { timeout: 5 * 60_000 });
  await expect(status).toHaveAttribute('data-kind', 'devcontainer');
  await expect(status).toContainText('Container');
  await expect(page.getByTestId('workspace-root')).toContainText('app');
  expect(new URL(page.url()).port).not.toBe(new URL(url).port);
  // Inside, the folder is the container's copy of it, and the sandbox runs there.
  await expect(page.getByTestId('remote-sandbox-off')).toHaveCount(0);
  await expect(page.getByTestId('reopen-in-container')).toHaveCount(0);
  await page.screenshot({ path: path.join(SHOTS, 'in-container-1024.png') });
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.screenshot({ path: path.join(SHOTS, 'in-container-1920.png') });
});
