// Ten background processes printing 1 MB/s each for 30 s, in the real `loupe serve` with
// Chromium showing the Processes pane on one of them: the host's memory stays bounded (ring
// buffers, the rest on disk), the page's longest task (goal: under 100 ms), and every byte in
// the logs under .loupe/outputs/processes/. The scripted model starts the ten in one turn.
/* global window -- page functions run in the browser */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { chromium } from 'playwright';
import { CHROMIUM, report, startServe, tempDir } from './lib.mjs';

const PROCESSES = 10;
const SECONDS = 30;
const BYTES_PER_S = 1024 * 1024;
// 64 KB of numbered lines every 62.5 ms: 1 MB/s for SECONDS, then exit.
const PRINTER = `const line=(n)=>String(n).padStart(8,'0')+' '+'y'.repeat(118)+'\\n';let n=0;const chunk=()=>{let s='';while(s.length<65536)s+=line(n++);return s};let k=0;const t=setInterval(()=>{process.stdout.write(chunk());if(++k>=${SECONDS * 16})clearInterval(t)},62.5)`;

function scriptedModel() {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      if (!req.url.includes('/chat/completions')) return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"object":"list","data":[]}');
      const started = JSON.parse(body).messages.some((m) => m.role === 'tool');
      const base = { id: 'c', object: 'chat.completion.chunk', created: 0, model: 'bench' };
      const frame = (delta, finish = null) => `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (started) return void res.end(`${frame({ role: 'assistant', content: 'Started.' })}${frame({}, 'stop')}data: [DONE]\n\n`);
      const calls = Array.from({ length: PROCESSES }, (_, i) => ({ index: i, id: `call_${i}`, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command: `node printer.cjs # ${i}`, description: 'print', run_in_background: true }) } }));
      res.end(`${frame({ role: 'assistant', content: '', tool_calls: calls })}${frame({}, 'tool_calls')}data: [DONE]\n\n`);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, baseURL: `http://127.0.0.1:${server.address().port}/v1` })));
}

const rss = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

const dir = await tempDir('loupe-bench-flood-');
await writeFile(path.join(dir, 'printer.cjs'), PRINTER);
// Ten at once is over the default of eight running per folder.
await mkdir(path.join(dir, '.loupe'), { recursive: true });
await writeFile(path.join(dir, '.loupe', 'config.json'), JSON.stringify({ limits: { max_processes: PROCESSES } }));
const home = await tempDir('loupe-bench-flood-home-');
const model = await scriptedModel();
const s = await startServe(dir, { LOUPE_HOME: home, OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: 'k', LOUPE_MODEL: 'bench' });
const browser = await chromium.launch({ ...CHROMIUM, headless: true });
// A failure must not leave the server (and its ten printers) behind.
process.on('exit', () => s.proc.exitCode === null && s.proc.kill('SIGTERM'));
const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
await page.addInitScript(() => {
  window.__longTasks = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__longTasks.push(e.duration);
  }).observe({ type: 'longtask', buffered: true });
});
await page.goto(s.url);
await page.getByTestId('file-tree').waitFor();
// Let the page settle (Monaco's preload is one long task of its own, whenever the browser idles).
await page.waitForTimeout(5000);
await page.getByTestId('agent-tab').click();
const before = rss(s.proc.pid);
await page.getByTestId('chat-input').fill('start the printers');
await page.getByTestId('chat-input').press('Enter');
// LOUPE_FLOOD_PANE=closed: the same flood with the Processes pane closed (what the log view costs).
const paneOpen = process.env.LOUPE_FLOOD_PANE !== 'closed';
await page.getByTestId('processes-tab').click();
await page.locator('[data-testid="process-row"]').nth(PROCESSES - 1).waitFor({ state: 'attached', timeout: 60_000 });
if (paneOpen) await page.locator('[data-testid="process-row"]').first().click();
else await page.getByTestId('terminal-tab').first().click();
await page.evaluate(() => (window.__longTasks = []));
let peak = before;
const t0 = Date.now();
const logsDir = path.join(dir, '.loupe', 'outputs', 'processes');
const expected = PROCESSES * SECONDS * 16 * 65536;
const logBytes = () => readdirSync(logsDir).reduce((sum, f) => sum + statSync(path.join(logsDir, f)).size, 0);
while (Date.now() - t0 < (SECONDS + 60) * 1000) {
  peak = Math.max(peak, rss(s.proc.pid));
  if (logBytes() >= expected) break;
  await new Promise((r) => setTimeout(r, 1000));
}
await page.waitForTimeout(2000);
const longTasks = await page.evaluate(() => window.__longTasks);
const logs = readdirSync(logsDir).map((f) => statSync(path.join(logsDir, f)).size);
report('processes_flood_longest_task', Math.max(0, ...longTasks), 'ms', { goal: 100, pane: paneOpen ? 'open' : 'closed', long_tasks: longTasks.length, longest: [...longTasks].sort((a, b) => b - a).slice(0, 5).map(Math.round), processes: PROCESSES, mb_per_s_each: BYTES_PER_S / 1048576, seconds: SECONDS });
report('processes_flood_host_rss_growth', peak - before, 'MB', { before_mb: Math.round(before), peak_mb: Math.round(peak) });
report('processes_flood_logs_on_disk', logs.reduce((a, b) => a + b, 0) / 1048576, 'MB', { logs: logs.length, expected_mb: Math.round(expected / 1048576), complete: logs.length === PROCESSES && logs.every((b) => b === expected / PROCESSES) });
await browser.close();
s.proc.kill('SIGTERM');
model.server.close();
await new Promise((r) => s.proc.once('exit', r));
await rm(dir, { recursive: true, force: true });
await rm(home, { recursive: true, force: true });
