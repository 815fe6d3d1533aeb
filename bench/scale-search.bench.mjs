// grep (each output mode) and list_files on the generated 100,000-file monorepo (a git
// repository), through the built `loupe mcp`, against bare `rg` for the same query. Tool
// figures are the server-side duration (`loupe/duration_ms`), so stdio is left out; rg figures
// are spawn-to-exit from here, its output drained. Goal (issue 14): within 1.2x of rg.
// The tree is only read: nothing here writes into the cached repository.
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { cachedMonorepo, connectMcp, report, tempDir, timePair, timeRg } from './lib.mjs';

const FILES = 100_000;
const RUNS = Number(process.env.LOUPE_BENCH_RUNS ?? 15);
const WARMUP = 2;
// v1, v10…v19, v100…v199, v1000…v1999, v10000…v19999: 11,111 files, one matching line each.
const PATTERN = 'export const v1[0-9]*\\b';
// Every file: 100,000 matching lines.
const DENSE = 'return x \\+';
const SCOPE = ['--hidden', '--glob', '!.git', '--glob', '!.loupe'];

const root = process.env.LOUPE_BENCH_TREE ?? (await cachedMonorepo(FILES, { git: true }));


// Loupe homes of their own: no settings of the person running the bench, and none written to
// the cached repository. The second has a user's read rules (every listed path is held to them).
const plainHome = await tempDir('loupe-bench-home-');
const client = await connectMcp(root, { LOUPE_HOME: plainHome });
const ruledHome = await tempDir('loupe-bench-home-');
await writeFile(
  path.join(ruledHome, 'settings.json'),
  JSON.stringify({ permissions: [{ kind: 'read', pattern: '.env', action: 'deny' }, { kind: 'read', pattern: '**/*.pem', action: 'deny' }, { kind: 'read', pattern: 'secrets/**', action: 'ask' }] }),
);
const ruled = await connectMcp(root, { LOUPE_HOME: ruledHome });

async function tool(name, args, via = client) {
  const r = await via.callTool({ name, arguments: args });
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
  // With three read rules in the user's settings.
  ['grep.content.read_rules', { pattern: PATTERN, output_mode: 'content' }, ['--line-number', '--no-heading', '--with-filename', ...grepArgs], ruled],
  ['list_files.ts.read_rules', { pattern: '*.ts' }, ['--files', '--glob', '*.ts', '--', '.'], ruled],
];
const only = process.env.LOUPE_BENCH_ONLY;

try {
  for (const [name, args, rgArgs, via] of cases) {
    if (only && !name.startsWith(only)) continue;
    const toolName = name.startsWith('grep') ? 'grep' : 'list_files';
    const [ours, raw] = await timePair(() => tool(toolName, args, via), () => timeRg(root, [...SCOPE, ...rgArgs]), { warmup: WARMUP, runs: RUNS });
    report(`scale.${name}.p50`, ours, 'ms', { files: FILES, runs: RUNS });
    report(`scale.${name}.rg.p50`, raw, 'ms', { files: FILES, runs: RUNS, rg: rgArgs.join(' ') });
    report(`scale.${name}.vs_rg`, ours / raw, 'x');
  }
} finally {
  await client.close();
  await ruled.close();
  for (const home of [plainHome, ruledHome]) await rm(home, { recursive: true, force: true });
}
