// The timeline reads like what happened: a hunk revert names its hunk from 1, no row says "No
// reason given", the filter is "Request", request chips fit beside their tags, and a two-line
// change to a rewritten file counts two lines. The explorer strikes through only what is gone.
// Needs `npm run build` first.
import { unlink } from 'node:fs/promises';
import path from 'node:path';
import { expect, test, type Locator } from '@playwright/test';
import type { RecordedRequest, ScriptedReply } from '../test/support/scriptedLlm';
import { sayAndWait, startAgentProject, type AgentProject } from './support/agentProject';

let agent: AgentProject;
const LINES = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
const REWRITTEN = LINES.map((l, i) => (i === 2 || i === 17 ? `${l} changed` : l));

function script(req: RecordedRequest): ScriptedReply {
  const messages = req.body.messages ?? [];
  const last = messages[messages.length - 1];
  if (last?.role !== 'tool') return { toolCalls: [{ name: 'read_file', arguments: JSON.stringify({ path: 'notes.txt' }) }] };
  const lastCall = [...messages].reverse().find((m) => m.role === 'assistant' && m.tool_calls?.length)?.tool_calls?.[0]?.function.name;
  // No reason given: the row must still say something true.
  if (lastCall === 'read_file') return { toolCalls: [{ name: 'write_file', arguments: JSON.stringify({ path: 'notes.txt', content: REWRITTEN.join('\n') + '\n' }) }] };
  return { content: 'Rewritten.' };
}

test.beforeAll(async () => {
  agent = await startAgentProject('words-project', { 'notes.txt': LINES.join('\n') + '\n', 'lib/old.ts': 'old\n', 'lib/new.ts': 'new\n' }, script);
  await unlink(path.join(agent.project, 'lib/old.ts'));
});

test.afterAll(async () => {
  await agent?.stop();
});

const overlap = async (a: Locator, b: Locator) => {
  const [x, y] = [await a.boundingBox(), await b.boundingBox()];
  return Boolean(x && y && x.x < y.x + y.width && y.x < x.x + x.width && x.y < y.y + y.height && y.y < x.y + x.height);
};

test('after undoing a hunk the timeline says what happened, in words and counts that fit', async ({ page }) => {
  await page.goto(agent.served.url);
  await expect(page.getByTestId('workspace-root')).toContainText('words-project');
  await page.getByTestId('agent-tab').click();
  await sayAndWait(page, 'rewrite the notes');
  await page.getByTestId('review-tab').click();
  await expect(page.getByTestId('timeline-filter-correlation')).toHaveAttribute('placeholder', 'Request');

  const first = page.locator('[data-testid="timeline-entry"][data-file="notes.txt"]').first();
  await expect(first.locator('.tl-lines').last()).toHaveText('±2');
  await expect(first.getByTestId('timeline-reason')).toHaveText('By write_file');
  const id = await first.getAttribute('data-modification-id');
  const edit = page.locator(`[data-testid="timeline-entry"][data-modification-id="${id}"]`);
  await edit.click();
  const diff = page.getByTestId('diff-view');
  await expect(diff.getByTestId('review-revert-hunk')).toHaveCount(2);
  await diff.locator('[data-testid="review-revert-hunk"][data-hunk="0"]').click();

  const undo = page.locator('[data-testid="timeline-entry"][data-file="notes.txt"]:not([data-modification-id="' + id + '"])');
  await expect(undo.getByTestId('timeline-reason')).toHaveText(`Reverted hunk 1 of 2 in ${id}`);
  await expect(undo.getByTestId('timeline-status')).toHaveCount(0);
  await expect(page.getByTestId('timeline')).not.toContainText('No reason given');

  // The request chip names the request by its prompt, whole (no cut text) and clear of the tags beside it.
  const chip = edit.locator('.tl-corr');
  await expect(chip).toHaveText('rewrite the notes');
  expect(await chip.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
  for (const other of [edit.locator('.tl-time'), edit.locator('.tl-name'), edit.getByTestId('timeline-status'), edit.getByTestId('timeline-hunks-reverted')]) {
    expect(await overlap(chip, other)).toBe(false);
  }
  // The tags of the busiest row all fit in its width.
  expect(await edit.locator('.tl-meta').evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
  await page.screenshot({ path: test.info().outputPath('timeline-words.png') });
});

test('a folder holding a deleted file is tinted, not struck through; the file itself is', async ({ page }) => {
  await page.goto(agent.served.url);
  const folder = page.locator('[data-testid="file-tree-item"][data-path="lib"]');
  await expect(folder).toHaveAttribute('data-git-nested', 'D');
  const struck = (row: Locator) => row.locator('.tree-name').evaluate((el) => getComputedStyle(el).textDecorationLine);
  expect(await struck(folder)).toBe('none');
  await folder.click();
  const keep = page.locator('[data-testid="file-tree-item"][data-path="lib/new.ts"]');
  await expect(keep).toBeVisible();
  expect(await struck(keep)).toBe('none');
});
