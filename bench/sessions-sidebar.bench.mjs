// The sessions sidebar while 8 worktree sessions stream at once: main-thread long tasks in
// Chromium against the real `loupe serve`. Eight sessions are started from the sidebar (each its
// own worktree of a small repository); the scripted model holds every answer until all eight
// asked, then streams them together, one SSE delta per token (~1,000 tokens/s per session), one
// of them into the open chat. Measured from the release until every row says done.
// Goal: no long task over 100 ms.
/* global window, document */
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { chromium } from 'playwright';
import { CHROMIUM, longTaskPage, report, startServe, tempDir } from './lib.mjs';

const SESSIONS = 8;
const TOKENS = 2_000;
const WORDS = ['each', 'session', 'streams', 'into', 'its', 'own', 'worktree,', 'side', 'by', 'side.'];

/** Answers wait until `SESSIONS` requests are in, then all stream at once; `released` resolves then. */
function gatedModel() {
  const waiting = [];
  let heard = 0;
  let release;
  const released = new Promise((r) => (release = r));
  const stream = async (res) => {
    const base = { id: 'c', object: 'chat.completion.chunk', created: 0, model: 'bench' };
    const frame = (delta, finish = null) => `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(frame({ role: 'assistant', content: '' }));
    for (let i = 0; i < TOKENS; i++) {
      res.write(frame({ content: (i % 50 === 49 ? '\n\n' : ' ') + WORDS[i % WORDS.length] }));
      if (i % 10 === 9) await new Promise((r) => setTimeout(r, 10));
    }
    res.end(`${frame({}, 'stop')}data: [DONE]\n\n`);
  };
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (!req.url.includes('/chat/completions')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'bench', object: 'model' }] }));
        return;
      }
      waiting.push(res);
      heard++;
      if (waiting.length === SESSIONS) {
        release(Date.now());
        for (const r of waiting.splice(0)) void stream(r);
      }
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, released, heard: () => heard, baseURL: `http://127.0.0.1:${server.address().port}/v1` })));
}

const root = await tempDir('loupe-bench-sessions-');
const dir = path.join(root, 'repo');
execFileSync('mkdir', ['-p', dir]);
await writeFile(path.join(dir, 'README.md'), '# bench\n');
await writeFile(path.join(dir, 'index.ts'), 'export const x = 1;\n');
const git = (...args) => execFileSync('git', ['-c', 'user.email=b@x', '-c', 'user.name=B', ...args], { cwd: dir });
git('init', '-q');
git('add', '.');
git('commit', '-qm', 'init');
const home = await tempDir('loupe-bench-home-');
const model = await gatedModel();
const s = await startServe(dir, { LOUPE_HOME: home, LOUPE_LSP: 'off', OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: 'k', LOUPE_MODEL: 'bench' });
const browser = await chromium.launch({ ...CHROMIUM, headless: true });
const page = await longTaskPage(browser, s.url);
await page.getByTestId('agent-tab').click();
for (let i = 1; i <= SESSIONS; i++) {
  await page.getByTestId('new-worktree-session').click();
  await page.getByTestId('new-worktree-name').fill(`s${i}`);
  await page.getByTestId('new-worktree-name').press('Enter');
  const row = page.locator(`[data-testid="session-row"][data-worktree="s${i}"][aria-selected="true"]`);
  await row.waitFor({ timeout: 60_000 });
  const id = await row.getAttribute('data-session-id');
  await page.waitForFunction((v) => document.querySelector('[data-testid="chat-session"]')?.value === v, id, { timeout: 60_000 });
  await page.getByTestId('chat-input').fill(`stream ${i}`);
  await page.getByTestId('chat-input').press('Enter');
}
const t0 = await Promise.race([
  model.released,
  new Promise((_, reject) => setTimeout(() => reject(new Error(`the model heard ${model.heard()} of ${SESSIONS} requests`)), 120_000)),
]).catch(async (err) => {
  await page.screenshot({ path: path.join(root, 'stuck.png') });
  throw err;
});
await page.evaluate(() => (window.__longTasks = []));
const rows = page.locator('[data-testid="session-row"]');
await page.locator('[data-testid="session-row"][data-status="working"]').first().waitFor({ timeout: 30_000 }).catch(() => undefined);
// Waits on the rows' own attribute, polled by one query: matching streamed text would itself cost the page.
await page.waitForFunction((n) => document.querySelectorAll('[data-testid="session-row"][data-status="done"]').length === n, SESSIONS, { timeout: 180_000, polling: 500 });
const ms = Date.now() - t0;
const longTasks = await page.evaluate(() => window.__longTasks);
if ((await rows.count()) !== SESSIONS) throw new Error(`${await rows.count()} rows, not ${SESSIONS}`);
report('sidebar.sessions_8_streaming.longest_task', Math.max(0, ...longTasks), 'ms', { goal: 100, long_tasks: longTasks.length, sessions: SESSIONS, tokens_each: TOKENS });
report('sidebar.sessions_8_streaming.duration', ms, 'ms', { sessions: SESSIONS, tokens_each: TOKENS });
await browser.close();
s.proc.kill('SIGTERM');
model.server.close();
await rm(root, { recursive: true, force: true });
await rm(home, { recursive: true, force: true });
