// Two processes, one folder: a modification made through `loupe mcp` shows up in `loupe serve`
// (modlog.changed within a second, then modlog.list), and the review channels act on it.
// Needs `npm run build` first, like the other tests that spawn bin/loupe.mjs.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, tempDir, until } from '../support/tmp';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'bin/loupe.mjs');
let sandbox: { dir: string; cleanup: () => Promise<void> };
let ws: string;
let serve: ChildProcess;
let socket: WebSocket;
let mcp: Client;
const events: { ch: string; p: unknown }[] = [];
const pending = new Map<number, (m: { ok: boolean; r?: unknown; e?: { code: string } }) => void>();
let nextId = 1;

function request<T = unknown>(ch: string, p: unknown): Promise<{ ok: boolean; r?: T; e?: { code: string; message?: string } }> {
  const id = nextId++;
  return new Promise((resolve) => {
    pending.set(id, resolve as never);
    socket.send(JSON.stringify({ t: 'req', id, ch, p }));
  });
}

beforeAll(async () => {
  if (!existsSync(path.join(ROOT, 'out/main/cli.js'))) throw new Error('loupe is not built: run `npm run build` before this test.');
  sandbox = await tempDir('loupe-review-e2e-');
  ws = path.join(sandbox.dir, 'proj');
  await mkdir(ws);
  git(ws, 'init', '-q');
  await writeFile(path.join(ws, 'app.ts'), Array.from({ length: 30 }, (_, i) => `const v${i} = ${i};`).join('\n') + '\n');
  git(ws, 'add', '.');
  git(ws, 'commit', '-q', '-m', 'base');
  serve = spawn(process.execPath, [BIN, 'serve', ws, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<{ port: string; token: string }>((resolve) => {
    let out = '';
    serve.stdout!.on('data', (d) => {
      out += d;
      const m = /http:\/\/127\.0\.0\.1:(\d+)\/\?token=(\S+)/.exec(out);
      if (m) resolve({ port: m[1], token: m[2] });
    });
  });
  socket = new WebSocket(`ws://127.0.0.1:${url.port}/ws?token=${url.token}`, { headers: { Origin: `http://127.0.0.1:${url.port}` } });
  await new Promise((resolve, reject) => (socket.once('open', resolve), socket.once('error', reject)));
  socket.on('message', (raw) => {
    const msg = JSON.parse(raw.toString());
    if (msg.t === 'evt') events.push({ ch: msg.ch, p: msg.p });
    else {
      pending.get(msg.id)?.(msg);
      pending.delete(msg.id);
    }
  });
  await until(async () => (await request('workspace.current', undefined)).r);
  const env = Object.fromEntries(Object.entries(process.env).filter(([k, v]) => v !== undefined && !['LOUPE_MODEL', 'OPENAI_BASE_URL', 'OPENAI_API_KEY'].includes(k))) as Record<string, string>;
  mcp = new Client({ name: 'loupe-review-e2e', version: '1.0.0' });
  await mcp.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--cwd', ws], env, stderr: 'ignore' }));
}, 30_000);

afterAll(async () => {
  await mcp?.close().catch(() => undefined);
  socket?.close();
  serve?.kill();
  await sandbox?.cleanup();
});

const tool = async (name: string, args: Record<string, unknown>) => (await mcp.callTool({ name, arguments: args })).structuredContent as { ok: boolean; data: Record<string, unknown> };

describe('the review channels of loupe serve see what loupe mcp does', () => {
  it('a modification made over MCP appears via modlog.changed and modlog.list; diff, rollback and approve work', async () => {
    await tool('read_file', { path: 'app.ts' });
    const m = await tool('code_modify', { file_path: 'app.ts', operation: 'replace', line_range: [3, 3], new_content: 'const v2 = 200;', correlation_id: 'e2e-1', reason: 'bump' });
    expect(m.ok).toBe(true);
    const id = m.data.modification_id as string;
    const t0 = Date.now();
    await until(() => events.some((e) => e.ch === 'modlog.changed'), 3000);
    expect(Date.now() - t0).toBeLessThan(1500);
    const list = await request<{ modifications: { modification_id: string; status: string; correlation_id: string }[]; total: number }>('modlog.list', { correlation_id: 'e2e-1' });
    expect(list.r).toMatchObject({ total: 1, modifications: [{ modification_id: id, status: 'applied', correlation_id: 'e2e-1' }] });
    const diff = await request<{ before: string; after: string; language: string }>('modlog.diff', { modification_id: id });
    expect(diff.r!.before).toContain('const v2 = 2;');
    expect(diff.r!.after).toContain('const v2 = 200;');
    expect(diff.r!.language).toBe('typescript');
    const fileDiff = await request<{ label: string; before: string }>('modlog.fileDiff', { path: 'app.ts' });
    expect(fileDiff.r).toMatchObject({ label: 'HEAD → working tree', before: expect.stringContaining('const v2 = 2;') });

    const rb = await request<{ rollback_id: string }>('modlog.rollback', { modification_id: id });
    expect(rb.ok).toBe(true);
    expect(await readFile(path.join(ws, 'app.ts'), 'utf8')).toContain('const v2 = 2;\n');
    const after = await request<{ modifications: { modification_id: string; status: string }[] }>('modlog.list', {});
    expect(after.r!.modifications.map((x) => [x.modification_id, x.status])).toEqual([[rb.r!.rollback_id, 'applied'], [id, 'rolled_back']]);
    // The MCP side sees the rollback the app made, folded into its own log view.
    const log = await tool('modification_log', { correlation_id: 'e2e-1' });
    expect(log.data.modifications).toMatchObject([{ status: 'applied', rolls_back: id }, { modification_id: id, status: 'rolled_back' }]);
    expect((await request('modlog.approve', { modification_id: rb.r!.rollback_id })).ok).toBe(true);
    expect((await request('modlog.rollback', { modification_id: 'mod-20990101-000000-001' })).e?.code).toBe('MODIFICATION_NOT_FOUND');
  }, 30_000);
});
