// Open Folder's path field: Tab completes as a shell does, and lists the matches when there are
// several, also when it is pressed before the list has arrived; focus stays in the field.
// Needs `npm run build` first.
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { VIEWPORTS } from './support/agentProject';
import { startServe, type Served } from './support/serve';

const SHOTS = path.resolve('test-results', 'open-folder-tab');
let root: string;
let served: Served;

test.beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'loupe-e2e-tab-')));
  for (const d of ['start', 'alpha-one', 'alpha-two', 'beta']) await mkdir(path.join(root, d));
  await writeFile(path.join(root, 'start', 'a.txt'), 'a\n');
  served = await startServe(path.join(root, 'start'));
});
test.afterAll(async () => {
  await served?.stop();
  await rm(root, { recursive: true, force: true });
});

for (const [width, height] of VIEWPORTS) {
  test(`${width}x${height}: Tab completes a path and lists the matches`, async ({ page }) => {
    await page.setViewportSize({ width, height });
    await page.goto(served.url);
    await page.getByTestId('open-folder').click();
    const input = page.getByTestId('open-folder-input');
    const candidates = page.getByTestId('open-folder-candidate');
    // Typed at once and Tab at once: the matches are not in yet, Tab still completes.
    await input.fill(`${root}/al`);
    await input.press('Tab');
    await expect(input).toBeFocused();
    await expect(input).toHaveValue(`${root}/alpha-`);
    await expect(candidates).toHaveText([`${root}/alpha-one`, `${root}/alpha-two`]);
    await page.screenshot({ path: path.join(SHOTS, `matches-${width}.png`) });
    // Nothing more in common: Tab again keeps the list and picks the first.
    await input.press('Tab');
    await expect(input).toBeFocused();
    await expect(candidates).toHaveCount(2);
    await input.press('Tab');
    await expect(input).toHaveValue(`${root}/alpha-one/`);

    await input.fill(`${root}/be`);
    await input.press('Tab');
    await expect(input).toHaveValue(`${root}/beta/`);
    await expect(input).toBeFocused();
    // No match: Tab says so and keeps the focus.
    await input.fill(`${root}/zzz`);
    await input.press('Tab');
    await expect(input).toBeFocused();
    await expect(page.getByTestId('open-folder-none')).toHaveText(`No folder matches ${root}/zzz`);
  });
}
