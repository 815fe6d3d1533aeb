// The chat pane while 10,000 tokens stream in: main-thread long tasks in Chromium against the
// real `loupe serve`, with a scripted model that sends one SSE delta per token, paced like a
// fast local model (~1,000 tokens/s). Goal: no long task over 100 ms. Two replies: prose, then
// prose with fenced TypeScript blocks of ~12 and ~58 lines, which Monaco colours as they stream.
/* global window, document -- page functions run in the browser */
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { chromium } from 'playwright';
import { CHROMIUM, report, startServe, streamingModel, tempDir } from './lib.mjs';

const TOKENS = 10_000;
const WORDS = ['the', 'loop', 'streams', 'tokens', 'into', 'the', 'chat', 'pane,', 'with', '`code`', 'and', 'prose.'];
const CODE_LINE = ['  const', ' total', ' =', ' items', '.reduce((sum,', ' item)', ' =>', ' sum', ' +', ' item.size,', ' 0);', ' //', ' bytes\n'];

const proseToken = (i) => (i % 60 === 59 ? '\n\n' : ' ') + WORDS[i % WORDS.length];

/** Per ~1,000 tokens: a paragraph, a ~12-line block, a paragraph, a ~58-line block. */
function codeTokens() {
  const out = [];
  const prose = () => {
    for (let w = 0; w < 40; w++) out.push(` ${WORDS[w % WORDS.length]}`);
  };
  const block = (n) => {
    out.push('\n\n```ts\n');
    for (let t = 0; t < n; t++) out.push(CODE_LINE[t % CODE_LINE.length]);
    out.push('\n```\n\n');
  };
  while (out.length < TOKENS) {
    prose();
    block(160);
    prose();
    block(754);
  }
  out.length = TOKENS;
  out.push('\n\nend of the code reply.');
  return out;
}
const CODE_TOKENS = codeTokens();

/** The prose reply, or the code reply when the message asks for code. */
const PROSE_TOKENS = Array.from({ length: TOKENS }, (_, i) => proseToken(i));
const tokensFor = (body) => (body.messages.at(-1).content.includes('code') ? CODE_TOKENS : PROSE_TOKENS);

const dir = await tempDir('loupe-bench-chat-');
await writeFile(path.join(dir, 'README.md'), '# bench\n');
const home = await tempDir('loupe-bench-home-');
const model = await streamingModel(tokensFor);
const s = await startServe(dir, { LOUPE_HOME: home, OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: 'k', LOUPE_MODEL: 'bench' });
const browser = await chromium.launch({ ...CHROMIUM, headless: true });
const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
await page.addInitScript(() => {
  window.__longTasks = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__longTasks.push(e.duration);
  }).observe({ type: 'longtask', buffered: true });
});
await page.goto(s.url);
await page.getByTestId('file-tree').waitFor();
await page.getByTestId('agent-tab').click();
await page.waitForTimeout(1000);
await page.evaluate(() => (window.__longTasks = []));
const t0 = Date.now();
await page.getByTestId('chat-input').fill('stream a long answer');
await page.getByTestId('chat-input').press('Enter');
const last = page.locator('[data-testid="chat-message"][data-role="assistant"]').last();
await last.getByText('prose.', { exact: false }).first().waitFor({ timeout: 120_000 });
await page.locator('[data-testid="chat-stop"]').waitFor({ state: 'hidden', timeout: 120_000 }).catch(() => undefined);
const streamMs = Date.now() - t0;
const longTasks = await page.evaluate(() => window.__longTasks);
const words = (await last.innerText()).split(/\s+/).filter(Boolean).length;
if (words < TOKENS * 0.95) throw new Error(`only ${words} of ${TOKENS} tokens reached the page`);
report('chat.stream_10k_tokens.longest_task', Math.max(0, ...longTasks), 'ms', { goal: 100, long_tasks: longTasks.length, tokens: TOKENS, words_shown: words });
report('chat.stream_10k_tokens.duration', streamMs, 'ms', { tokens: TOKENS });

// The second reply, with code: every block coloured by the end, and still no long task.
await page.waitForTimeout(1000);
await page.evaluate(() => (window.__longTasks = []));
const t1 = Date.now();
await page.getByTestId('chat-input').fill('stream code blocks');
await page.getByTestId('chat-input').press('Enter');
const codeReply = page.locator('[data-testid="chat-message"][data-role="assistant"]').last();
// Waits on the Send button, not on text: matching text polls the whole page's DOM, and over
// thousands of token spans that polling is itself a long task the app did not cause.
await page.getByTestId('chat-stop').waitFor({ timeout: 30_000 });
await page.getByTestId('chat-send').waitFor({ timeout: 120_000 });
const codeMs = Date.now() - t1;
if (!(await codeReply.textContent()).includes('end of the code reply.')) throw new Error('the code reply did not arrive whole');
const blocks = codeReply.getByTestId('chat-code-block');
await page
  .waitForFunction(() => [...document.querySelectorAll('[data-testid="chat-code-block"]')].every((b) => b.getAttribute('data-colored') === 'full'), null, { timeout: 30_000 })
  .catch(() => undefined);
const colored = await codeReply.locator('[data-testid="chat-code-block"][data-colored="full"]').count();
const codeLongTasks = await page.evaluate(() => window.__longTasks);
report('chat.stream_10k_tokens_code.longest_task', Math.max(0, ...codeLongTasks), 'ms', { goal: 100, long_tasks: codeLongTasks.length, tokens: TOKENS, code_blocks: await blocks.count(), colored_blocks: colored });
report('chat.stream_10k_tokens_code.duration', codeMs, 'ms', { tokens: TOKENS });
await browser.close();
s.proc.kill('SIGTERM');
model.server.close();
await rm(dir, { recursive: true, force: true });
await rm(home, { recursive: true, force: true });
