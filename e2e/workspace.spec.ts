import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, realpath, rm, writeFile, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { docsShot } from './support/docsShot';
import { startServe, type Served } from './support/serve';

let root: string;
let project: string;
let other: string;
let served: Served;

async function writeFiles(base: string, files: Record<string, string>) {
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(base, rel)), { recursive: true });
    await writeFile(path.join(base, rel), content);
  }
}

test.beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'loupe-e2e-')));
  project = path.join(root, 'demo-project');
  other = path.join(root, 'second-folder');
  await writeFiles(project, {
    'README.md': '# Demo\n\nA small project.\n',
    'src/app.ts': 'export function greet(name: string): string {\n  return `hello ${name}`;\n}\n',
    'src/util/math.ts': 'export const add = (a: number, b: number) => a + b;\n',
    'package.json': '{ "name": "demo", "version": "1.0.0" }\n',
    '.gitignore': 'dist/\n',
    'dist/bundle.js': 'ignored',
  });
  await writeFiles(other, { 'notes.txt': 'second folder\n' });
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=e@x', '-c', 'user.name=E', ...args], { cwd: project });
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'init');
  await writeFile(path.join(project, 'src/app.ts'), 'export function greet(name: string): string {\n  return `hi ${name}`;\n}\n');
  served = await startServe(project);
});

test.afterAll(async () => {
  await served?.stop();
  await rm(root, { recursive: true, force: true });
});

async function openApp(page: Page) {
  await page.goto(served.url);
  await expect(page.getByTestId('workspace-root')).toContainText('demo-project');
}

// The active tab's xterm (xterm's DOM renderer keeps its text readable in .xterm-rows).
const activeTerminal = (page: Page) => page.locator('[data-testid="terminal"] [data-active="true"]');
const terminalText = (page: Page) => activeTerminal(page).locator('.xterm-rows');
/** Keys typed before the visible terminal owns the keyboard go elsewhere (CI lost a first `g`). */
async function terminalHasFocus(page: Page) {
  await expect(activeTerminal(page).locator('textarea.xterm-helper-textarea')).toBeFocused();
}

test('refuses requests without the token or from a foreign origin', async () => {
  const base = `http://127.0.0.1:${served.port}`;
  expect((await fetch(`${base}/`)).status).toBe(401);
  expect((await fetch(`${base}/?token=not-the-token`)).status).toBe(401);
  expect((await fetch(served.url, { headers: { Origin: 'http://attacker.example' } })).status).toBe(403);
  expect((await fetch(served.url)).status).toBe(200);
});

test('the browser keeps no cookie: the token lives in this tab only, and a reload still works', async ({ page }) => {
  await openApp(page);
  // Cookies ignore ports: one would reach every other server on 127.0.0.1.
  expect(await page.context().cookies()).toEqual([]);
  expect(page.url()).not.toContain('token=');
  await page.reload();
  await expect(page.getByTestId('workspace-root')).toContainText('demo-project');
  expect(page.url()).not.toContain('token=');
  expect(await page.context().cookies()).toEqual([]);
  // A new tab holds no token: it gets the page that asks for the printed URL (200, so that a
  // reload logs no error), never the app.
  const other = await page.context().newPage();
  await other.goto(`http://127.0.0.1:${served.port}/`);
  await expect(other.getByText('Unauthorized: open the URL')).toBeVisible();
  await expect(other.getByTestId('workspace-root')).toHaveCount(0);
  expect(other.url()).not.toContain('token=');
  await other.close();
});

test('shows the folder, a .gitignore-aware tree with git badges, and files in the viewer', async ({ page }) => {
  await openApp(page);
  const tree = page.getByTestId('file-tree');
  await expect(tree.locator('[data-testid="file-tree-item"][data-path="src"]')).toBeVisible();
  await expect(tree.locator('[data-testid="file-tree-item"][data-path="README.md"]')).toBeVisible();
  await expect(tree.locator('[data-testid="file-tree-item"][data-path="dist"]')).toHaveCount(0);

  await tree.locator('[data-testid="file-tree-item"][data-path="src"]').click();
  const app = tree.locator('[data-testid="file-tree-item"][data-path="src/app.ts"]');
  await expect(app).toBeVisible();
  await expect(app).toContainText('M');
  await app.click();
  await expect(page.getByTestId('file-viewer')).toContainText('hi ${name}');

  await tree.locator('[data-testid="file-tree-item"][data-path="README.md"]').click();
  await expect(page.getByTestId('file-viewer')).toContainText('A small project.');
});

test('the tree refreshes live when a file appears on disk', async ({ page }) => {
  await openApp(page);
  await writeFile(path.join(project, 'LIVE.md'), 'new\n');
  await expect(page.locator('[data-testid="file-tree-item"][data-path="LIVE.md"]')).toBeVisible({ timeout: 5000 });
  await page.locator('[data-testid="file-tree-item"][data-path="LIVE.md"]').click();
  await expect(page.getByTestId('file-viewer')).toContainText('new');
  // An edit in place changes no listing; the open file follows it anyway.
  await writeFile(path.join(project, 'LIVE.md'), 'edited on disk\n');
  await expect(page.getByTestId('file-viewer')).toContainText('edited on disk', { timeout: 5000 });
  await rm(path.join(project, 'LIVE.md'));
  await expect(page.locator('[data-testid="file-tree-item"][data-path="LIVE.md"]')).toHaveCount(0, { timeout: 5000 });
});

test('a command typed into the terminal prints its output', async ({ page }) => {
  await openApp(page);
  await expect(terminalText(page)).toBeVisible();
  await activeTerminal(page).locator('.xterm').click();
  await terminalHasFocus(page);
  await page.keyboard.type('echo loupe-$((6*7))');
  await page.keyboard.press('Enter');
  await expect(terminalText(page)).toContainText('loupe-42');

  // A new terminal tab is independent of the first.
  const firstId = await activeTerminal(page).getAttribute('data-terminal-id');
  await page.getByTestId('terminal-new').click();
  await expect(activeTerminal(page)).not.toHaveAttribute('data-terminal-id', firstId!);
  await terminalHasFocus(page);
  await page.keyboard.type('echo second-tab-ok');
  await page.keyboard.press('Enter');
  await expect(terminalText(page)).toContainText('second-tab-ok');
  await expect(terminalText(page)).not.toContainText('loupe-42');
});

test('Ctrl+Shift+V pastes into the terminal with no clipboard permission, as in the desktop app', async ({ page }) => {
  await openApp(page);
  await expect(terminalText(page)).toBeVisible();
  // The user copies a command somewhere: a real copy, which needs no permission. The context
  // grants none, so a navigator.clipboard.readText() would be refused, as the app's session does.
  await page.evaluate(() => {
    const d = (globalThis as unknown as { document: { createElement(t: string): { id: string; value: string }; body: { append(e: unknown): void } } }).document;
    const src = d.createElement('textarea');
    src.id = 'paste-source';
    src.value = 'echo pasted-$((6*7))';
    d.body.append(src);
  });
  await page.focus('#paste-source');
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Control+C');
  await page.evaluate(() => (globalThis as unknown as { document: { getElementById(id: string): { remove(): void } } }).document.getElementById('paste-source').remove());

  await activeTerminal(page).locator('.xterm').click();
  await page.keyboard.press('Control+Shift+V');
  await page.keyboard.press('Enter');
  await expect(terminalText(page)).toContainText('pasted-42');
});

test('README screenshot', async ({ page }) => {
  await openApp(page);
  const tree = page.getByTestId('file-tree');
  await tree.locator('[data-testid="file-tree-item"][data-path="src"]').click();
  await tree.locator('[data-testid="file-tree-item"][data-path="src/app.ts"]').click();
  await expect(page.getByTestId('file-viewer')).toContainText('greet');
  await page.getByTestId('terminal-new').click();
  await expect(terminalText(page)).not.toHaveText(/^\s*$/); // the new shell's prompt
  await terminalHasFocus(page);
  await page.keyboard.type('git status --short');
  await page.keyboard.press('Enter');
  await expect(terminalText(page)).toContainText('M src/app.ts');
  // Let the next prompt arrive so the picture shows a terminal at rest.
  await page.waitForTimeout(400);
  await docsShot(page, 'screenshot.png');
});

test('opens another folder by typing its path', async ({ page }) => {
  await openApp(page);
  await page.getByTestId('open-folder').click();
  const input = page.getByTestId('open-folder-input');
  await input.fill(other);
  await input.press('Enter');
  await expect(page.getByTestId('workspace-root')).toContainText('second-folder');
  await expect(page.locator('[data-testid="file-tree-item"][data-path="notes.txt"]')).toBeVisible();
  // Put the first folder back for the tests that follow.
  await page.getByTestId('open-folder').click();
  await page.getByTestId('open-folder-input').fill(project);
  await page.getByTestId('open-folder-input').press('Enter');
  await expect(page.getByTestId('workspace-root')).toContainText('demo-project');
});

test('`yes | head -c 50000000` finishes with the UI responsive and host memory bounded', async ({ page }) => {
  test.setTimeout(240_000);
  await page.addInitScript(() => {
    const w = window as unknown as { __longTasks: number[] };
    w.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.__longTasks.push(e.duration);
    }).observe({ type: 'longtask', buffered: true });
  });
  await openApp(page);
  await activeTerminal(page).locator('.xterm').click();
  await expect(terminalText(page)).toBeVisible();
  await page.waitForTimeout(500);
  await page.evaluate(() => ((window as unknown as { __longTasks: number[] }).__longTasks = []));

  const rss: number[] = [];
  const sampler = setInterval(async () => {
    const status = await readFile(`/proc/${served.proc.pid}/status`, 'utf8').catch(() => '');
    const kb = Number(status.match(/VmRSS:\s+(\d+)/)?.[1] ?? 0);
    if (kb) rss.push(kb / 1024);
  }, 200);
  const started = Date.now();
  await page.keyboard.type('yes | head -c 50000000; echo FLOOD-$((1+1))-DONE');
  await page.keyboard.press('Enter');
  // While the flood runs the page still answers: a click on the tree gets a response.
  await page.waitForTimeout(1500);
  const t0 = Date.now();
  await page.locator('[data-testid="file-tree-item"][data-path="README.md"]').click();
  await expect(page.getByTestId('file-viewer')).toContainText('A small project.');
  const clickToViewMs = Date.now() - t0;
  await expect(terminalText(page)).toContainText('FLOOD-2-DONE', { timeout: 200_000 });
  const floodMs = Date.now() - started;
  clearInterval(sampler);

  const longTasks = await page.evaluate(() => (window as unknown as { __longTasks: number[] }).__longTasks);
  const longest = Math.max(0, ...longTasks);
  const peakRss = Math.max(...rss);
  const report = { floodMs, clickToViewMs, longTasks: longTasks.length, longestTaskMs: Math.round(longest), hostPeakRssMb: Math.round(peakRss) };
  console.log(`terminal flood: ${JSON.stringify(report)}`);
  test.info().annotations.push({ type: 'flood', description: JSON.stringify(report) });
  expect(clickToViewMs).toBeLessThan(5000);
  // Flow control keeps the host from buffering the 50 MB: its memory stays far below it.
  expect(peakRss).toBeLessThan(400);
});
