// The rewind's fixed names through `loupe mcp` (the built CLI, the official MCP client): bash and
// run_tests take correlation_id and their writes are modifications with tool "bash"/"run_tests"
// in modification_log; code_rollback with undo_request undoes that request and every later one
// of the connection's session, answering data.rollback_id; code_rollback with that id redoes it.
// And `loupe run --undo-last` on the same folder. Needs `npm run build` first.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { git, tempDir } from './support/tmp';

const ROOT = path.resolve(__dirname, '..');
const BIN = path.join(ROOT, 'bin/loupe.mjs');

interface Envelope {
  ok: boolean;
  output: string;
  data?: Record<string, unknown>;
  error?: { code: string; message: string };
}

let t: { dir: string; cleanup: () => Promise<void> };
let ws: string;
let client: Client;
const env = () => ({ ...(Object.fromEntries(Object.entries(process.env).filter(([k, v]) => v !== undefined && !['LOUPE_MODEL', 'OPENAI_BASE_URL', 'OPENAI_API_KEY'].includes(k))) as Record<string, string>), LOUPE_HOME: path.join(t.dir, 'home') });

async function call(name: string, args: Record<string, unknown>): Promise<Envelope> {
  const res = await client.callTool({ name, arguments: args });
  return res.structuredContent as unknown as Envelope;
}
const exists = (rel: string) => stat(path.join(ws, rel)).then(() => true, () => false);

beforeAll(async () => {
  if (!existsSync(path.join(ROOT, 'out/main/cli.js'))) throw new Error('loupe is not built: run `npm run build` before this test.');
  t = await tempDir('loupe-mcp-rewind-');
  ws = path.join(t.dir, 'proj');
  await mkdir(path.join(ws, 'src'), { recursive: true });
  await writeFile(path.join(ws, 'src/a.txt'), 'alpha\n');
  await writeFile(path.join(ws, 'package.json'), JSON.stringify({ scripts: { test: 'node -e "require(\'fs\').writeFileSync(\'report.txt\', \'1 passed\\\\n\')"' } }));
  git(ws, 'init', '-q');
  git(ws, 'add', '-A');
  git(ws, 'commit', '-qm', 'seed');
  client = new Client({ name: 'loupe-rewind-e2e', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--cwd', ws], env: env(), stderr: 'pipe' }));
});

afterAll(async () => {
  await client?.close().catch(() => undefined);
  await t?.cleanup();
});

it('commands write modifications; undo_request undoes a request and the later ones; its rollback_id redoes', { timeout: 60_000 }, async () => {
  // req-1: a command; req-2: a command and an edit; req-3: the tests, which write a report.
  const one = await call('bash', { command: "printf 'one\\n' > src/one.txt", description: 'first', correlation_id: 'req-1' });
  expect(one.ok, one.output).toBe(true);
  const two = await call('bash', { command: "printf 'two\\n' > src/two.txt && printf 'ALPHA\\n' > src/a.txt", description: 'second', correlation_id: 'req-2' });
  expect((two.data!.changes as { files: unknown[] }).files).toHaveLength(2);
  const three = await call('run_tests', { test_command: 'npm test', correlation_id: 'req-3' });
  expect(three.data!.changes).toMatchObject({ files: [{ file: 'report.txt', change: 'created' }] });
  const log = (await call('modification_log', {})).data!.modifications as { tool: string; correlation_id: string; file: string; command?: string }[];
  expect(log.map((m) => [m.correlation_id, m.tool, m.file]).sort()).toEqual([
    ['req-1', 'bash', 'src/one.txt'],
    ['req-2', 'bash', 'src/a.txt'],
    ['req-2', 'bash', 'src/two.txt'],
    ['req-3', 'run_tests', 'report.txt'],
  ]);

  const undo = await call('code_rollback', { undo_request: 'req-2' });
  expect(undo.ok, undo.output).toBe(true);
  const groupId = undo.data!.rollback_id as string;
  expect(groupId).toMatch(/^undo-/);
  expect(await exists('src/two.txt')).toBe(false);
  expect(await exists('report.txt')).toBe(false);
  expect(await readFile(path.join(ws, 'src/a.txt'), 'utf8')).toBe('alpha\n');
  expect(await exists('src/one.txt')).toBe(true);

  const redo = await call('code_rollback', { modification_id: groupId });
  expect(redo.ok, redo.output).toBe(true);
  expect(redo.data!.rollback_id).toMatch(/^redo-/);
  expect(await readFile(path.join(ws, 'src/a.txt'), 'utf8')).toBe('ALPHA\n');
  expect(await exists('report.txt')).toBe(true);
  await client.close();

  // `loupe run --undo-last`: the latest request whose changes are in effect (req-3's report).
  const run = await promisify(execFile)(process.execPath, [BIN, 'run', '--cwd', ws, '--undo-last', '--json'], { env: env() });
  const event = JSON.parse(run.stdout.trim().split('\n').pop()!);
  expect(event).toMatchObject({ type: 'undo', status: 'done', request: 'req-3', files: ['report.txt'] });
  expect(run.stderr).toContain('Undo request req-3');
  expect(await exists('report.txt')).toBe(false);
  expect(await exists('src/two.txt')).toBe(true);
});
