// The modification lifecycle through `loupe mcp`: code_modify in a git repository (every
// write staged), and modification_log by correlation over a 10,000-entry log. Figures are the
// server's own time per tool call (`_meta['loupe/duration_ms']`); the round trip is beside it.
import { execFileSync } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { connectMcp as connect, percentile, report, tempDir } from './lib.mjs';

const RUNS = 60;
const WARMUP = 5;
const ENTRIES = 10_000;

async function measure(name, fn, extra = {}) {
  const server = [];
  const rtt = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const t0 = performance.now();
    const res = await fn(i);
    const took = performance.now() - t0;
    if (res.isError) throw new Error(`${name} failed: ${res.content[0]?.text}`);
    if (i < WARMUP) continue;
    server.push(res._meta['loupe/duration_ms']);
    rtt.push(took);
  }
  report(name, percentile(server, 50), 'ms', { p95_ms: Math.round(percentile(server, 95) * 100) / 100, round_trip_p50_ms: Math.round(percentile(rtt, 50) * 100) / 100, runs: RUNS, ...extra });
}

/** A realistic log: 10,000 modifications over 200 files and 500 correlations. */
function syntheticLog() {
  const lines = [];
  for (let i = 0; i < ENTRIES; i++) {
    const s = String(i % 1000).padStart(3, '0');
    lines.push(JSON.stringify({
      type: 'modification', modification_id: `mod-20250101-${String(Math.floor(i / 1000)).padStart(6, '0')}-${s}`, timestamp: new Date(1735689600000 + i * 1000).toISOString(),
      session_id: 'ses-bench', correlation_id: `req-${i % 500}`, tool: 'code_modify', operation: 'replace', file: `src/f${i % 200}.ts`,
      lines_affected: [10, 12], lines_changed: 3, reason: 'benchmark entry', before_sha256: 'a'.repeat(64), after_sha256: 'b'.repeat(64), git_staged: true,
    }));
    if (i % 10 === 0) lines.push(JSON.stringify({ type: 'test_results', modification_id: lines.length && JSON.parse(lines[lines.length - 1]).modification_id, passed: 8, failed: 0, skipped: 0, duration_ms: 2100, status: 'success', command: 'npm test' }));
  }
  return lines.join('\n') + '\n';
}

const root = await tempDir('loupe-bench-lifecycle-');
try {
  const repo = path.join(root, 'repo');
  await mkdir(repo);
  const lines = Array.from({ length: 2000 }, (_, i) => `export const value${i} = ${i}; // line ${i}`);
  await writeFile(path.join(repo, 'big.ts'), lines.join('\n') + '\n');
  const git = (...a) => execFileSync('git', ['-c', 'user.email=b@example.com', '-c', 'user.name=bench', ...a], { cwd: repo });
  git('init', '-q');
  git('add', '.');
  git('commit', '-q', '-m', 'base');
  let client = await connect(repo);
  await client.callTool({ name: 'read_file', arguments: { path: 'big.ts', limit: 1 } });
  await measure('code_modify.git_staging.p50_ms', (i) =>
    client.callTool({ name: 'code_modify', arguments: { file_path: 'big.ts', operation: 'replace', line_range: [1000, 1000], new_content: `export const value999 = ${i}; // bench`, correlation_id: 'bench' } }),
  { file_lines: 2000 });
  await client.close();

  const logged = path.join(root, 'logged');
  await mkdir(path.join(logged, '.loupe'), { recursive: true });
  await writeFile(path.join(logged, '.loupe', 'modifications.jsonl'), syntheticLog());
  client = await connect(logged);
  // The first query reads and folds the whole file; later ones read only what was appended.
  const first = await client.callTool({ name: 'modification_log', arguments: { correlation_id: 'req-1' } });
  report('modification_log.first_query.10k_ms', first._meta['loupe/duration_ms'], 'ms', { entries: ENTRIES });
  await measure('modification_log.by_correlation.10k.p50_ms', (i) => client.callTool({ name: 'modification_log', arguments: { correlation_id: `req-${i % 500}` } }), { entries: ENTRIES });
  await client.close();
} finally {
  await rm(root, { recursive: true, force: true });
}
