// The acceptance path of background processes, through the agent loop with the scripted model
// and the OS sandbox on: it starts a real vite dev server (`npm run dev`, vite from Loupe's own
// dev dependencies, nothing downloaded) and a plain node HTTP server, each with wait_for a port;
// the pages are fetched from this machine by webfetch and by a plain HTTP client; an edit of
// index.html shows as vite's reload in process_output; process_kill ends both; nothing is left.
import { readFileSync, readdirSync, readlinkSync, symlinkSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LlmClient } from '../../src/main/agent/llm/client';
import { Agent } from '../../src/main/agent/loop/agentLoop';
import type { AgentEvent } from '../../src/main/agent/loop/events';
import { createToolContext } from '../../src/main/agent/tools/context';
import { createToolRegistry } from '../../src/main/agent/tools/registry';
import { probeSandbox } from '../../src/main/services/sandbox/probe';
import { UserSettings } from '../../src/main/services/settings/userSettings';
import type { WorkspaceServices } from '../../src/main/workspace/compose';
import { call } from '../agent/agentHarness';
import { startScriptedLlm, type ScriptedLlm } from '../support/scriptedLlm';
import { testServices } from '../support/services';
import { tempDir, writeTree } from '../support/tmp';
import { writeUserSettings } from '../support/userSettings';

const sandbox = await probeSandbox();
const d = sandbox.available && sandbox.kind === 'bwrap' ? describe : describe.skip;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

function get(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: '/' }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve(body));
    }).on('error', reject);
  });
}

/** Live processes whose working folder is inside `dir` (the table the kernel keeps). */
function processesIn(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (/\) Z /.test(stat)) continue;
      const cwd = readlinkSync(`/proc/${name}/cwd`);
      if (cwd !== dir && !cwd.startsWith(dir + '/')) continue;
      // What it is, so a failure says which process was left and why the reaper missed it.
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ').trim();
      let marked = '?';
      try {
        marked = readFileSync(`/proc/${name}/environ`, 'latin1').includes('LOUPE_COMMAND') ? 'marked' : 'unmarked';
      } catch {}
      out.push(`${name} state ${f[0]} ppid ${f[1]} ${marked}: ${cmd}`);
    } catch {}
  }
  return out;
}

let t: { dir: string; cleanup: () => Promise<void> };
let llm: ScriptedLlm;
let services: WorkspaceServices;
let root: string;

beforeAll(async () => {
  t = await tempDir('loupe-devserver-');
  root = path.join(t.dir, 'app');
  const userDir = path.join(t.dir, 'user');
  // webfetch of this machine's own pages needs a rule: the user's, which applies without trust.
  writeUserSettings(userDir, { permissions: [{ kind: 'webfetch', pattern: 'http://127.0.0.1*', action: 'allow' }] });
  await writeTree(root, {
    'package.json': JSON.stringify({ name: 'app', private: true, type: 'module', scripts: { dev: 'vite' } }),
    'vite.config.js': 'export default { cacheDir: ".vite-cache", clearScreen: false, server: { port: Number(process.env.APP_PORT), strictPort: true } };\n',
    'index.html': '<!doctype html><html><body><h1>Hello from vite</h1><script type="module" src="/main.js"></script></body></html>\n',
    'main.js': 'document.title = "app";\n',
    'server.cjs': 'require("http").createServer((q, s) => s.end("plain node here")).listen(Number(process.argv[2]), "127.0.0.1", () => console.log("serving"));\n',
  });
  await mkdir(path.join(root, '.loupe'), { recursive: true });
  // vite comes from Loupe's own dev dependencies (read-only inside the sandbox); the project's
  // node_modules is its own, where vite writes its temporary config.
  await mkdir(path.join(root, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(path.resolve('node_modules', 'vite'), path.join(root, 'node_modules', 'vite'));
  symlinkSync('../vite/bin/vite.js', path.join(root, 'node_modules', '.bin', 'vite'));
  llm = await startScriptedLlm();
  services = testServices(root, { user: new UserSettings(userDir), asker: { kind: 'deny' } });
});

afterAll(async () => {
  await services?.dispose();
  await llm?.close();
  await t?.cleanup();
});

d('a dev server in the sandbox, started, reached, reloaded and stopped by the agent', () => {
  it('vite and a node server: wait_for port, fetched from the host, reload in process_output, killed, nothing left', { timeout: 180_000 }, async () => {
    const vitePort = await freePort();
    const nodePort = await freePort();
    const fromHost: string[] = [];
    const hostPort = { vite: vitePort, node: nodePort };
    const steps = () => [
      [call('c1', 'bash', { command: `APP_PORT=${vitePort} npm run dev`, description: 'Start vite', run_in_background: true, wait_for: { port: vitePort, timeout: 90_000 } })],
      [call('c2', 'bash', { command: `node server.cjs ${nodePort}`, description: 'Start a node server', run_in_background: true, wait_for: { port: nodePort, timeout: 30_000 } })],
      // Where each is reachable on this machine, as the start's result says (the same port unless it was taken here).
      [call('c3', 'webfetch', { url: `http://127.0.0.1:${hostPort.vite}/`, format: 'html' })],
      [call('c4', 'webfetch', { url: `http://127.0.0.1:${hostPort.node}/`, format: 'text' })],
      [call('c5', 'read_file', { path: 'index.html' })],
      [call('c6', 'edit_file', { path: 'index.html', old_str: 'Hello from vite', new_str: 'Hello again from vite' })],
      [call('c7', 'process_wait', { id: 'proc-1', wait_for: { regex: 'page reload' }, timeout: 30_000 })],
      [call('c8', 'process_output', { id: 'proc-1', grep: 'page reload' })],
      [call('c9', 'process_kill', { id: 'proc-1' }), call('c10', 'process_kill', { id: 'proc-2' })],
    ];
    llm.respondWith(async (req) => {
      const done = (req.body.messages ?? []).filter((m) => m.role === 'tool').length;
      // While both run, a plain HTTP client on this machine reaches them too.
      const reachable = (id: string) => Number(/reachable from this machine at http:\/\/127\.0\.0\.1:(\d+)\//.exec(String(req.body.messages?.find((m) => m.tool_call_id === id)?.content))?.[1]);
      if (done === 2) Object.assign(hostPort, { vite: reachable('c1') || vitePort, node: reachable('c2') || nodePort });
      if (done === 4) fromHost.push(...(await Promise.all([get(hostPort.vite), get(hostPort.node)].map((p) => p.catch((e: Error) => `failed: ${e.message}`)))));
      const plan = steps();
      // The next step is the one after all calls answered so far.
      let next = 0;
      for (let answered = 0; next < plan.length && answered < done; next++) answered += plan[next]!.length;
      return next < plan.length ? { toolCalls: plan[next]! } : { content: 'Done.' };
    });
    const { signal: _s, ...toolContext } = createToolContext(services, { corrector: null });
    const agent = new Agent({ llm: new LlmClient({ baseURL: llm.baseURL, apiKey: 'k', model: 'scripted' }), registry: createToolRegistry(), toolContext, systemPrompt: 'test' });
    const events: AgentEvent[] = [];
    agent.events.on((e) => events.push(e));
    const r = await agent.run('start the app');
    expect(r.status).toBe('done');
    const results = Object.fromEntries(events.flatMap((e) => (e.type === 'tool_call_finished' ? [[e.call_id, e]] : [])));
    const ok = (id: string) => {
      expect(results[id], `${id} did not run`).toBeDefined();
      expect(results[id]!.ok, `${id}: ${results[id]!.output}`).toBe(true);
      return results[id]!;
    };
    expect(ok('c1').data).toMatchObject({ process_id: 'proc-1', status: 'ready', sandboxed: true, ports: expect.arrayContaining([vitePort]) });
    expect(ok('c2').data).toMatchObject({ process_id: 'proc-2', status: 'ready', sandboxed: true, ports: [nodePort] });
    expect(ok('c3').output).toContain('Hello from vite');
    expect(ok('c4').output).toContain('plain node here');
    expect(fromHost[0]).toContain('Hello from vite');
    expect(fromHost[1]).toBe('plain node here');
    ok('c6');
    expect(ok('c7').data).toMatchObject({ wait: { satisfied: true } });
    expect(ok('c8').output).toMatch(/page reload.*index\.html/);
    expect(ok('c9').data).toMatchObject({ status: 'killed' });
    expect(ok('c10').data).toMatchObject({ status: 'killed' });
    expect(processesIn(root)).toEqual([]);
    await expect(get(hostPort.vite)).rejects.toThrow();
  });
});
