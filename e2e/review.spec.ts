// The review pane end to end: modifications made through `loupe mcp` (the official MCP client
// over stdio) on a folder appear in the timeline of `loupe serve` on the same folder, open in
// the diff view, and roll back — whole or one hunk — on disk; a reverted hunk is read back from
// the log after a reload; approved work is committed to git. Needs `npm run build` first.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { expect, test, type Page } from '@playwright/test';
import { docsShot } from './support/docsShot';
import { startServe, type Served } from './support/serve';

const BIN = fileURLToPath(new URL('../bin/loupe.mjs', import.meta.url));

let root: string;
let project: string;
let served: Served;
let mcp: Client;

const lines = (n: number, label = 'line') => Array.from({ length: n }, (_, i) => `${label} ${i + 1}`).join('\n') + '\n';
const FILES: Record<string, string> = {
  'src/config.ts': 'export const port = 3000;\nexport const host = "localhost";\n',
  'src/notes.txt': lines(40),
  'src/approve.ts': 'export const answer = 41;\n',
};

interface Envelope {
  ok: boolean;
  output: string;
  data?: Record<string, unknown>;
  error?: { code: string; message: string };
}

async function tool(name: string, args: Record<string, unknown>): Promise<Envelope> {
  const res = await mcp.callTool({ name, arguments: args });
  return res.structuredContent as unknown as Envelope;
}

/** read_file then edit_file through the MCP server, as an agent would; returns the modification id. */
async function edit(file: string, oldStr: string, newStr: string, extra: Record<string, unknown> = {}): Promise<string> {
  expect((await tool('read_file', { path: file })).ok).toBe(true);
  const r = await tool('edit_file', { path: file, old_str: oldStr, new_str: newStr, ...extra });
  expect(r.error, JSON.stringify(r.error)).toBeUndefined();
  const id = r.data?.modification_id;
  expect(id).toMatch(/^mod-/);
  return id as string;
}

const disk = (rel: string) => readFile(path.join(project, rel), 'utf8');
const gitOut = (...args: string[]) => execFileSync('git', args, { cwd: project, encoding: 'utf8' });
const entry = (page: Page, id: string) => page.locator(`[data-testid="timeline-entry"][data-modification-id="${id}"]`);

async function openApp(page: Page) {
  // Wide enough that the centre keeps two sides: at 1400 px it sits at the 800 px where the diff
  // turns inline (e2e/reviewNarrow.spec.ts covers that), and which side it lands on is a coin toss.
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.goto(served.url);
  await expect(page.getByTestId('workspace-root')).toContainText('review-project');
  // A folder with no modification yet opens on the agent: the timeline is one click away.
  await page.getByTestId('review-tab').click();
  await expect(page.getByTestId('timeline')).toBeVisible();
}

test.beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'loupe-e2e-review-')));
  project = path.join(root, 'review-project');
  for (const [rel, content] of Object.entries(FILES)) {
    await mkdir(path.dirname(path.join(project, rel)), { recursive: true });
    await writeFile(path.join(project, rel), content);
  }
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=e@x', '-c', 'user.name=E', ...args], { cwd: project });
  git('init', '-q');
  // "Commit approved" commits as whoever the repository says.
  git('config', 'user.email', 'reviewer@example.com');
  git('config', 'user.name', 'Reviewer');
  git('add', '.');
  git('commit', '-qm', 'init');
  served = await startServe(project);
  const env = Object.fromEntries(Object.entries(process.env).filter(([k, v]) => v !== undefined && !['LOUPE_MODEL', 'OPENAI_BASE_URL', 'OPENAI_API_KEY'].includes(k))) as Record<string, string>;
  mcp = new Client({ name: 'loupe-e2e-review', version: '1.0.0' });
  await mcp.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--cwd', project], env, stderr: 'pipe' }));
});

test.afterAll(async () => {
  await mcp?.close().catch(() => undefined);
  await served?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

test('a modification made through loupe mcp appears live, opens in the diff view and rolls back on disk', async ({ page }) => {
  await openApp(page);
  // Written by another process while the page is open: the host's log watcher brings it in.
  const id = await edit('src/config.ts', 'port = 3000', 'port = 8080', { reason: 'Serve on the configured port', correlation_id: 'bug-42' });
  const row = entry(page, id);
  await expect(row).toBeVisible({ timeout: 5000 });
  await expect(row).toHaveAttribute('data-status', 'applied');
  await expect(row).toContainText('config.ts');
  await expect(row).toContainText('Serve on the configured port');
  await expect(row).toContainText('bug-42');

  // The correlation filter keeps it and drops what does not match.
  await page.getByTestId('timeline-filter-correlation').fill('bug-4');
  await expect(row).toBeVisible();
  await page.getByTestId('timeline-filter-correlation').fill('no-such-task');
  await expect(page.getByTestId('timeline-entry')).toHaveCount(0);
  await page.getByTestId('timeline-filter-correlation').fill('');

  await row.click();
  const diff = page.getByTestId('diff-view');
  await expect(diff).toBeVisible();
  await expect(diff).toHaveAttribute('data-modification-id', id);
  await expect(diff).toHaveAttribute('data-state', 'ready');
  await expect(diff.locator('.modified .view-lines, .editor.modified .view-lines').first()).toContainText('port = 8080');

  expect(await disk('src/config.ts')).toContain('port = 8080');
  await page.getByTestId('review-rollback').click();
  await expect.poll(() => disk('src/config.ts')).toBe(FILES['src/config.ts']);
  await expect(row).toHaveAttribute('data-status', 'rolled_back');
  await expect(page.getByTestId('review-rollback')).toBeDisabled();
  // The rollback is itself a modification, newest first.
  await expect(page.getByTestId('timeline-entry').first()).toContainText('rollback');
});

test('reverting one hunk of a two-hunk modification leaves the other, shows after a reload and Restore puts it back', async ({ page }) => {
  await openApp(page);
  // One edit_file call whose old_str spans lines 3..30 but changes only the first and the last.
  const original = FILES['src/notes.txt'];
  const block = original.split('\n').slice(2, 30).join('\n');
  const changed = block.replace('line 3', 'line three').replace('line 30', 'line thirty');
  const id = await edit('src/notes.txt', block, changed, { reason: 'Spell out two numbers' });
  const row = entry(page, id);
  await expect(row).toBeVisible({ timeout: 5000 });
  await row.click();
  const diff = page.getByTestId('diff-view');
  await expect(diff).toHaveAttribute('data-modification-id', id);
  const hunks = diff.getByTestId('review-revert-hunk');
  await expect(hunks).toHaveCount(2);
  await expect(diff.locator('.monaco-diff-editor')).toBeVisible();
  await page.waitForTimeout(300);
  await docsShot(page, 'review.png');

  await diff.locator('[data-testid="review-revert-hunk"][data-hunk="0"]').click();
  await expect.poll(() => disk('src/notes.txt')).toContain('line 3\n');
  const now = await disk('src/notes.txt');
  expect(now).not.toContain('line three');
  expect(now).toContain('line thirty\n');
  await expect(diff.locator('[data-testid="review-hunk"][data-hunk="0"]')).toContainText('reverted on disk');
  await expect(diff.locator('[data-testid="review-restore-hunk"][data-hunk="0"]')).toBeVisible();
  // Only part of it went back: the modification itself is not rolled back.
  await expect(row).not.toHaveAttribute('data-status', 'rolled_back');
  await expect(row.getByTestId('timeline-hunks-reverted')).toHaveText('1/2 hunks reverted');

  // The log says so, not the page's memory: a reload reads it back.
  await page.reload();
  await expect(page.getByTestId('workspace-root')).toContainText('review-project');
  const badge = row.getByTestId('timeline-hunks-reverted');
  await expect(badge).toHaveText('1/2 hunks reverted');
  await expect(badge).toHaveAttribute('data-hunks', '0');
  await expect(row).toHaveAttribute('data-status', 'applied');
  await page.screenshot({ path: test.info().outputPath('timeline-hunk-badge.png') });
  await row.click();
  await expect(diff).toHaveAttribute('data-state', 'ready');
  await expect(diff.locator('[data-testid="review-hunk"][data-hunk="0"]')).toContainText('reverted on disk');
  await expect(diff.locator('[data-testid="review-revert-hunk"][data-hunk="1"]')).toHaveText('Revert');

  // Restore on the reverted hunk rolls back its hunk rollback: the hunk is back and the badge goes.
  await expect(diff.locator('[data-testid="review-restore-hunk"]')).toHaveCount(1);
  // The gutter offers a revert arrow only where there is something left to revert (counted once
  // the diff is known and the unchanged lines between the hunks are folded, so both are on screen).
  await expect(diff.locator('.editor.modified')).toContainText('hidden lines');
  await expect(diff.locator('.editor.modified .review-hunk-glyph')).toHaveCount(1);
  await page.screenshot({ path: test.info().outputPath('diff-hunk-restore.png') });
  await diff.locator('[data-testid="review-restore-hunk"][data-hunk="0"]').click();
  await expect.poll(() => disk('src/notes.txt')).toContain('line three\n');
  expect(await disk('src/notes.txt')).toContain('line thirty\n');
  await expect(row.getByTestId('timeline-hunks-reverted')).toHaveCount(0);
  await expect(diff.locator('[data-testid="review-revert-hunk"][data-hunk="0"]')).toHaveText('Revert');
  await expect(diff.locator('[data-testid="review-restore-hunk"]')).toHaveCount(0);
  await expect(diff.locator('.editor.modified .review-hunk-glyph')).toHaveCount(2);
  // The restore is in the log too: the newest entry rolls back the hunk rollback.
  await expect(page.getByTestId('timeline-entry').first()).toContainText('rollback');
});

test('approve marks the entry approved; the keyboard moves through the timeline and opens; commit approved commits just that file', async ({ page }) => {
  await openApp(page);
  // Nothing approved yet: the commit button says why it cannot.
  const commitButton = page.getByTestId('review-commit-approved');
  await expect(commitButton).toBeDisabled();
  await expect(commitButton).toHaveAttribute('title', /Nothing is approved yet/);
  const id = await edit('src/approve.ts', '41', '42', { reason: 'The answer', correlation_id: 'task-7' });
  const row = entry(page, id);
  await expect(row).toBeVisible({ timeout: 5000 });

  // Newest first: j lands on it, Enter opens it.
  await page.getByTestId('timeline').focus();
  await page.keyboard.press('j');
  await page.keyboard.press('Enter');
  const diff = page.getByTestId('diff-view');
  await expect(diff).toHaveAttribute('data-modification-id', id);
  await page.keyboard.press('j');
  await page.keyboard.press('k');
  await page.keyboard.press('Enter');
  await expect(diff).toHaveAttribute('data-modification-id', id);

  await page.getByTestId('review-approve').click();
  await expect(row).toHaveAttribute('data-status', 'approved');
  await expect(page.getByTestId('review-approve')).toBeDisabled();
  expect(await disk('src/approve.ts')).toBe('export const answer = 42;\n');

  // The whole file, HEAD → now.
  await page.getByTestId('diff-whole-file').click();
  await expect(diff).toHaveAttribute('data-kind', 'file');
  await expect(diff).toHaveAttribute('data-state', 'ready');
  await expect(diff).toContainText('answer = 42');

  // Commit approved: the message starts from the approved reason; Enter commits.
  const headBefore = gitOut('rev-parse', 'HEAD').trim();
  await expect(commitButton).toBeEnabled();
  await commitButton.click();
  const message = page.getByTestId('review-commit-message');
  await expect(message).toBeFocused();
  await expect(message).toHaveValue('The answer');
  await page.keyboard.press('End');
  await page.keyboard.type(' is 42');
  await page.screenshot({ path: test.info().outputPath('timeline-commit-form.png') });
  await page.keyboard.press('Enter');
  const result = page.getByTestId('review-commit-result');
  await expect(result).toBeVisible();
  await expect(result).toContainText('src/approve.ts');
  const head = gitOut('rev-parse', 'HEAD').trim();
  expect(head).not.toBe(headBefore);
  await expect(result).toHaveAttribute('data-commit', head);
  await expect(result).toContainText(head.slice(0, 7));
  await expect(page.getByTestId('review-commit-form')).toHaveCount(0);
  await page.screenshot({ path: test.info().outputPath('timeline-commit-result.png') });
  const stat = gitOut('show', '--stat', '--format=%s%n%P', 'HEAD').trim().split('\n');
  expect(stat[0]).toBe('The answer is 42');
  expect(stat[1]).toBe(headBefore);
  expect(stat.filter((l) => l.includes('|')).map((l) => l.split('|')[0].trim())).toEqual(['src/approve.ts']);
  expect(gitOut('show', 'HEAD:src/approve.ts')).toBe('export const answer = 42;\n');
  // The other files' modifications stay out of the commit (and staged, as they were).
  expect(gitOut('diff', '--cached', '--name-only').trim().split('\n')).not.toContain('src/approve.ts');

  // Nothing is left to commit: the button says so instead of offering a commit that would fail.
  await expect(commitButton).toBeDisabled();
  await expect(commitButton).toHaveAttribute('title', /Every approved modification is committed/);
  await expect(row.getByTestId('timeline-status')).toHaveText('Committed');
  expect(gitOut('rev-parse', 'HEAD').trim()).toBe(head);
});
