// `loupe mcp` end to end: the built CLI (`node bin/loupe.mjs mcp --cwd DIR`) driven by the
// official MCP client over stdio. Needs `npm run build` first (npm test builds before vitest).
import { existsSync } from 'node:fs';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedLlm, userPrompt, type ScriptedLlm } from './support/scriptedLlm';
import { tempDir } from './support/tmp';

const ROOT = path.resolve(__dirname, '..');
const BIN = path.join(ROOT, 'bin/loupe.mjs');

interface Envelope {
  ok: boolean;
  output: string;
  data?: Record<string, unknown>;
  error?: { code: string; message: string };
}

let sandbox: { dir: string; cleanup: () => Promise<void> };
let ws: string;
const clients: Client[] = [];

async function connect(env: Record<string, string> = {}): Promise<Client> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k, v]) => v !== undefined && !['LOUPE_MODEL', 'OPENAI_BASE_URL', 'OPENAI_API_KEY'].includes(k))) as Record<string, string>;
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--cwd', ws], env: { ...base, ...env }, stderr: 'pipe' });
  const client = new Client({ name: 'loupe-e2e', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Envelope & { isError: boolean; text: string }> {
  const res = await client.callTool({ name, arguments: args });
  const content = res.content as { type: string; text: string }[];
  return { ...(res.structuredContent as unknown as Envelope), isError: res.isError === true, text: content[0]?.text ?? '' };
}

beforeAll(async () => {
  if (!existsSync(path.join(ROOT, 'out/main/cli.js'))) throw new Error('loupe is not built: run `npm run build` before this test.');
  sandbox = await tempDir('loupe-mcp-');
  ws = path.join(sandbox.dir, 'proj');
  await mkdir(path.join(ws, 'src'), { recursive: true });
  await mkdir(path.join(sandbox.dir, 'proj-evil'));
  await writeFile(path.join(sandbox.dir, 'proj-evil/x.txt'), 'evil');
  await writeFile(path.join(sandbox.dir, 'secret.txt'), 'secret');
  await symlink(sandbox.dir, path.join(ws, 'linked-dir'));
  await symlink(path.join(sandbox.dir, 'secret.txt'), path.join(ws, 'linked-file.txt'));
  await writeFile(path.join(ws, 'src/app.ts'), 'export const port = 3000;\n');
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await sandbox?.cleanup();
});

describe('loupe mcp over stdio', () => {
  it('lists every registry tool with its JSON schema', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(Object.keys(byName)).toEqual(expect.arrayContaining(['read_file', 'write_file', 'edit_file']));
    expect(byName.edit_file.inputSchema).toMatchObject({ type: 'object', required: ['path', 'old_str', 'new_str'] });
    expect(byName.read_file.inputSchema.properties).toHaveProperty('line_numbers');
    expect(byName.edit_file.description).toMatch(/old_str/);
  });

  it('reads, writes and edits; results carry {ok, output, data} as structuredContent', async () => {
    const client = await connect();
    const read = await call(client, 'read_file', { path: 'src/app.ts' });
    expect(read).toMatchObject({ ok: true, isError: false, text: '     1→export const port = 3000;', data: { total_lines: 1, language: 'typescript' } });

    const edit = await call(client, 'edit_file', { path: 'src/app.ts', old_str: '3000', new_str: '8080' });
    expect(edit).toMatchObject({ ok: true, data: { strategy: 'exact', occurrences: 1, modification_id: expect.stringMatching(/^mod-/) } });
    expect(await readFile(path.join(ws, 'src/app.ts'), 'utf8')).toBe('export const port = 8080;\n');

    const write = await call(client, 'write_file', { path: 'src/new.ts', content: 'export {};\n' });
    expect(write).toMatchObject({ ok: true, data: { operation: 'create' } });
    expect(await readFile(path.join(ws, 'src/new.ts'), 'utf8')).toBe('export {};\n');
    const log = (await readFile(path.join(ws, '.loupe/modifications.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
    expect(log.map((e) => e.tool)).toEqual(['edit_file', 'write_file']);
  });

  it('fails with isError and the error code in structuredContent', async () => {
    const client = await connect();
    const r = await call(client, 'edit_file', { path: 'src/app.ts', old_str: 'nothing like this', new_str: 'x' });
    expect(r).toMatchObject({ ok: false, isError: true, error: { code: 'FILE_NOT_READ' } });
    expect(r.text).toContain('FILE_NOT_READ');
  });

  it('treats one connection as one session for read-first checks', async () => {
    const first = await connect();
    const second = await connect();
    await call(first, 'read_file', { path: 'src/app.ts' });
    expect((await call(second, 'write_file', { path: 'src/app.ts', content: 'x' })).error?.code).toBe('FILE_NOT_READ');
    expect((await call(first, 'write_file', { path: 'src/app.ts', content: 'export const port = 1;\n' })).ok).toBe(true);
  });

  it('refuses ../x, /etc/passwd, symlinks out, and a sibling sharing the name prefix — for every tool', async () => {
    const client = await connect();
    const outside = ['../x', '/etc/passwd', 'linked-dir/secret.txt', 'linked-file.txt', '../proj-evil/x.txt', path.join(sandbox.dir, 'proj-evil/x.txt')];
    for (const p of outside) {
      expect((await call(client, 'read_file', { path: p })).error?.code, `read ${p}`).toBe('PATH_OUTSIDE_WORKSPACE');
      expect((await call(client, 'write_file', { path: p, content: 'pwned' })).error?.code, `write ${p}`).toBe('PATH_OUTSIDE_WORKSPACE');
      const edit = await call(client, 'edit_file', { path: p, old_str: '', new_str: 'pwned' });
      expect(edit.error?.code, `edit ${p}`).toBe('EDIT_INVALID_PATH');
      expect(edit.isError).toBe(true);
    }
    expect(existsSync(path.join(sandbox.dir, 'x'))).toBe(false);
    expect(await readFile(path.join(sandbox.dir, 'secret.txt'), 'utf8')).toBe('secret');
    expect(await readFile(path.join(sandbox.dir, 'proj-evil/x.txt'), 'utf8')).toBe('evil');
  });

  describe('with a model configured through the environment', () => {
    let llm: ScriptedLlm;
    beforeAll(async () => {
      llm = await startScriptedLlm((req) =>
        userPrompt(req).includes('{"corrected_target_snippet"')
          ? { content: '{"corrected_target_snippet": "const API_URL = \\"https://old.api/v1\\""}' }
          : { content: '{"corrected_new_string": "const API_URL = \\"https://new.api/v2\\""}' },
      );
    });
    afterAll(() => llm.close());

    it('runs the LLM correction (seed example 2) against OPENAI_BASE_URL with LOUPE_MODEL', async () => {
      await writeFile(path.join(ws, 'config.js'), 'const API_URL = "https://old.api/v1"\n');
      const client = await connect({ OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: 'k', LOUPE_MODEL: 'scripted-model' });
      await call(client, 'read_file', { path: 'config.js' });
      const r = await call(client, 'edit_file', { path: 'config.js', old_str: "const API_URL = 'https://old.api/v1';", new_str: "const API_URL = 'https://new.api/v2';" });
      expect(r).toMatchObject({ ok: true, data: { strategy: 'llm', llm_calls: 2 } });
      expect(await readFile(path.join(ws, 'config.js'), 'utf8')).toBe('const API_URL = "https://new.api/v2"\n');
      expect(llm.completions.map((c) => c.body.model)).toEqual(['scripted-model', 'scripted-model']);
    });
  });
});
