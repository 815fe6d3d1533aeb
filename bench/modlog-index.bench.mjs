// The first modification_log query on a 1,000- and a 100,000-entry log through `loupe mcp`: once with no
// checkpoint beside the log (the whole log is folded, and the checkpoint written), then in new
// processes with it (only the checkpoint's header, the query's slice and the lines shown are
// read; p50 of RUNS processes), and with the most a checkpoint can lag: 999 lines appended after
// it, folded on open. Figures are the server's own time for the call (`_meta['loupe/duration_ms']`).
import { existsSync, statSync } from 'node:fs';
import { appendFile, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { connectMcp as connect, percentile, report, tempDir } from './lib.mjs';

const RUNS = 5;


/** `ENTRIES` modifications over up to 2,000 files and 5,000 correlations, a test run every tenth, an approval every fifth. */
function syntheticLog(ENTRIES, from = 0) {
  const lines = [];
  for (let i = from; i < from + ENTRIES; i++) {
    const id = `mod-20250101-${String(Math.floor(i / 1000)).padStart(6, '0')}-${String(i % 1000).padStart(3, '0')}`;
    lines.push(JSON.stringify({
      type: 'modification', modification_id: id, timestamp: new Date(1735689600000 + i * 1000).toISOString(),
      session_id: 'ses-bench', correlation_id: `req-${i % 5000}`, tool: 'code_modify', operation: 'replace', file: `src/f${i % 2000}.ts`,
      lines_affected: [10, 12], lines_changed: 3, reason: 'benchmark entry', before_sha256: 'a'.repeat(64), after_sha256: 'b'.repeat(64), git_staged: true,
    }));
    if (i % 10 === 0) lines.push(JSON.stringify({ type: 'test_results', modification_id: id, passed: 8, failed: 0, skipped: 0, duration_ms: 2100, status: 'success', command: 'npm test' }));
    if (i % 5 === 0) lines.push(JSON.stringify({ type: 'review', modification_id: id, verdict: 'approved', timestamp: new Date(1735689600000 + i * 1000).toISOString() }));
  }
  return lines.join('\n') + '\n';
}

async function firstQuery(cwd) {
  const client = await connect(cwd);
  try {
    const res = await client.callTool({ name: 'modification_log', arguments: { correlation_id: 'req-1' } });
    if (res.isError) throw new Error(`modification_log failed: ${res.content[0]?.text}`);
    return res._meta['loupe/duration_ms'];
  } finally {
    await client.close();
  }
}

/** The first query with no checkpoint (it is then written), and in a new process with it. */
async function run(entries, label) {
  const root = await tempDir('loupe-bench-modlog-index-');
  try {
    const dir = path.join(root, '.loupe');
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'modifications.jsonl'), syntheticLog(entries));
    const checkpoint = path.join(dir, 'modifications.index');
    const cold = await firstQuery(root);
    // Written after that answer (past 1,000 new lines) or when the process closes.
    for (let i = 0; i < 50 && !existsSync(checkpoint); i++) await new Promise((r) => setTimeout(r, 100));
    const log_bytes = statSync(path.join(dir, 'modifications.jsonl')).size;
    report(`modification_log.first_query.${label}.no_checkpoint_ms`, cold, 'ms', { entries, log_bytes });
    const checkpoint_bytes = existsSync(checkpoint) ? statSync(checkpoint).size : 0;
    const warm = [];
    for (let i = 0; i < RUNS; i++) warm.push(await firstQuery(root));
    report(`modification_log.first_query.${label}_ms`, percentile(warm, 50), 'ms', { entries, log_bytes, checkpoint_bytes, runs: RUNS, max: Math.max(...warm), budget_ms: 20 });
    // Up to 999 new lines are left for the next open to fold (the checkpoint is rewritten at 1,000).
    const lagging = Math.floor(999 / 1.3);
    await appendFile(path.join(dir, 'modifications.jsonl'), syntheticLog(lagging, entries));
    const tail = [];
    for (let i = 0; i < RUNS; i++) tail.push(await firstQuery(root));
    report(`modification_log.first_query.${label}.checkpoint_999_lines_behind_ms`, percentile(tail, 50), 'ms', { entries: entries + lagging, runs: RUNS, max: Math.max(...tail) });
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

await run(1_000, '1k');
await run(100_000, '100k');
