// The tools issue's tools through the real `node bin/loupe.mjs mcp`, with the official client:
// rules from .loupe/config.json, and an ask that becomes an MCP elicitation when the client
// supports it (denied with the rule to add when it does not). Needs `npm run build` first.
import { existsSync } from 'node:fs';
import { access, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tempDir, writeTree } from '../support/tmp';
import { testTrust, type TestTrust } from '../support/trust';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'bin/loupe.mjs');

let ws: string;
let cleanup: () => Promise<void>;
const clients: Client[] = [];
let asked: string[];
let user: TestTrust;

async function connect(answer?: (message: string) => ElicitResult): Promise<Client> {
  const env = { ...Object.fromEntries(Object.entries(process.env).filter(([k, v]) => v !== undefined && !k.startsWith('OPENAI_') && k !== 'LOUPE_MODEL')), LOUPE_HOME: user.configDir };
  // --trust: the folder's rules are the subject here, so they apply (and the trust is kept).
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--cwd', ws, '--trust'], env: env as Record<string, string>, stderr: 'pipe' });
  const client = new Client({ name: 'perm-test', version: '1.0.0' }, answer ? { capabilities: { elicitation: {} } } : {});
  if (answer) {
    client.setRequestHandler(ElicitRequestSchema, (req) => {
      asked.push(req.params.message);
      return answer(req.params.message);
    });
  }
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function bash(client: Client, command: string) {
  const r = await client.callTool({ name: 'bash', arguments: { command, description: 'test' } });
  return { isError: r.isError === true, text: (r.content as { text: string }[])[0].text };
}

const exists = (rel: string) => access(path.join(ws, rel)).then(() => true, () => false);

beforeAll(() => {
  if (!existsSync(path.join(ROOT, 'out/main/cli.js'))) throw new Error('loupe is not built: run `npm run build` before this test.');
});
beforeEach(async () => {
  ({ dir: ws, cleanup } = await tempDir('loupe-mcp-perm-'));
  asked = [];
  // The questions asked over stdio are the subject: without a sandbox (sandboxMcp covers it on).
  user = testTrust({ sandbox: 'off' });
  await writeTree(ws, { 'src/a.ts': 'export const needle = 1;\n' });
  await mkdir(path.join(ws, '.loupe'));
  await writeFile(
    path.join(ws, '.loupe/config.json'),
    JSON.stringify({ permissions: [{ kind: 'bash', pattern: 'echo *', action: 'allow' }, { kind: 'bash', pattern: 'rm *', action: 'deny' }] }),
  );
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
  user.cleanup();
  await cleanup();
});

describe('loupe mcp permissions over stdio', () => {
  it('runs what config.json allows and finds files with grep', async () => {
    const c = await connect();
    expect(await bash(c, 'echo from-stdio')).toEqual({ isError: false, text: 'from-stdio\n\nExit code: 0' });
    const g = await c.callTool({ name: 'grep', arguments: { pattern: 'needle', output_mode: 'files_with_matches' } });
    expect((g.content as { text: string }[])[0].text).toContain('src/a.ts');
  });

  it('without elicitation an ask is denied with the rule to add, and nothing runs', async () => {
    const c = await connect();
    const r = await bash(c, 'touch made.txt');
    expect(r.isError).toBe(true);
    expect(r.text).toContain('PERMISSION_DENIED');
    expect(r.text).toContain('{"kind":"bash","pattern":"touch *","action":"allow"}');
    expect(await exists('made.txt')).toBe(false);
  });

  it('with elicitation the client is asked; allow once runs it and saves nothing', async () => {
    const c = await connect(() => ({ action: 'accept', content: { decision: 'allow_once' } }));
    expect((await bash(c, 'touch once.txt')).isError).toBe(false);
    expect(await exists('once.txt')).toBe(true);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('touch once.txt');
    expect(JSON.parse(await readFile(path.join(ws, '.loupe/config.json'), 'utf8')).permissions).toHaveLength(2);
  });

  it('allow always writes the rule into .loupe/config.json and stops asking', async () => {
    const c = await connect(() => ({ action: 'accept', content: { decision: 'allow_always' } }));
    expect((await bash(c, 'touch one.txt')).isError).toBe(false);
    expect((await bash(c, 'touch two.txt')).isError).toBe(false);
    expect(asked).toHaveLength(1);
    const rules = JSON.parse(await readFile(path.join(ws, '.loupe/config.json'), 'utf8')).permissions;
    expect(rules).toContainEqual({ kind: 'bash', pattern: 'touch *', action: 'allow' });
  });

  it('a denial carries the user message to the model; a deny rule never reaches the user', async () => {
    const c = await connect(() => ({ action: 'accept', content: { decision: 'deny', message: 'use the Makefile' } }));
    const r = await bash(c, 'touch no.txt');
    expect(r.isError).toBe(true);
    expect(r.text).toContain('use the Makefile');
    expect(await exists('no.txt')).toBe(false);
    const denied = await bash(c, 'rm -rf src');
    expect(denied.isError).toBe(true);
    expect(asked).toHaveLength(1);
    expect(await exists('src/a.ts')).toBe(true);
  });
});
