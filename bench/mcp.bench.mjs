// An MCP tool round trip through Loupe (the registry's mcp__everything__echo: arguments checked,
// the permission gate, the call, the result described) versus the MCP SDK's own client calling
// the same server program directly (budget: 5 ms added at p50). Both talk to server-everything
// over stdio, each its own process; Loupe's runs inside the OS sandbox where one works. echo is
// read-only, so no snapshot is taken around it (a writing tool's snapshots are the rewind bench's).
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ROOT, bundleSource, percentile, report, tempDir } from './lib.mjs';

const EVERYTHING = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const CALLS = 300;
const WARM = 30;

const dir = await tempDir('loupe-bench-mcp-');
const root = path.join(dir, 'ws');
const home = path.join(dir, 'home');
await mkdir(root);
await mkdir(home);
await writeFile(
  path.join(home, 'settings.json'),
  JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] } }, permissions: [{ kind: 'mcp', pattern: 'everything/*', action: 'allow' }] }),
);
// Beside the project's modules, so the bundle's imports of its dependencies resolve.
const cache = path.join(ROOT, 'node_modules', '.cache', 'loupe-bench');
await mkdir(cache, { recursive: true });
const L = await import(pathToFileURL(await bundleSource('bench/mcpEntry.ts', cache, 'mcp.mjs', { external: [/^[^./]/] })).href);
const services = L.composeWorkspace({ root, user: L.openUserSettings(home), asker: { kind: 'deny' }, logger: L.nullLogger });
await services.mcp.sync();
const [view] = services.mcp.list();
if (view.status !== 'ready') throw new Error(`server not ready: ${view.detail}`);
const registry = L.createToolRegistry().withTools(() => L.mcpTools(services.mcp));
const ctx = L.createToolContext(services, { corrector: null });

const sdk = new Client({ name: 'bench', version: '0' });
await sdk.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }));

const loupe = [];
const direct = [];
for (let i = 0; i < CALLS + WARM; i++) {
  const message = `ping ${i}`;
  let t0 = performance.now();
  const r = await registry.call('mcp__everything__echo', { message }, ctx);
  const a = performance.now() - t0;
  if (!r.ok || !r.output.includes(message)) throw new Error(`loupe call failed: ${r.output}`);
  t0 = performance.now();
  const d = await sdk.callTool({ name: 'echo', arguments: { message } });
  const b = performance.now() - t0;
  if (!JSON.stringify(d.content).includes(message)) throw new Error('direct call failed');
  if (i >= WARM) {
    loupe.push(a);
    direct.push(b);
  }
}
const added = loupe.map((x, i) => x - direct[i]);
report('mcp_roundtrip_loupe_p50', percentile(loupe, 50), 'ms', { sandboxed: view.sandboxed, calls: CALLS });
report('mcp_roundtrip_sdk_direct_p50', percentile(direct, 50), 'ms', { calls: CALLS });
report('mcp_roundtrip_added_p50', percentile(loupe, 50) - percentile(direct, 50), 'ms', { budget: 5, paired_added_p50: Math.round(percentile(added, 50) * 100) / 100 });

await sdk.close();
await services.dispose();
await rm(dir, { recursive: true, force: true });
