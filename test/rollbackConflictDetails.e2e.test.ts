// ROLLBACK_CONFLICT names the modifications in the way as data, not only in its message: the
// same `details.blocking` reaches an MCP client (the official SDK over stdio, against the built
// `loupe mcp`) in structuredContent, and a browser over `loupe serve`'s WebSocket in the error.
// Needs `npm run build` first.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { healthyClient, request, serveFixture, type ServeFixture } from './support/serveFixture';

const ROOT = path.resolve(__dirname, '..');
const BIN = path.join(ROOT, 'bin/loupe.mjs');

interface Envelope {
  ok: boolean;
  data?: Record<string, unknown>;
  error?: { code: string; message: string; details?: Record<string, unknown> };
}

let fx: ServeFixture;
let mcp: Client;
let ws: WebSocket;
const mods: string[] = [];

async function tool(name: string, args: Record<string, unknown>): Promise<Envelope & { isError: boolean }> {
  const res = await mcp.callTool({ name, arguments: args });
  return { ...(res.structuredContent as unknown as Envelope), isError: res.isError === true };
}

beforeAll(async () => {
  if (!existsSync(path.join(ROOT, 'out/main/cli.js'))) throw new Error('loupe is not built: run `npm run build` before this test.');
  fx = await serveFixture({ 'src/word.ts': 'export const word = "one";\n' });
  const env = Object.fromEntries(Object.entries(process.env).filter(([k, v]) => v !== undefined && !['LOUPE_MODEL', 'OPENAI_BASE_URL', 'OPENAI_API_KEY'].includes(k))) as Record<string, string>;
  mcp = new Client({ name: 'loupe-conflict', version: '1.0.0' });
  await mcp.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--cwd', fx.project], env, stderr: 'pipe' }));
  // Three edits of one line: rolling back the first overlaps the two after it.
  for (const [from, to] of [['one', 'two'], ['two', 'three'], ['three', 'four']]) {
    expect((await tool('read_file', { path: 'src/word.ts' })).ok).toBe(true);
    const r = await tool('edit_file', { path: 'src/word.ts', old_str: `"${from}"`, new_str: `"${to}"` });
    expect(r.error).toBeUndefined();
    mods.push(r.data?.modification_id as string);
  }
  ws = await healthyClient(fx.srv);
});

afterAll(async () => {
  ws?.close();
  await mcp?.close().catch(() => undefined);
  await fx?.close();
});

describe('ROLLBACK_CONFLICT details', () => {
  it('an MCP client gets the blocking modifications in structuredContent.error.details', async () => {
    const r = await tool('code_rollback', { modification_id: mods[0] });
    expect(r.isError).toBe(true);
    expect(r.error?.code).toBe('ROLLBACK_CONFLICT');
    expect(r.error?.details).toEqual({ modification_id: mods[0], file: 'src/word.ts', blocking: [mods[1], mods[2]], outside_changes: false });
  });

  it('the review pane over the WebSocket gets the same details with the error', async () => {
    const res = await request(ws, 'modlog.rollback', { modification_id: mods[1] });
    expect(res).toMatchObject({ ok: false, e: { code: 'ROLLBACK_CONFLICT', details: { modification_id: mods[1], blocking: [mods[2]] } } });
  });
});
