// Shared helpers for benchmarks: each prints one JSON line per figure.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const CHROMIUM = {
  executablePath: process.env.LOUPE_CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
};

export function report(name, value, unit = 'ms', extra = {}) {
  console.log(JSON.stringify({ name, value: Math.round(value * 100) / 100, unit, ...extra }));
}

/**
 * A process's CPU time so far (user + system, all threads) from /proc, in ms: unlike the wall
 * clock it does not grow with the machine's load.
 */
export function cpuMsOf(pid) {
  const tick = 1000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim() || 100);
  return () => {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * tick;
  };
}

export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export async function tempDir(prefix) {
  return realpath(await mkdtemp(path.join(os.tmpdir(), prefix)));
}

/** n files spread over folders of 100, as a generated project would be. */
export async function generateTree(root, n, perDir = 100) {
  const jobs = [];
  for (let i = 0; i < n; i++) {
    const dir = path.join(root, `pkg${Math.floor(i / perDir)}`);
    if (i % perDir === 0) await mkdir(dir, { recursive: true });
    jobs.push(writeFile(path.join(dir, `file${i}.ts`), `export const v${i} = ${i};\n`));
    if (jobs.length >= 256) await Promise.all(jobs.splice(0));
  }
  await Promise.all(jobs);
}

export function startServe(folder, env = {}) {
  const t0 = performance.now();
  // The bin itself, as `loupe serve` runs it: its shebang carries the Node flags.
  const proc = spawn(path.join(ROOT, 'bin', 'loupe.mjs'), ['serve', folder, '--port', '0'], {
    // Shells in the benchmarked app get the bench's home, not the machine's rc files.
    env: { ...process.env, ...(env.LOUPE_HOME ? { HOME: env.LOUPE_HOME } : {}), ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/^(http:\/\/127\.0\.0\.1:(\d+)\/\?token=(\S+))$/m);
      if (m) resolve({ proc, url: m[1], port: Number(m[2]), token: m[3], urlMs: performance.now() - t0, t0 });
    });
    proc.on('exit', (code) => reject(new Error(`serve exited ${code}`)));
  });
}

export async function wsClient(port, token) {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${token}`);
  await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
  let next = 1;
  const pending = new Map();
  ws.on('message', (raw) => {
    const msg = JSON.parse(raw.toString());
    if (msg.t !== 'res') return;
    pending.get(msg.id)?.(msg);
    pending.delete(msg.id);
  });
  return {
    request(ch, p) {
      const id = next++;
      return new Promise((resolve) => (pending.set(id, resolve), ws.send(JSON.stringify({ t: 'req', id, ch, p }))));
    },
    close: () => ws.close(),
  };
}

/** Bare `rg` in `cwd` with these args (after --no-config), spawn to exit in ms, its output drained. */
export async function timeRg(cwd, args) {
  const { rgPath } = await import('@vscode/ripgrep');
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(rgPath, ['--no-config', ...args], { cwd, stdio: ['ignore', 'pipe', 'ignore'] });
    child.stdout.resume();
    child.on('error', reject);
    child.on('close', () => resolve(performance.now() - t0));
  });
}

/** p50 of `a` and of `b`, run alternately so load from anything else on the machine falls on both alike. */
export async function timePair(a, b, { warmup, runs }) {
  for (let i = 0; i < warmup; i++) {
    await a();
    await b();
  }
  const ta = [];
  const tb = [];
  for (let i = 0; i < runs; i++) {
    ta.push(await a());
    tb.push(await b());
  }
  return [percentile(ta, 50), percentile(tb, 50)];
}

/** A client of `loupe mcp` on `cwd`, without the machine's model settings; `extraEnv` on top (a Loupe home). */
export async function connectMcp(cwd, extraEnv = {}) {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const env = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !['LOUPE_MODEL', 'OPENAI_BASE_URL', 'OPENAI_API_KEY'].includes(k))), ...extraEnv };
  const client = new Client({ name: 'loupe-bench', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [path.join(ROOT, 'bin', 'loupe.mjs'), 'mcp', '--cwd', cwd], env, stderr: 'ignore' }));
  return client;
}

/**
 * A generated monorepo of `n` TypeScript files in packages of 100 (packages/pkgN/src/…), made
 * once and kept under the system temp folder between bench runs (generating 1,000,000 files
 * takes minutes). With `git`, it is a repository with one commit on `main` and a branch `other`
 * on which every second file differs (a checkout changes n/2 files).
 * Built in a side folder and renamed into place, so an interrupted run never leaves half a tree.
 */
export async function cachedMonorepo(n, { git = false } = {}) {
  const { existsSync } = await import('node:fs');
  const { rename } = await import('node:fs/promises');
  const { execFileSync } = await import('node:child_process');
  const cache = path.join(os.tmpdir(), 'loupe-bench-cache');
  const final = path.join(cache, `monorepo-${n}${git ? '-git' : ''}`);
  if (existsSync(final)) return final;
  await mkdir(cache, { recursive: true });
  const work = `${final}.partial-${process.pid}`;
  const started = performance.now();
  const jobs = [];
  const perPkg = 100;
  for (let i = 0; i < n; i++) {
    const pkg = Math.floor(i / perPkg);
    const dir = path.join(work, 'packages', `pkg${pkg}`, 'src', `m${Math.floor((i % perPkg) / 10)}`);
    if (i % 10 === 0) await mkdir(dir, { recursive: true });
    if (i % perPkg === 0) jobs.push(writeFile(path.join(work, 'packages', `pkg${pkg}`, 'package.json'), `{"name":"pkg${pkg}","version":"1.0.0"}\n`));
    jobs.push(writeFile(path.join(dir, `file${i}.ts`), `export const v${i} = ${i};\nexport function f${i}(x: number) { return x + ${i}; }\n`));
    if (jobs.length >= 512) await Promise.all(jobs.splice(0));
  }
  await Promise.all(jobs);
  await writeFile(path.join(work, 'package.json'), '{"name":"monorepo","private":true,"workspaces":["packages/*"]}\n');
  await writeFile(path.join(work, '.gitignore'), 'node_modules/\ndist/\n');
  if (git) {
    const g = (...args) => execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd: work, stdio: 'ignore', maxBuffer: 1 << 30 });
    g('init', '-q', '-b', 'main');
    g('add', '-A');
    g('commit', '-q', '-m', 'generated');
    g('checkout', '-q', '-b', 'other');
    for (let i = 0; i < n; i += 2) {
      const pkg = Math.floor(i / perPkg);
      const file = path.join(work, 'packages', `pkg${pkg}`, 'src', `m${Math.floor((i % perPkg) / 10)}`, `file${i}.ts`);
      jobs.push(writeFile(file, `export const v${i} = ${i + 1};\nexport function f${i}(x: number) { return x - ${i}; }\n`));
      if (jobs.length >= 512) await Promise.all(jobs.splice(0));
    }
    await Promise.all(jobs);
    g('commit', '-q', '-am', 'other');
    g('checkout', '-q', 'main');
  }
  await rename(work, final);
  console.error(`bench: generated ${n} files in ${final} (${Math.round(performance.now() - started)} ms)`);
  return final;
}

/**
 * A minimal OpenAI-compatible SSE server: `turns` replies of one read_file call (of `pathFor(n)`),
 * then an answer, over and over. Every request's system message is kept in `systems`.
 */
export async function readingModel(turns, pathFor) {
  let served = 0;
  const systems = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const first = JSON.parse(body || '{}').messages?.[0];
      if (first?.role === 'system') systems.push(first.content);
      const n = served++ % (turns + 1);
      const base = { id: `c${n}`, object: 'chat.completion.chunk', created: 0, model: 'bench' };
      const frame = (delta, finish = null) => `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
      const frames = [frame({ role: 'assistant', content: '' })];
      if (n < turns) {
        const args = JSON.stringify({ path: pathFor(n) });
        frames.push(frame({ tool_calls: [{ index: 0, id: `call_${n}`, type: 'function', function: { name: 'read_file', arguments: '' } }] }));
        for (let i = 0; i < args.length; i += 5) frames.push(frame({ tool_calls: [{ index: 0, function: { arguments: args.slice(i, i + 5) } }] }));
        frames.push(frame({}, 'tool_calls'));
      } else {
        frames.push(frame({ content: 'done' }), frame({}, 'stop'));
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`${frames.join('')}data: [DONE]\n\n`);
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { server, systems, baseURL: `http://127.0.0.1:${server.address().port}/v1` };
}

/** `loupe run --json` to its end; resolves its NDJSON events. */
export function runLoupeJson(cwd, baseURL, prompt, maxTurns, env = {}, extraArgs = []) {
  return new Promise((resolve, reject) => {
    const all = { ...process.env, LOUPE_MODEL: 'bench', OPENAI_BASE_URL: baseURL, OPENAI_API_KEY: 'k', LOUPE_MAX_TURNS: String(maxTurns), ...env };
    const child = spawn(process.execPath, [path.join(ROOT, 'bin/loupe.mjs'), 'run', '--json', '--cwd', cwd, ...extraArgs, prompt], { env: all, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out.trim().split('\n').map((l) => JSON.parse(l))) : reject(new Error(`loupe run exited ${code}`))));
  });
}

/**
 * What the loop adds per tool round trip, from the event times: (next turn_started −
 * turn_completed) − time inside the tools. Building the turn's system prompt falls inside it.
 */
export function loopOverheads(events) {
  const out = [];
  let completedAt = null;
  let toolMs = 0;
  for (const e of events) {
    if (e.type === 'turn_completed') [completedAt, toolMs] = [e.t, 0];
    else if (e.type === 'tool_call_finished') toolMs += e.duration_ms;
    else if (e.type === 'turn_started' && completedAt !== null) out.push(e.t - completedAt - toolMs);
  }
  return out;
}

/**
 * Bundles one source module (TypeScript) for a benchmark with rolldown, Vite's `?raw` imports
 * included (the sandbox's network bridge ships as one), into `dir/name`.
 */
export async function bundleSource(rel, dir, name, { external } = {}) {
  const { build } = await import('rolldown');
  const { readFileSync } = await import('node:fs');
  const raw = {
    name: 'raw-text',
    resolveId(id, importer) {
      if (id.endsWith('?raw')) return `${path.resolve(path.dirname(importer), id.slice(0, -4))}?raw`;
      return null;
    },
    load(id) {
      if (id.endsWith('?raw')) return `export default ${JSON.stringify(readFileSync(id.slice(0, -4), 'utf8'))};`;
      return null;
    },
  };
  const out = path.join(dir, name);
  await build({ input: path.join(ROOT, rel), platform: 'node', plugins: [raw], ...(external ? { external } : {}), output: { file: out, format: 'esm' }, logLevel: 'silent' });
  return out;
}

/**
 * A page of `browser` that records every main-thread long task in `window.__longTasks`, opened on
 * `url` once its file tree is drawn.
 */
export async function longTaskPage(browser, url, viewport = { width: 1400, height: 860 }) {
  const page = await browser.newPage({ viewport });
  await page.addInitScript(() => {
    /* global window -- runs in the browser */
    window.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longTasks.push(e.duration);
    }).observe({ type: 'longtask', buffered: true });
  });
  await page.goto(url);
  await page.getByTestId('file-tree').waitFor();
  return page;
}

/**
 * A model server that streams `tokensFor(request body)` one SSE delta per token, ten tokens per
 * 10 ms (~1,000 tokens/s, a fast local model); /v1/models lists one model, `bench`.
 */
export function streamingModel(tokensFor) {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', async () => {
      if (!req.url.includes('/chat/completions')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'bench', object: 'model' }] }));
        return;
      }
      const base = { id: 'c', object: 'chat.completion.chunk', created: 0, model: 'bench' };
      const frame = (delta, finish = null) => `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(frame({ role: 'assistant', content: '' }));
      const tokens = tokensFor(JSON.parse(body));
      for (let i = 0; i < tokens.length; i++) {
        res.write(frame({ content: tokens[i] }));
        if (i % 10 === 9) await new Promise((r) => setTimeout(r, 10));
      }
      res.end(`${frame({}, 'stop')}data: [DONE]\n\n`);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, baseURL: `http://127.0.0.1:${server.address().port}/v1` })));
}

/**
 * When the first element matching `selector` was painted, in the page: a MutationObserver sees
 * it enter the DOM, and the time is taken just after the next frame (a rAF, then a message: the
 * frame's paint happens between the two). Playwright's own waiting polls at growing intervals
 * (0, 20, 50, 100, 100, 500 ms), so its answer can trail the paint by up to half a second.
 * Call before `page.goto`.
 */
export async function watchFirstPaint(page, selector) {
  await page.addInitScript((sel) => {
    /* global document, MutationObserver, requestAnimationFrame -- runs in the browser */
    const seen = () => {
      if (!document.querySelector(sel)) return false;
      requestAnimationFrame(() => {
        const ch = new MessageChannel();
        ch.port1.onmessage = () => (window.__firstPaintAt = performance.now());
        ch.port2.postMessage(0);
      });
      return true;
    };
    const mo = new MutationObserver(() => seen() && mo.disconnect());
    mo.observe(document, { childList: true, subtree: true });
  }, selector);
}

/** ms from `t0` (this process's performance.now()) to the paint `watchFirstPaint` saw. */
export async function firstPaintSince(page, t0) {
  await page.waitForFunction(() => window.__firstPaintAt !== undefined, undefined, { polling: 'raf', timeout: 120_000 });
  const [origin, at] = await page.evaluate(() => [performance.timeOrigin, window.__firstPaintAt]);
  return origin + at - (performance.timeOrigin + t0);
}
