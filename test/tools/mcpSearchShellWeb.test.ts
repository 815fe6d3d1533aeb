// The search, shell and web tools through the MCP server `loupe mcp` runs, driven by the
// official MCP client; permissions come from the workspace's .loupe/config.json.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testServices } from '../support/services';
import { createToolRegistry } from '../../src/main/agent/tools/registry';
import { createMcpServer } from '../../src/main/cli/mcp';
import { tempDir, writeTree } from '../support/tmp';
import { testTrust, type TestTrust } from '../support/trust';

let root: string;
let cleanup: () => Promise<void>;
let client: Client;
let user: TestTrust;
const previousHome = process.env.LOUPE_HOME;

beforeEach(async () => {
  ({ dir: root, cleanup } = await tempDir('loupe-mcp-tools-'));
  await writeTree(root, { 'src/a.ts': 'export const needle = 1;\n', 'src/b.ts': 'needle();\n' });
  await mkdir(path.join(root, '.loupe'));
  await writeFile(path.join(root, '.loupe', 'config.json'), JSON.stringify({ permissions: [{ kind: 'bash', pattern: 'echo *', action: 'allow' }] }));
  // The user's settings in a temp folder, and the folder trusted with its rules (as `loupe trust` does).
  // bash's questions are the subject here: without a sandbox (sandboxMcp covers it on).
  user = testTrust({ sandbox: 'off' });
  process.env.LOUPE_HOME = user.configDir;
  await user.trust(root);
  const server = createMcpServer(createToolRegistry(), (asker) => testServices(root, { user: user.store, asker }), { corrector: null });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(b);
});
afterEach(async () => {
  await client.close();
  if (previousHome === undefined) delete process.env.LOUPE_HOME;
  else process.env.LOUPE_HOME = previousHome;
  user.cleanup();
  await cleanup();
});

const text = (r: Awaited<ReturnType<Client['callTool']>>) => (r.content as { type: string; text: string }[])[0].text;

describe('loupe mcp: search, shell and web tools', () => {
  it('lists them with their schemas', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['grep', 'code_search', 'list_files', 'bash', 'webfetch']));
    const grep = tools.find((t) => t.name === 'grep')!;
    expect(Object.keys(grep.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['pattern', 'output_mode', '-A', '-B', '-C', 'head_limit', 'offset']));
  });

  it('grep and code_search answer with text and structured data', async () => {
    const g = await client.callTool({ name: 'grep', arguments: { pattern: 'needle', output_mode: 'count' } });
    expect(text(g)).toBe('src/a.ts: 1\nsrc/b.ts: 1\nTotal: 2 matching lines in 2 files.');
    const c = await client.callTool({ name: 'code_search', arguments: { pattern: 'needle' } });
    expect((c.structuredContent as { data: { matches: { path: string }[] } }).data.matches[0].path).toBe('src/a.ts');
  });

  it('bash follows config.json: allowed runs, anything else is denied with the rule to add', async () => {
    const ok = await client.callTool({ name: 'bash', arguments: { command: 'echo via mcp', description: 'echo' } });
    expect(ok.isError).toBeFalsy();
    expect(text(ok)).toBe('via mcp\n\nExit code: 0');
    const no = await client.callTool({ name: 'bash', arguments: { command: 'echo ok && touch x', description: 'touch' } });
    expect(no.isError).toBe(true);
    expect(text(no)).toContain('{"kind":"bash","pattern":"touch *","action":"allow"}');
  });

  it('webfetch refuses what it must before any I/O', async () => {
    const r = await client.callTool({ name: 'webfetch', arguments: { url: 'file:///etc/passwd' } });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('INVALID_ARGUMENT');
  });
});
