// grep (each output mode) and list_files on the generated 100,000-file monorepo (a git
// repository), through the built `loupe mcp`, against bare `rg` for the same query. Tool
// figures are the server-side duration (`loupe/duration_ms`), so stdio is left out; rg figures
// are spawn-to-exit from here, its output drained. Goal (issue 14): within 1.2x of rg.
// The tree is only read: nothing here writes into the cached repository.
import { cachedMonorepo, connectMcp, report, timePair, timeRg } from './lib.mjs';

const FILES = 100_000;
const RUNS = Number(process.env.LOUPE_BENCH_RUNS ?? 15);
const WARMUP = 2;
// v1, v10…v19, v100…v199, v1000…v1999, v10000…v19999: 11,111 files, one matching line each.
const PATTERN = 'export const v1[0-9]*\\b';
// Every file: 100,000 matching lines.
const DENSE = 'return x \\+';
const SCOPE = ['--hidden', '--glob', '!.git', '--glob', '!.loupe'];

const root = process.env.LOUPE_BENCH_TREE ?? (await cachedMonorepo(FILES, { git: true }));


const client = await connectMcp(root);

async function tool(name, args) {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content)}`);
  return r._meta['loupe/duration_ms'];
}

const grepArgs = ['--regexp', PATTERN, '--', '.'];
const cases = [
  ['grep.content', { pattern: PATTERN, output_mode: 'content' }, ['--line-number', '--no-heading', '--with-filename', ...grepArgs]],
  ['grep.files_with_matches', { pattern: PATTERN, output_mode: 'files_with_matches' }, ['--files-with-matches', ...grepArgs]],
  ['grep.count', { pattern: PATTERN, output_mode: 'count' }, ['--count', ...grepArgs]],
  ['grep.dense.content', { pattern: DENSE, output_mode: 'content' }, ['--line-number', '--no-heading', '--with-filename', '--regexp', DENSE, '--', '.']],
  ['grep.dense.count', { pattern: DENSE, output_mode: 'count' }, ['--count', '--regexp', DENSE, '--', '.']],
  ['list_files.all', {}, ['--files', '--', '.']],
  // The same answer from rg itself: every file, newest first (list_files keeps the newest 100).
  ['list_files.all.sorted', {}, ['--files', '--sortr', 'modified', '--', '.']],
  ['list_files.glob', { pattern: '**/m1/*.ts' }, ['--files', '--glob', '**/m1/*.ts', '--', '.']],
  // A glob that keeps nearly every file, as `*.ts` does in a TypeScript monorepo.
  ['list_files.ts', { pattern: '*.ts' }, ['--files', '--glob', '*.ts', '--', '.']],
];
const only = process.env.LOUPE_BENCH_ONLY;

try {
  for (const [name, args, rgArgs] of cases) {
    if (only && !name.startsWith(only)) continue;
    const toolName = name.startsWith('grep') ? 'grep' : 'list_files';
    const [ours, raw] = await timePair(() => tool(toolName, args), () => timeRg(root, [...SCOPE, ...rgArgs]), { warmup: WARMUP, runs: RUNS });
    report(`scale.${name}.p50`, ours, 'ms', { files: FILES, runs: RUNS });
    report(`scale.${name}.rg.p50`, raw, 'ms', { files: FILES, runs: RUNS, rg: rgArgs.join(' ') });
    report(`scale.${name}.vs_rg`, ours / raw, 'x');
  }
} finally {
  await client.close();
}
