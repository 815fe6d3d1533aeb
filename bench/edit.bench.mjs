// edit_file (exact and indentation-shift paths) and read_file on a 100 KB file, through
// `loupe mcp`, without git (no staging) and in a git repository (every write staged).
// The figure is the server's own time for the tool (`_meta['loupe/duration_ms']`), so the
// stdio transport is left out; the round trip is reported beside it.
import { execFileSync } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ROOT, percentile, report, tempDir } from './lib.mjs';

const RUNS = 60;
const WARMUP = 5;

/** ~100 KB of TypeScript with one indented block to edit in the middle. */
function sourceFile() {
  const lines = [];
  for (let i = 0; lines.join('\n').length < 100 * 1024; i++) lines.push(`export const value${i} = ${i} * 2; // generated line ${i}`);
  const mid = lines.length >> 1;
  lines.splice(mid, 0, 'class Cart {', '    total() {', '        for (const item of this.items) {', '            sum += item.price;', '        }', '    }', '}');
  return lines.join('\n') + '\n';
}

async function connect(cwd) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !['LOUPE_MODEL', 'OPENAI_BASE_URL', 'OPENAI_API_KEY'].includes(k)));
  const client = new Client({ name: 'loupe-bench', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [path.join(ROOT, 'bin', 'loupe.mjs'), 'mcp', '--cwd', cwd], env, stderr: 'ignore' }));
  return client;
}

async function timed(client, name, args) {
  const t0 = performance.now();
  const res = await client.callTool({ name, arguments: args });
  const rtt = performance.now() - t0;
  if (res.isError) throw new Error(`${name} failed: ${res.content[0]?.text}`);
  return { server: res._meta['loupe/duration_ms'], rtt };
}

async function measure(label, staging, fn) {
  const server = [];
  const rtt = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const t = await fn(i);
    if (i < WARMUP) continue;
    server.push(t.server);
    rtt.push(t.rtt);
  }
  report(`${label}${staging ? '.git_staging' : ''}.p50_ms`, percentile(server, 50), 'ms', {
    p95_ms: Math.round(percentile(server, 95) * 100) / 100,
    round_trip_p50_ms: Math.round(percentile(rtt, 50) * 100) / 100,
    runs: RUNS,
    file_bytes: 100 * 1024,
  });
}

const root = await tempDir('loupe-bench-edit-');
try {
  for (const staging of [false, true]) {
    const ws = path.join(root, staging ? 'repo' : 'plain');
    await mkdir(ws);
    await writeFile(path.join(ws, 'big.ts'), sourceFile());
    if (staging) {
      execFileSync('git', ['init', '-q'], { cwd: ws });
      execFileSync('git', ['-c', 'user.email=b@example.com', '-c', 'user.name=bench', 'add', '.'], { cwd: ws });
      execFileSync('git', ['-c', 'user.email=b@example.com', '-c', 'user.name=bench', 'commit', '-q', '-m', 'base'], { cwd: ws });
    }
    const client = await connect(ws);
    await measure('read_file.100kb', staging, () => timed(client, 'read_file', { path: 'big.ts' }));
    await measure('edit_file.exact', staging, (i) =>
      timed(client, 'edit_file', { path: 'big.ts', old_str: `value1000 = ${i % 2 ? 'x' : '1000'} * 2;`, new_str: `value1000 = ${i % 2 ? '1000' : 'x'} * 2;` }),
    );
    // old_str indented 4 spaces less than the file: found by the indentation view, re-indented back.
    await measure('edit_file.indentation_shift', staging, (i) => {
      const [from, to] = i % 2 ? ['item.qty', 'item.price'] : ['item.price', 'item.qty'];
      return timed(client, 'edit_file', {
        path: 'big.ts',
        old_str: `    for (const item of this.items) {\n        sum += ${from};\n    }`,
        new_str: `    for (const item of this.items) {\n        sum += ${to};\n    }`,
      });
    });
    await client.close();
  }
} finally {
  await rm(root, { recursive: true, force: true });
}
