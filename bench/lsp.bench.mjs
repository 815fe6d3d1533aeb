// Edit → diagnostics on a generated TypeScript project of 9,000 files, through `loupe mcp` with
// the real typescript-language-server: each edit_file waits for the server's problems of the
// edited text and says what it introduced. The figure is the server's own time for the whole
// tool call (`_meta['loupe/duration_ms']`: read check, write, log, diagnostics) once the server
// is warm; the cold first edit (the server loading the project) is reported beside it.
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { connectMcp, percentile, report, tempDir } from './lib.mjs';

const FILES = 9000;
const RUNS = 30;
const WARMUP = 4;
const TARGET = 'src/app/target.ts';
const GOOD = 'export const total: number = make0(1).id + make8999(2).id;';
const BAD = 'export const total: number = make0(1).id + String(make8999(2).id);';

/**
 * 90 folders of 100 files; each file's type refers to the one of file ⌊i/2⌋, so the program is
 * one connected graph (a tree 14 imports deep) the checker has to know. Kept between runs under
 * the system temp folder.
 */
async function project() {
  const cache = path.join(os.tmpdir(), 'loupe-bench-cache');
  const final = path.join(cache, `lsp-ts-tree-${FILES}`);
  if (existsSync(final)) return final;
  const work = `${final}.partial-${process.pid}`;
  const jobs = [];
  for (let i = 0; i < FILES; i++) {
    const dir = path.join(work, 'src', `pkg${Math.floor(i / 100)}`);
    if (i % 100 === 0) await mkdir(dir, { recursive: true });
    const up = i === 0 ? null : Math.floor(i / 2);
    const text = [
      up === null ? '' : `import type { T${up} } from '../pkg${Math.floor(up / 100)}/file${up}';`,
      `export interface T${i} { id: number; name: string; parent?: ${up === null ? 'undefined' : `T${up}`} }`,
      `export function make${i}(id: number): T${i} { return { id, name: 'item ${i}' }; }`,
      '',
    ].join('\n');
    jobs.push(writeFile(path.join(dir, `file${i}.ts`), text));
    if (jobs.length >= 256) await Promise.all(jobs.splice(0));
  }
  await Promise.all(jobs);
  await mkdir(path.join(work, 'src', 'app'), { recursive: true });
  await writeFile(
    path.join(work, TARGET),
    `import { make0 } from '../pkg0/file0';\nimport { make8999 } from '../pkg89/file8999';\n\n${GOOD}\n`,
  );
  await writeFile(path.join(work, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: 'es2022', lib: ['es2022'], skipLibCheck: true }, include: ['src'] }));
  await rename(work, final);
  return final;
}

async function copyOf(src) {
  const { cp } = await import('node:fs/promises');
  const dir = await tempDir('loupe-bench-lsp-');
  const ws = path.join(dir, 'ws');
  await cp(src, ws, { recursive: true });
  // A cold server loads 9,000 files: the first edit may wait for it.
  await mkdir(path.join(ws, '.loupe'));
  await writeFile(path.join(ws, '.loupe', 'config.json'), JSON.stringify({ limits: { diagnostics_wait_ms: 120_000 } }));
  return { dir, ws };
}

async function edit(client, from, to) {
  const res = await client.callTool({ name: 'edit_file', arguments: { path: TARGET, old_str: from, new_str: to } });
  if (res.isError) throw new Error(`edit_file failed: ${res.content[0]?.text}`);
  const d = res.structuredContent?.data?.diagnostics;
  if (!d?.available) throw new Error(`no diagnostics: ${res.content[0]?.text}`);
  // Breaking the type must be seen as exactly one new error; fixing it, as none.
  const want = to === BAD ? 1 : 0;
  if (d.introduced.length !== want) throw new Error(`expected ${want} introduced, got ${JSON.stringify(d.introduced)}`);
  return res._meta['loupe/duration_ms'];
}

const { dir, ws } = await copyOf(await project());
const home = path.join(dir, 'home');
const client = await connectMcp(ws, { LOUPE_HOME: home, HOME: home, LOUPE_LSP: 'on', LOUPE_KEYCHAIN: 'off' });
try {
  await client.callTool({ name: 'read_file', arguments: { path: TARGET } });
  const cold = await edit(client, GOOD, BAD);
  await edit(client, BAD, GOOD);
  const times = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const [from, to] = i % 2 ? [BAD, GOOD] : [GOOD, BAD];
    const ms = await edit(client, from, to);
    if (i >= WARMUP) times.push(ms);
  }
  report('lsp.edit_to_diagnostics.warm.p50_ms', percentile(times, 50), 'ms', {
    p95_ms: Math.round(percentile(times, 95) * 100) / 100,
    runs: RUNS,
    files: FILES + 1,
    budget_ms: 1500,
    cold_first_edit_ms: Math.round(cold),
  });
} finally {
  await client.close();
  await rm(dir, { recursive: true, force: true });
}
