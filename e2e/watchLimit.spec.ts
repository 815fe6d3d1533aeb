// Out of inotify watches (a real, tiny limit in a user namespace of the server's own): the UI
// says so once with the fix, and the folders open in the tree still follow the disk.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { startServe, type Served } from './support/serve';

let dir: string;
let served: Served;

function canUnshare(): boolean {
  try {
    execFileSync('unshare', ['-U', '-r', 'sh', '-c', 'echo 20 > /proc/sys/user/max_inotify_watches'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

test.beforeAll(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'loupe-e2e-watchlimit-')));
  for (let i = 0; i < 60; i++) {
    await mkdir(path.join(dir, `d${i}`));
    await writeFile(path.join(dir, `d${i}`, 'f.txt'), `${i}\n`);
  }
});
test.afterAll(async () => {
  await served?.stop();
  await rm(dir, { recursive: true, force: true });
});

test('with too few inotify watches the notice names the fix, and open folders still refresh', async ({ page }) => {
  const why = 'this kernel does not allow a user namespace with its own inotify limit';
  if (!canUnshare()) console.log(`watch-limit e2e skipped: ${why}`);
  test.skip(!canUnshare(), why);
  served = await startServe(dir, {}, { inotifyLimit: 20 });
  await page.goto(served.url);
  await expect(page.getByTestId('workspace-notice')).toContainText('fs.inotify.max_user_watches=524288');
  const row = (p: string) => page.locator(`[data-testid="file-tree-item"][data-path="${p}"]`);
  await row('d7').click();
  await expect(row('d7/f.txt')).toBeVisible();
  // Made on disk behind Loupe's back: no watcher sees it, the rescan of open folders does.
  await writeFile(path.join(dir, 'd7', 'appeared.txt'), 'new\n');
  await mkdir(path.join(dir, 'd7', 'sub'));
  await writeFile(path.join(dir, 'd7', 'sub', 'deep.txt'), 'deep\n');
  // A folder, so it sorts first among the root's 60 and is drawn (the tree draws what is in view).
  await mkdir(path.join(dir, 'a-new'));
  await writeFile(path.join(dir, 'a-new', 'x.txt'), 'x\n');
  await expect(row('d7/appeared.txt')).toBeVisible({ timeout: 8000 });
  await expect(row('d7/sub')).toBeVisible();
  await expect(row('a-new')).toBeVisible();
  await row('d7/sub').click();
  await expect(row('d7/sub/deep.txt')).toBeVisible();
  await rm(path.join(dir, 'd7', 'appeared.txt'));
  await expect(row('d7/appeared.txt')).toHaveCount(0, { timeout: 8000 });
  await page.screenshot({ path: path.resolve('test-results', 'watch-limit.png') });
});
