// What an MCP client learns about Loupe's tools from the built `loupe mcp` over stdio: each
// tool's title, its hints (read-only, destructive, idempotent, open world) and an output schema
// that every structuredContent it returns — success or failure — validates against.
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolRegistry } from '../src/main/agent/tools/registry';
import { git, tempDir, writeTree } from './support/tmp';
import { testTrust, type TestTrust } from './support/trust';

const ROOT = path.resolve(__dirname, '..');
const BIN = path.join(ROOT, 'bin/loupe.mjs');
// No agent loop runs under `loupe mcp`, so the tools that start subagents are not offered there.
const registry = createToolRegistry().only((t) => !t.delegates);

let sandbox: { dir: string; cleanup: () => Promise<void> };
let user: TestTrust;
let client: Client;
let listed: Map<string, McpTool>;

beforeAll(async () => {
  if (!existsSync(path.join(ROOT, 'out/main/cli.js'))) throw new Error('loupe is not built: run `npm run build` before this test.');
  sandbox = await tempDir('loupe-mcp-facts-');
  const ws = sandbox.dir;
  await writeTree(ws, { 'src/app.ts': 'export const port = 3000;\nexport const host = "x";\n', 'README.md': '# p\n' });
  git(ws, 'init', '-q');
  await mkdir(path.join(ws, '.loupe'));
  await writeFile(
    path.join(ws, '.loupe/config.json'),
    JSON.stringify({ permissions: [{ kind: 'bash', pattern: 'echo *', action: 'allow' }, { kind: 'test', pattern: 'echo *', action: 'allow' }] }),
  );
  user = testTrust();
  await user.trust(ws);
  const env = Object.fromEntries(Object.entries(process.env).filter(([k, v]) => v !== undefined && !['LOUPE_MODEL', 'OPENAI_BASE_URL', 'OPENAI_API_KEY'].includes(k))) as Record<string, string>;
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--cwd', ws], env: { ...env, LOUPE_HOME: user.configDir }, stderr: 'pipe' });
  client = new Client({ name: 'loupe-facts', version: '1.0.0' });
  await client.connect(transport);
  listed = new Map((await client.listTools()).tools.map((t) => [t.name, t]));
});

afterAll(async () => {
  await client?.close().catch(() => undefined);
  user?.cleanup();
  await sandbox?.cleanup();
});

describe('loupe mcp publishes what each tool is', () => {
  it('lists every tool with its title, its four hints and an output schema', () => {
    expect([...listed.keys()]).toEqual(registry.list().map((t) => t.name));
    for (const name of ['agent', 'agent_wait', 'agent_stop']) expect(listed.has(name)).toBe(false);
    for (const tool of registry.list()) {
      const t = listed.get(tool.name)!;
      expect(t.title, tool.name).toBe(tool.title);
      expect(t.annotations, tool.name).toEqual({
        title: tool.title,
        readOnlyHint: tool.effect === 'read',
        destructiveHint: tool.effect !== 'read',
        idempotentHint: tool.idempotent,
        openWorldHint: tool.openWorld,
      });
      expect(t.outputSchema, tool.name).toMatchObject({ type: 'object', required: ['ok', 'output'], properties: { data: { type: 'object', properties: expect.any(Object) } } });
    }
    expect(listed.get('read_file')!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, openWorldHint: false });
    expect(listed.get('write_file')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    expect(listed.get('webfetch')!.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: true });
  });

  it('returns structuredContent that validates against the published schema, for every tool, ok or not', async () => {
    const validator = new AjvJsonSchemaValidator();
    const calls: [string, Record<string, unknown>][] = [
      ['read_file', { path: 'src/app.ts' }],
      ['grep', { pattern: 'port' }],
      ['code_search', { pattern: 'port' }],
      ['list_files', {}],
      ['edit_file', { path: 'src/app.ts', old_str: '3000', new_str: '8080' }],
      ['write_file', { path: 'src/new.ts', content: 'export {};\n' }],
      ['code_modify', { file_path: 'src/app.ts', operation: 'replace', line_range: [2, 2], new_content: 'export const host = "y";' }],
      ['modification_log', {}],
      ['bash', { command: 'echo hello', description: 'say hello' }],
      ['run_tests', { test_command: 'echo 1 passing' }],
      ['webfetch', { url: 'http://127.0.0.1:9/' }],
      ['read_file', { path: '../outside.txt' }],
      ['edit_file', { path: 'src/app.ts', old_str: 'not there', new_str: 'x' }],
    ];
    const seen = new Map<string, boolean>();
    for (const [name, args] of calls) {
      const res = await client.callTool({ name, arguments: args });
      const schema = listed.get(name)!.outputSchema as unknown as { properties: { data: { properties?: Record<string, unknown> } } };
      // Checked against the tool's own data shape, not an envelope that takes any object.
      expect(Object.keys(schema.properties.data.properties ?? {}).length, `${name} data schema`).toBeGreaterThan(1);
      const check = validator.getValidator(schema as never)(res.structuredContent);
      expect(check.valid, `${name} ${JSON.stringify(args)}: ${check.errorMessage}`).toBe(true);
      const content = res.structuredContent as { ok: boolean; data?: unknown };
      if (content.ok) expect(content.data, `${name} returns data`).toBeTypeOf('object');
      seen.set(name, seen.get(name) || content.ok);
    }
    // The writes and commands really ran: their data, not just the error envelope, was checked.
    expect(Object.fromEntries(seen)).toMatchObject({ edit_file: true, write_file: true, code_modify: true, bash: true, run_tests: true, modification_log: true });
    const modId = ((await client.callTool({ name: 'modification_log', arguments: {} })).structuredContent as { data: { modifications: { modification_id: string }[] } }).data.modifications[0].modification_id;
    const rollback = await client.callTool({ name: 'code_rollback', arguments: { modification_id: modId } });
    expect(validator.getValidator(listed.get('code_rollback')!.outputSchema as never)(rollback.structuredContent).valid).toBe(true);
    expect(rollback.structuredContent).toMatchObject({ ok: true, data: { status: 'rolled_back' } });
  });
});
