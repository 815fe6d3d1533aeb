// The model's answers as GitHub-flavoured Markdown: tables, quotes, links and task lists come
// out as elements, HTML in the text stays text, and a file path opens the viewer at its line.
// Needs `npm run build` first.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { userPrompt, type RecordedRequest, type ScriptedReply } from '../test/support/scriptedLlm';
import { sayAndWait, startAgentProject, type AgentProject } from './support/agentProject';

let agent: AgentProject;
const SHOTS = path.resolve('test-results', 'markdown');
const FILE = Array.from({ length: 60 }, (_, i) => `export const line${i + 1} = ${i + 1};`).join('\n') + '\n';

const GFM = [
  '## Findings',
  '',
  '| File | Lines |',
  '| --- | ---: |',
  '| `src/a.ts` | 60 |',
  '| README.md | 2 |',
  '',
  '> Quoted: keep it short.',
  '',
  '- [x] read the file',
  '- [ ] edit it',
  '',
  'See [the docs](https://example.com/docs) and src/a.ts:42 for the answer.',
  '',
  'Not HTML: <img src=x onerror="window.__pwned=1"> and <b>bold?</b>',
  '',
  '<script>window.__pwned=2</script>',
].join('\n');

function script(req: RecordedRequest): ScriptedReply {
  return userPrompt(req).includes('gfm') ? { content: GFM, frameDelayMs: 2 } : { content: 'ok' };
}

test.beforeAll(async () => {
  agent = await startAgentProject('md-project', { 'src/a.ts': FILE, 'README.md': '# md\n' }, script);
  await mkdir(SHOTS, { recursive: true });
});

test.afterAll(async () => {
  await agent?.stop();
});

async function openAgent(page: Page) {
  await page.goto(agent.served.url);
  await expect(page.getByTestId('workspace-root')).toContainText('md-project');
  await page.getByTestId('agent-tab').click();
}

test('a GFM table, quote, link and task list render as elements; HTML in the text never does', async ({ page }) => {
  await openAgent(page);
  await sayAndWait(page, 'show gfm');
  const reply = page.locator('[data-testid="chat-message"][data-role="assistant"]').last();
  await expect(reply.locator('table')).toHaveCount(1);
  await expect(reply.locator('table th')).toHaveText(['File', 'Lines']);
  await expect(reply.locator('table tbody tr')).toHaveCount(2);
  await expect(reply.locator('blockquote')).toHaveText('Quoted: keep it short.');
  await expect(reply.locator('h2')).toHaveText('Findings');
  const link = reply.locator('a[href="https://example.com/docs"]');
  await expect(link).toHaveText('the docs');
  await expect(link).toHaveAttribute('rel', /noopener/);
  const boxes = reply.locator('li input[type="checkbox"]');
  await expect(boxes).toHaveCount(2);
  await expect(boxes.nth(0)).toBeChecked();
  await expect(boxes.nth(1)).not.toBeChecked();

  // The model's HTML is shown as the text it is.
  await expect(reply.locator('img, script, b')).toHaveCount(0);
  await expect(reply).toContainText('<img src=x onerror="window.__pwned=1">');
  await expect(reply).toContainText('<b>bold?</b>');
  expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
  await page.screenshot({ path: path.join(SHOTS, 'gfm.png') });
});

test('a file path in an answer opens the viewer at its line', async ({ page }) => {
  await openAgent(page);
  await sayAndWait(page, 'gfm again');
  const reply = page.locator('[data-testid="chat-message"][data-role="assistant"]').last();
  const mention = reply.locator('[data-testid="chat-file-link"][data-path="src/a.ts"][data-line="42"]');
  await expect(mention).toHaveText('src/a.ts:42');
  // A code span that is a path links too; a bare README.md in running text stays a word.
  await expect(reply.locator('table [data-testid="chat-file-link"]')).toHaveAttribute('data-path', 'src/a.ts');
  await expect(reply.locator('[data-testid="chat-file-link"][data-path="README.md"]')).toHaveCount(0);
  await mention.click();
  const viewer = page.getByTestId('file-viewer');
  await expect(viewer).toHaveAttribute('data-path', 'src/a.ts');
  await expect(viewer).toHaveAttribute('data-state', 'ready');
  await expect(viewer).toHaveAttribute('data-line', '42');
  await expect(viewer.locator('.view-line').filter({ hasText: 'line42 = 42' })).toBeVisible();
  await page.screenshot({ path: path.join(SHOTS, 'file-link.png') });
});
