// What `loupe serve` loads before its first screen (docs/architecture.md, "Big folders"): the
// built bin, run as the shell runs it, with a module hook that writes down every module Node
// resolves. Until the URL is printed and the page's first requests (the tree's first listing
// among them) are answered, nothing loads the agent, the MCP SDK, the LSP protocol, tree-sitter,
// @parcel/watcher or node-pty; each loads when first used. Speed is measured in bench/, never
// here: this only keeps the capabilities off the start. Needs `npm run build` first.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import WebSocket from 'ws';
import { request } from './support/serveFixture';
import { tempDir } from './support/tmp';

const ROOT = path.resolve(__dirname, '..');
const BIN = path.join(ROOT, 'bin/loupe.mjs');

/** Heavy parts of a later use, as they show in resolved URLs (ESM) or in the process's mapped files (native modules). */
const LATER = [
  ['the agent', /\/out\/main\/chunks\/agent-[^/]+\.js$/],
  ['the MCP SDK', /@modelcontextprotocol\/sdk/],
  ['the MCP connection', /\/out\/main\/chunks\/connection-[^/]+\.js$/],
  ['the LSP protocol', /vscode-languageserver-protocol/],
  ['the LSP client', /\/out\/main\/chunks\/lspClient-[^/]+\.js$/],
  ['tree-sitter', /web-tree-sitter/],
  ['@parcel/watcher', /@parcel\/watcher/],
  ['the ACP SDK', /@agentclientprotocol\/sdk/],
  ['the YAML reader', /\/node_modules\/yaml\//],
  ['the TOML reader', /\/node_modules\/smol-toml\//],
] as const;

let dir = '';
let cleanup: (() => Promise<void>) | undefined;
let proc: ChildProcess | undefined;

afterAll(async () => {
  if (proc && proc.exitCode === null) {
    const exited = new Promise((r) => proc!.once('exit', r));
    proc.kill('SIGTERM');
    await exited;
  }
  await cleanup?.();
});

beforeAll(async () => {
  if (!existsSync(path.join(ROOT, 'out/main/cli.js'))) throw new Error('loupe is not built: run `npm run build` before this test.');
  ({ dir, cleanup } = await tempDir('loupe-startup-'));
});

const resolved = (log: string) => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []);
const mapped = (pid: number) => readFileSync(`/proc/${pid}/maps`, 'utf8');
/** Whether the host answered the request with a result (not an error). */
const answered = async (ws: WebSocket, ch: string, p: unknown = null): Promise<string | true> => {
  const r = await request(ws, ch, p);
  return r.t === 'res' && r.ok ? true : JSON.stringify(r);
};
const loadedLater = (urls: string[]) => LATER.filter(([, re]) => urls.some((u) => re.test(u))).map(([name]) => name);

it('answers the first screen without loading what only a later use needs, and loads each on its use', async () => {
  const project = path.join(dir, 'project');
  await mkdir(path.join(project, 'src'), { recursive: true });
  await writeFile(path.join(project, 'src/main.ts'), 'export const x: number = 1;\n');
  execFileSync('git', ['init', '-q'], { cwd: project });
  // The hook records each resolved URL; it runs on Node's loader thread, so it appends as it goes.
  const log = path.join(dir, 'resolved.log');
  const hook = path.join(dir, 'hook.mjs');
  await writeFile(hook, `import { appendFileSync } from 'node:fs';\nexport async function resolve(s, c, next) { const r = await next(s, c); appendFileSync(${JSON.stringify(log)}, r.url + '\\n'); return r; }\n`);
  const register = path.join(dir, 'register.mjs');
  await writeFile(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hook).href)});\n`);
  const home = path.join(dir, 'home');
  proc = spawn(process.execPath, ['--max-semi-space-size=4', '--import', pathToFileURL(register).href, BIN, 'serve', project, '--port', '0'], {
    env: { ...process.env, LOUPE_HOME: home, HOME: home, LOUPE_KEYCHAIN: 'off', LOUPE_LSP: 'on' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  proc.stderr!.on('data', (d) => (stderr += d));
  const url = await new Promise<URL>((resolve, reject) => {
    let out = '';
    proc!.stdout!.on('data', (d) => {
      out += d;
      const m = /^(http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)$/m.exec(out);
      if (m) resolve(new URL(m[1]));
    });
    proc!.once('exit', (code) => reject(new Error(`loupe serve exited with ${code}: ${stderr}`)));
  });
  const pid = proc.pid!;
  expect(resolved(log).some((u) => u.endsWith('/out/main/cli.js')), 'the hook saw the bin load the CLI').toBe(true);
  expect(loadedLater(resolved(log)), 'loaded before the URL').toEqual([]);

  const ws = new WebSocket(`ws://127.0.0.1:${url.port}/ws?token=${url.searchParams.get('token')}`, { origin: url.origin });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  try {
    // What the page asks first, the tree's first listing among them (the chat's questions load the agent: below).
    for (const [ch, p] of [['app.info'], ['workspace.current'], ['tree.list', { dir: '' }], ['lsp.status'], ['mcp.list'], ['processes.list'], ['terminal.list'], ['trust.get'], ['modlog.list', { limit: 200 }], ['tree.gitStatus']] as const) {
      expect(await answered(ws, ch, p ?? null), ch).toBe(true);
    }
    expect(loadedLater(resolved(log)), 'loaded for the first screen').toEqual([]);
    expect(mapped(pid)).not.toMatch(/pty\.node/);

    // Each on its first use: the agent with the settings, node-pty with the first terminal.
    expect(await answered(ws, 'settings.get')).toBe(true);
    expect(loadedLater(resolved(log))).toEqual(['the agent']);
    expect(await answered(ws, 'terminal.create', { cols: 80, rows: 24 })).toBe(true);
    expect(mapped(pid)).toMatch(/pty\.node/);
  } finally {
    ws.close();
  }
}, 120_000);
