// The sandbox's promises through the real `node bin/loupe.mjs mcp`, with `"sandbox": "auto"` and
// broad allow rules: an allowed command still cannot write outside, read ~/.ssh, rewrite
// .git/hooks or .loupe/config.json, reach a 127.0.0.1 server without a network rule, or leave a
// process behind; each with its positive control: the same command retried with `sandbox: false`,
// which the person approves (an MCP elicitation answered "allow once"), does what the sandbox
// stopped. Needs `npm run build` first. Skips, saying why, only where no sandbox works.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { probeSandbox } from '../../src/main/services/sandbox/probe';
import { git, tempDir } from '../support/tmp';
import { testTrust, type TestTrust } from '../support/trust';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'bin/loupe.mjs');
const availability = await probeSandbox();
if (!availability.available) console.warn(`sandbox e2e skipped: ${availability.reason} (${availability.install ?? ''})`);
const d = availability.available ? describe : describe.skip;

let ws: { dir: string; cleanup: () => Promise<void> };
let outside: string;
let home: string;
let user: TestTrust;
let client: Client | null = null;
let asked: string[];
let server: http.Server;
let port: number;
let other: http.Server;
let otherPort: number;

beforeAll(async () => {
  if (!existsSync(path.join(ROOT, 'out/main/cli.js'))) throw new Error('loupe is not built: run `npm run build` before this test.');
  server = http.createServer((_q, s) => s.end('reached'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
  other = http.createServer((_q, s) => s.end('the other service'));
  await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
  otherPort = (other.address() as AddressInfo).port;
});
afterAll(async () => {
  for (const s of [server, other]) await new Promise<void>((r) => s.close(() => r()));
});

beforeEach(async () => {
  ws = await tempDir('loupe-sbx-mcp-');
  outside = realpathSync(mkdtempSync('/var/tmp/loupe-sbx-mcp-out-'));
  user = testTrust();
  git(ws.dir, 'init', '-q');
  home = path.join(ws.dir, 'home');
  mkdirSync(path.join(home, '.ssh'), { recursive: true });
  writeFileSync(path.join(home, '.ssh', 'id_ed25519'), 'PRIVATE KEY\n');
  mkdirSync(path.join(ws.dir, '.loupe'));
  writeFileSync(
    path.join(ws.dir, '.loupe', 'config.json'),
    JSON.stringify({ sandbox: 'auto', permissions: [{ kind: 'bash', pattern: '*', action: 'allow' }, { kind: 'network', pattern: 'curl *network-ok*', action: 'allow', hosts: ['127.0.0.1'] }, { kind: 'network', pattern: 'curl *db-port*', action: 'allow', hosts: [`127.0.0.1:${port}`] }] }),
  );
  asked = [];
  const env = { ...Object.fromEntries(Object.entries(process.env).filter(([k, v]) => v !== undefined && !k.startsWith('OPENAI_') && k !== 'LOUPE_MODEL')), LOUPE_HOME: user.configDir, HOME: home };
  // A client that can ask the person, who answers "allow once": nothing in the sandbox should ask.
  client = new Client({ name: 'sandbox-e2e', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, (req) => {
    asked.push(req.params.message);
    return { action: 'accept', content: { decision: 'allow_once' } };
  });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--cwd', ws.dir, '--trust'], env: env as Record<string, string>, stderr: 'pipe' }));
});
afterEach(async () => {
  await client?.close();
  client = null;
  spawnSync('pkill', ['-f', '^sleep 1437$']);
  await ws.cleanup();
  rmSync(outside, { recursive: true, force: true });
  user.cleanup();
});

interface Out {
  ok: boolean;
  output: string;
  data: { sandboxed: boolean; blocked: string | null };
  error?: { code: string; message: string };
}
async function bash(command: string, extra: Record<string, unknown> = {}): Promise<Out> {
  const r = await client!.callTool({ name: 'bash', arguments: { command, description: 'test', ...extra } });
  return r.structuredContent as unknown as Out;
}
/** The positive control: the same command retried outside the sandbox, which the person allows. */
async function control(command: string): Promise<Out> {
  expect(asked, 'a sandboxed command asked nobody').toEqual([]);
  const r = await bash(command, { sandbox: false });
  expect(asked).toEqual([expect.stringContaining('OUTSIDE the sandbox')]);
  expect(r.data?.sandboxed, JSON.stringify(r)).toBe(false);
  expect(r.error?.code, JSON.stringify(r)).toBeUndefined();
  return r;
}

const ESCAPE = 'env -i setsid nohup sleep 1437 >/dev/null 2>&1 &';

d('the sandbox through loupe mcp', () => {
  it('an allowed write outside is blocked and named; inside works', async () => {
    const r = await bash(`echo x > ${outside}/x`);
    expect(r.error?.code).toBe('SANDBOX_BLOCKED');
    expect(r.error?.message).toContain(`blocked by the sandbox: write to ${outside}/x`);
    expect(r.data.sandboxed).toBe(true);
    expect(existsSync(path.join(outside, 'x'))).toBe(false);
    expect((await bash('echo x > in.txt')).ok).toBe(true);
    expect(readFileSync(path.join(ws.dir, 'in.txt'), 'utf8')).toBe('x\n');
    await control(`echo x > ${outside}/x`);
    expect(readFileSync(path.join(outside, 'x'), 'utf8')).toBe('x\n');
  });

  it('writes outside by any spelling (cp, tee, dd, sh -c, node, python, a symlink, cd) stay inside', async () => {
    writeFileSync(path.join(ws.dir, 'src.txt'), 'payload\n');
    const spellings = [
      (t: string) => `cp src.txt ${t}`,
      (t: string) => `cat src.txt | tee ${t}`,
      (t: string) => `dd if=src.txt of=${t} status=none`,
      (t: string) => `sh -c 'echo x > ${t}'`,
      (t: string) => `node -e "require('fs').writeFileSync('${t}', 'x')"`,
      (t: string) => `python3 -c "open('${t}', 'w').write('x')"`,
      (t: string) => `ln -s ${path.dirname(t)} out && echo x > out/${path.basename(t)}`,
      (t: string) => `cd ${path.dirname(t)} && touch ${path.basename(t)}`,
    ];
    for (const [i, spell] of spellings.entries()) {
      const target = path.join(outside, `w${i}`);
      const r = await bash(spell(target));
      expect(r.data.sandboxed, spell(target)).toBe(true);
      expect(existsSync(target), `${spell(target)}: ${r.output}`).toBe(false);
      spawnSync('rm', ['-f', path.join(ws.dir, 'out')]);
    }
    expect(asked).toEqual([]);
  });

  it('~/.ssh is unreadable, other files in HOME are', async () => {
    writeFileSync(path.join(home, 'notes.txt'), 'plain\n');
    expect((await bash(`cat ${home}/.ssh/id_ed25519`)).output).not.toContain('PRIVATE KEY');
    expect((await bash(`cat ${home}/notes.txt`)).output).toContain('plain');
    expect((await control(`cat ${home}/.ssh/id_ed25519`)).output).toContain('PRIVATE KEY');
  });

  it('.git/hooks and .loupe/config.json are read-only; git commit works', async () => {
    for (const rel of ['.git/hooks/pre-commit', '.loupe/config.json']) {
      const r = await bash(`echo x > ${rel}`);
      expect(r.error?.code, rel).toBe('SANDBOX_BLOCKED');
    }
    expect((await bash('echo a > a && git add a && git -c user.email=a@b -c user.name=a commit -qm a')).ok).toBe(true);
    await control('echo x > .git/hooks/pre-commit');
    expect(readFileSync(path.join(ws.dir, '.git/hooks/pre-commit'), 'utf8')).toBe('x\n');
  });

  it('127.0.0.1:PORT is out of reach without a network rule, reached with one', async () => {
    const r = await bash(`curl -sS --max-time 5 http://127.0.0.1:${port}/`);
    expect(r.error?.code).toBe('SANDBOX_BLOCKED');
    expect(r.error?.message).toContain(`network access to 127.0.0.1:${port}`);
    // NO_PROXY keeps 127.0.0.1 inside the sandbox's own namespace; --noproxy '' asks the host's
    // through the proxy, which lets it through only because the rule names 127.0.0.1.
    const ok = await bash(`curl -sS --noproxy '' --max-time 5 http://127.0.0.1:${port}/network-ok`);
    expect(ok.output).toContain('reached');
    expect((await control(`curl -sS --max-time 5 http://127.0.0.1:${port}/`)).output).toContain('reached');
  });

  it("a port of this machine a rule names with its port is reached directly; another is reported with the rule that would allow it", async () => {
    // No proxy involved: NO_PROXY keeps 127.0.0.1 direct, and the rule forwards the port into the sandbox's loopback.
    const ok = await bash(`curl -sS --max-time 5 http://127.0.0.1:${port}/db-port`);
    expect(ok.error, JSON.stringify(ok)).toBeUndefined();
    expect(ok.output).toContain('reached');
    expect(ok.data).toMatchObject({ sandboxed: true, network: { reached: [`127.0.0.1:${port}`], refused: [] } });
    const no = await bash(`curl -sS --max-time 5 http://127.0.0.1:${otherPort}/db-port`);
    expect(no.output).not.toContain('the other service');
    expect(no.error?.code).toBe('SANDBOX_BLOCKED');
    expect(no.error?.message).toContain(`network access to 127.0.0.1:${otherPort}`);
    expect(no.output).toContain(`"hosts":["127.0.0.1:${otherPort}"]`);
    expect(no.output).toContain(`Network: refused 127.0.0.1:${otherPort}`);
    expect(asked).toEqual([]);
  });

  it('leaves no process behind', async () => {
    // `env -i` drops the environment marker the reaper finds processes by, and setsid leaves the
    // process group. The control is in the command itself: the escapee was running when it ended.
    const r = await bash(`${ESCAPE}\nsleep 0.5; pgrep -f '^sleep 1437$' >/dev/null && echo running`);
    expect(r.output).toContain('running');
    expect(spawnSync('pgrep', ['-f', '^sleep 1437$'], { encoding: 'utf8' }).stdout.trim()).toBe('');
  });
});
