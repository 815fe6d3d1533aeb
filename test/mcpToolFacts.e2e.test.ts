// What an MCP client learns about Loupe's tools from the built `loupe mcp` over stdio: each
// tool's title, its hints (read-only, destructive, idempotent, open world) and an output schema
// that every structuredContent it returns — success or failure, in the foreground or the
// background — validates against. The official client validates each result itself and refuses
// the whole call (-32602) when it does not.
import { existsSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
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
let stderr = '';

beforeAll(async () => {
  if (!existsSync(path.join(ROOT, 'out/main/cli.js'))) throw new Error('loupe is not built: run `npm run build` before this test.');
  sandbox = await tempDir('loupe-mcp-facts-');
  const ws = sandbox.dir;
  await writeTree(ws, {
    'src/app.ts': 'export const port = 3000;\nexport const host = "x";\n',
    'README.md': '# p\n',
    '.claude/skills/release/SKILL.md': '---\nname: release\ndescription: Cut a release.\nallowed-tools: Bash(git tag:*)\n---\nTag it.\n',
  });
  git(ws, 'init', '-q');
  await mkdir(path.join(ws, '.loupe'));
  await writeFile(
    path.join(ws, '.loupe/config.json'),
    JSON.stringify({
      permissions: [
        { kind: 'bash', pattern: 'echo *', action: 'allow' },
        { kind: 'bash', pattern: 'sleep *', action: 'allow' },
        { kind: 'bash', pattern: `${process.execPath} *`, action: 'allow' },
        { kind: 'test', pattern: 'echo *', action: 'allow' },
      ],
    }),
  );
  user = testTrust();
  await user.trust(ws);
  const env = Object.fromEntries(Object.entries(process.env).filter(([k, v]) => v !== undefined && !['LOUPE_MODEL', 'OPENAI_BASE_URL', 'OPENAI_API_KEY'].includes(k))) as Record<string, string>;
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--cwd', ws], env: { ...env, LOUPE_HOME: user.configDir }, stderr: 'pipe' });
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  client = new Client({ name: 'loupe-facts', version: '1.0.0' });
  await client.connect(transport);
  listed = new Map((await client.listTools()).tools.map((t) => [t.name, t]));
});

afterAll(async () => {
  await client?.close().catch(() => undefined);
  user?.cleanup();
  await sandbox?.cleanup();
});

/** The shapes a tool's data may take: its data schema, or each branch of it. */
function dataShapes(tool: McpTool): { type?: string; properties?: Record<string, unknown> }[] {
  const data = (tool.outputSchema as unknown as { properties: { data: { anyOf?: object[] } } }).properties.data;
  return (data.anyOf ?? [data]) as { type?: string; properties?: Record<string, unknown> }[];
}

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
      expect(t.outputSchema, tool.name).toMatchObject({ type: 'object', required: ['ok', 'output'], properties: { data: expect.any(Object) } });
      // Its own data shape (one object, or one per kind of result), not an envelope that takes any object.
      for (const branch of dataShapes(t)) expect(branch, tool.name).toMatchObject({ type: 'object', properties: expect.any(Object) });
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
      const schema = listed.get(name)!.outputSchema;
      // Checked against the tool's own data shape, not an envelope that takes any object.
      for (const branch of dataShapes(listed.get(name)!)) expect(Object.keys(branch.properties ?? {}).length, `${name} data schema`).toBeGreaterThan(1);
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

  it('drives every tool through the SDK client, the background and each wait_for included: the client accepts every result', async () => {
    const called = new Map<string, Set<string>>();
    /** client.callTool validates structuredContent against the listed outputSchema and throws when it does not match. */
    const run = async (name: string, args: Record<string, unknown>) => {
      const res = await client.callTool({ name, arguments: args });
      const content = res.structuredContent as { ok: boolean; data?: Record<string, unknown>; error?: { code: string } };
      called.set(name, (called.get(name) ?? new Set()).add(content.ok ? 'ok' : content.error!.code));
      if (content.ok) expect(content.data, `${name} returns data`).toBeTypeOf('object');
      return content;
    };
    const node = JSON.stringify(process.execPath);
    await run('read_file', { path: 'README.md' });
    await run('bash', { command: 'echo hi', description: 'foreground' });
    expect(await run('bash', { command: 'sleep 20', description: 'too long', timeout: 300 })).toMatchObject({ ok: false, error: { code: 'TIMEOUT' }, data: { timed_out: true } });
    const bg = await run('bash', { command: 'echo up; sleep 30', description: 'background', run_in_background: true });
    expect(bg).toMatchObject({ ok: true, data: { process_id: expect.stringMatching(/^proc-/), status: expect.any(String) } });
    const id = bg.data!.process_id as string;
    expect(await run('bash', { command: 'echo ready; sleep 30', description: 'regex', run_in_background: true, wait_for: { regex: '^ready$' } })).toMatchObject({ ok: true, data: { status: 'ready', wait: { satisfied: true } } });
    expect(await run('bash', { command: 'sleep 30', description: 'regex late', run_in_background: true, wait_for: { regex: 'never', timeout: 300 } })).toMatchObject({ ok: false, error: { code: 'TIMEOUT' }, data: { wait: { timed_out: true } } });
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    expect(await run('bash', { command: `${node} -e "require('http').createServer().listen(${port}, '127.0.0.1')"`, description: 'port', run_in_background: true, wait_for: { port } })).toMatchObject({ ok: true, data: { wait: { satisfied: true, port } } });
    expect(await run('bash', { command: 'sleep 30', description: 'port late', run_in_background: true, wait_for: { port: 1, timeout: 300 } })).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
    expect(await run('bash', { command: 'echo bye', description: 'exit', run_in_background: true, wait_for: { exit: true } })).toMatchObject({ ok: true, data: { status: 'exited', exit_code: 0, wait: { exited: true } } });
    await run('process_list', {});
    await run('process_output', { id });
    await run('process_output', { id, tail: 1 });
    expect(await run('process_wait', { id, wait_for: { regex: 'up' } })).toMatchObject({ ok: true, data: { wait: { satisfied: true } } });
    expect(await run('process_wait', { id, wait_for: { exit: true }, timeout: 300 })).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
    expect(await run('process_kill', { id })).toMatchObject({ ok: true, data: { process_id: id, status: 'killed' } });
    await run('process_kill', { id: 'proc-999' });
    await run('diagnostics', { path: 'src/app.ts' });
    await run('diagnostics', {});
    const rest: [string, Record<string, unknown>][] = [
      ['grep', { pattern: 'port' }],
      ['code_search', { pattern: 'port' }],
      ['list_files', {}],
      ['write_file', { path: 'src/bg.ts', content: 'export {};\n' }],
      ['edit_file', { path: 'src/bg.ts', old_str: 'export {};', new_str: 'export const x = 1;' }],
      ['code_modify', { file_path: 'src/bg.ts', operation: 'insert_after', line: 1, new_content: 'export const y = 2;' }],
      ['modification_log', {}],
      ['run_tests', { test_command: 'echo 1 passing' }],
      ['webfetch', { url: 'http://127.0.0.1:9/' }],
      ['skill', { name: 'release' }],
      ['skill', { name: 'nope' }],
    ];
    for (const [name, args] of rest) await run(name, args);
    const last = (await run('modification_log', { limit: 1 })).data!.modifications as { modification_id: string }[];
    await run('code_rollback', { modification_id: last[0]!.modification_id });
    expect(registry.list().map((t) => t.name).filter((n) => !called.has(n))).toEqual([]);
    // Nothing had to be dropped on the way: every result was whole.
    expect(stderr).not.toContain('tool.result_invalid');
  }, 120_000);
});
