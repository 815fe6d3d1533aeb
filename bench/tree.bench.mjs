// Tree listing of a generated 10,000-file folder through the real host, over the WebSocket.
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { generateTree, percentile, report, startServe, tempDir, wsClient } from './lib.mjs';

const root = await tempDir('loupe-bench-tree-');
const flat = path.join(root, 'flat');
const nested = path.join(root, 'nested');
await generateTree(flat, 10_000, 10_000);
await generateTree(nested, 10_000, 100);
const home = await tempDir('loupe-bench-home-');

for (const [label, folder] of [['flat', flat], ['nested', nested]]) {
  const s = await startServe(folder, { LOUPE_HOME: home });
  const c = await wsClient(s.port, s.token);
  const dir = label === 'flat' ? 'pkg0' : '';
  let t = performance.now();
  const first = await c.request('tree.list', { dir });
  report(`tree.list.10k_files.${label}.cold`, performance.now() - t, 'ms', { entries: first.r.entries.length });
  const warm = [];
  for (let i = 0; i < 30; i++) {
    t = performance.now();
    await c.request('tree.list', { dir });
    warm.push(performance.now() - t);
  }
  report(`tree.list.10k_files.${label}.warm.p50`, percentile(warm, 50));
  c.close();
  s.proc.kill('SIGTERM');
}
await rm(root, { recursive: true, force: true });
await rm(home, { recursive: true, force: true });
