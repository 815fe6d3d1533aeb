// grep (each output mode) and code_search on a generated 5,000-file tree, timed through the
// built `loupe mcp` with the official MCP client, against raw `rg` for the same query.
// Tool figures are the server-side duration (`loupe/duration_ms`), so stdio is left out;
// rg figures are spawn-to-exit from here. Goals (issue 4): p50 < 100 ms, within 1.2x rg.
import { rm } from 'node:fs/promises';
import { connectMcp, generateTree, report, tempDir, timePair, timeRg } from './lib.mjs';

const FILES = 5_000;
const RUNS = 30;
const WARMUP = 3;
// Matches v1, v10…v19, v100…v199, v1000…v1999: 1,111 files, one line each.
const PATTERN = 'export const v1[0-9]*\\b';
const SCOPE = ['--hidden', '--glob', '!.git', '--glob', '!.loupe'];

const root = await tempDir('loupe-bench-search-');
await generateTree(root, FILES, 100);


const client = await connectMcp(root);

async function tool(name, args) {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content)}`);
  return r._meta['loupe/duration_ms'];
}

const cases = [
  ['grep.content', () => tool('grep', { pattern: PATTERN, output_mode: 'content' }), ['--line-number', '--no-heading', '--with-filename']],
  ['grep.files_with_matches', () => tool('grep', { pattern: PATTERN, output_mode: 'files_with_matches' }), ['--files-with-matches']],
  ['grep.count', () => tool('grep', { pattern: PATTERN, output_mode: 'count' }), ['--count']],
  ['code_search', () => tool('code_search', { pattern: PATTERN }), ['--line-number', '--no-heading', '--with-filename']],
];

try {
  for (const [name, run, rgArgs] of cases) {
    const [ours, raw] = await timePair(run, () => timeRg(root, [...SCOPE, ...rgArgs, '--regexp', PATTERN, '--', '.']), { warmup: WARMUP, runs: RUNS });
    report(`${name}.p50`, ours, 'ms', { files: FILES, runs: RUNS });
    report(`${name}.rg.p50`, raw, 'ms', { files: FILES, runs: RUNS, rg: rgArgs.join(' ') });
    report(`${name}.vs_rg`, ours / raw, 'x');
  }
} finally {
  await client.close();
  await rm(root, { recursive: true, force: true });
}
