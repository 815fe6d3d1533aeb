// "Open in editor" in the browser says what it did: the editor and the machine it opened on, or,
// where no editor can be launched for this client (a headless machine: no display), why, with
// the file's path to copy. It did nothing visible before. Needs `npm run build` first.
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { VIEWPORTS } from './support/agentProject';
import { startServe, type Served } from './support/serve';

const SHOTS = path.resolve('test-results', 'open-in-editor');

let root: string;
let project: string;
let editor: string;
let opened: string;

test.beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'loupe-e2e-editor-')));
  project = path.join(root, 'editor-project');
  await mkdir(path.join(project, 'src'), { recursive: true });
  await writeFile(path.join(project, 'src/app.ts'), 'export const app = 1;\n');
  await writeFile(path.join(project, 'src/broken.ts'), 'export const broken = 1;\n');
  execFileSync('git', ['init', '-q'], { cwd: project });
  // The person's editor: it records what it was given, and fails on one file as a real one can.
  opened = path.join(root, 'opened.txt');
  editor = path.join(root, 'my-editor');
  await writeFile(editor, `#!/bin/sh\ncase "$1" in *broken*) echo "my-editor: cannot connect to the window server" >&2; exit 2;; esac\nprintf '%s\\n' "$@" > "${opened}"\n`);
  await chmod(editor, 0o755);
  await mkdir(SHOTS, { recursive: true });
});
test.afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function openFile(page: Page, served: Served, rel: string) {
  await page.goto(served.url);
  await page.getByTestId('file-tree-item').filter({ hasText: 'src' }).first().click();
  await page.locator(`[data-testid="file-tree-item"][data-path="${rel}"]`).click();
  await expect(page.getByTestId('file-viewer')).toHaveAttribute('data-path', rel);
}

for (const [width, height] of VIEWPORTS) {
  test.describe(`${width}x${height}`, () => {
    test('no editor can be launched here: it says why and offers the path to copy', async ({ page, context }) => {
      // A headless machine: no display, no $VISUAL or $EDITOR, no code or zed on the PATH.
      const served = await startServe(project, { DISPLAY: '', WAYLAND_DISPLAY: '', VISUAL: '', EDITOR: '', PATH: '/usr/bin:/bin' });
      try {
        await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(served.url).origin });
        await page.setViewportSize({ width, height });
        await openFile(page, served, 'src/app.ts');
        await page.getByTestId('open-in-editor').click();
        const result = page.getByTestId('open-in-editor-result');
        await expect(result).toHaveAttribute('data-opened', 'false');
        await expect(result).toContainText('No editor could be opened');
        await expect(result).toContainText('no display is set');
        await expect(page.getByTestId('open-in-editor-path')).toHaveText(path.join(project, 'src/app.ts'));
        await page.getByTestId('open-in-editor-copy').click();
        await expect(page.getByTestId('open-in-editor-copy')).toHaveText('Copied');
        expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(path.join(project, 'src/app.ts'));
        // All of it shows inside the viewer, however narrow.
        const box = (await result.boundingBox())!;
        const viewer = (await page.getByTestId('file-viewer').boundingBox())!;
        expect(box.x).toBeGreaterThanOrEqual(viewer.x);
        expect(box.x + box.width).toBeLessThanOrEqual(viewer.x + viewer.width);
        await page.screenshot({ path: path.join(SHOTS, `no-editor-${width}.png`) });
        // It stays until dismissed: the person may still need the path.
        await page.getByTestId('open-in-editor-dismiss').click();
        await expect(result).toHaveCount(0);
      } finally {
        await served.stop();
      }
    });

    test('an editor that opens: it says which, and where; one that fails: its own words', async ({ page }) => {
      const served = await startServe(project, { VISUAL: editor });
      try {
        await page.setViewportSize({ width, height });
        // The page's clock, so that the result's few seconds on screen pass at once.
        await page.clock.install();
        await openFile(page, served, 'src/app.ts');
        await page.getByTestId('open-in-editor').click();
        const result = page.getByTestId('open-in-editor-result');
        await expect(result).toHaveAttribute('data-opened', 'true');
        await expect(result).toContainText(`Opened in my-editor on ${os.hostname()}.`);
        await expect.poll(() => readFile(opened, 'utf8').catch(() => '')).toBe(`${path.join(project, 'src/app.ts')}\n`);
        await page.screenshot({ path: path.join(SHOTS, `opened-${width}.png`), animations: 'disabled' });
        // A success needs no answer: it fades (after 5 s, src/renderer/viewer/OpenInEditor.tsx).
        await page.clock.fastForward(6000);
        await expect(result).toHaveCount(0);

        await page.locator('[data-testid="file-tree-item"][data-path="src/broken.ts"]').click();
        await page.getByTestId('open-in-editor').click();
        await expect(result).toHaveAttribute('data-opened', 'false');
        await expect(result).toContainText('my-editor exited with 2: my-editor: cannot connect to the window server');
        await expect(page.getByTestId('open-in-editor-path')).toHaveText(path.join(project, 'src/broken.ts'));
      } finally {
        await served.stop();
      }
    });
  });
}
