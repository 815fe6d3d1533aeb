// What one watcher batch of N paths costs the file index when patched (FileIndex.patch) against
// a walk of the whole tree (FileIndex.refresh), on the generated 100k and 1M monorepos: the
// measurement behind MAX_PATCH_PATHS, the largest batch that is patched rather than walked.
// A batch is what a checkout or an install sends: half new files and half files saved over
// (by rename, as editors do), spread over different folders, so each new file costs a listing
// of its folder. Wall time and CPU (the host's and its rg children's) per batch, one JSON line
// each. The trees are hard-linked copies of the cache: files are only ever replaced, never
// written in place. LOUPE_BENCH_1M=0 or LOUPE_BENCH_100K=0 leaves one out.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, bundleSource, cachedMonorepo, report, tempDir } from './lib.mjs';

const SIZES = [1, 10, 100, 300, 1000, 3000];
const WALKS = 3;

// Beside the project's modules, so the bundle's imports of its dependencies resolve.
const cacheDir = path.join(ROOT, 'node_modules', '.cache', 'loupe-bench');
await mkdir(cacheDir, { recursive: true });
const bundle = await bundleSource('src/main/services/workspace/fileIndex.ts', cacheDir, 'fileIndex.mjs', { external: [/^[^./]/] });
const { FileIndex, MAX_PATCH_PATHS } = await import(pathToFileURL(bundle).href);

/** This process's CPU and its reaped children's (rg), in seconds. */
const cpu = () => {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / 100;
};
const load = () => os.loadavg().map((l) => Math.round(l * 10) / 10);

async function timed(fn) {
  const c0 = cpu();
  const t0 = performance.now();
  const out = await fn();
  return { ms: performance.now() - t0, cpu: cpu() - c0, out };
}

async function measure(tree, tag, folders) {
  const index = new FileIndex(tree);
  await index.refresh();
  const walks = [];
  for (let i = 0; i < WALKS; i++) walks.push(await timed(() => index.refresh()));
  walks.sort((a, b) => a.ms - b.ms);
  const walk = walks[Math.floor(WALKS / 2)];
  report(`index.${tag}.walk`, walk.ms, 'ms', { cpu_s: Math.round(walk.cpu * 100) / 100, runs: WALKS, files: index.fileCount, load: load() });
  let round = 0;
  for (const n of SIZES) {
    round++;
    const paths = [];
    for (let i = 0; i < n; i++) {
      // A different folder for each path, taken in a stride so they spread over packages.
      const dir = folders[(i * 7919 + round * 104_729) % folders.length];
      if (i % 2 === 0) {
        const rel = `${dir}/new-${round}-${i}.ts`;
        await writeFile(path.join(tree, rel), `export const n = ${i};\n`);
        paths.push(rel);
      } else {
        // The folder's first file (packages/pkgP/src/mM holds fileP*100+M*10 and the nine after).
        const [, pkg, m] = /pkg(\d+)\/src\/m(\d+)$/.exec(dir);
        const rel = `${dir}/file${Number(pkg) * 100 + Number(m) * 10}.ts`;
        // Replaced, as editors save: the cache's inode is never written.
        await writeFile(path.join(tree, `${rel}.swp`), `export const saved = ${i};\n`);
        await rename(path.join(tree, `${rel}.swp`), path.join(tree, rel));
        paths.push(rel);
      }
    }
    // Over the limit the workspace walks instead; patched here in chunks of the limit to show
    // what patching it would have cost.
    const patched = await timed(async () => {
      for (let i = 0; i < paths.length; i += MAX_PATCH_PATHS) if ((await index.patch(paths.slice(i, i + MAX_PATCH_PATHS))) === null) return null;
      return true;
    });
    if (patched.out === null) throw new Error(`a batch of ${n} was not patched`);
    report(`index.${tag}.batch_${n}`, patched.ms, 'ms', {
      cpu_s: Math.round(patched.cpu * 100) / 100,
      vs_walk: Math.round((patched.ms / walk.ms) * 100) / 100,
      cpu_vs_walk: Math.round((patched.cpu / walk.cpu) * 100) / 100,
      workspace_does: n > MAX_PATCH_PATHS ? 'walk' : 'patch',
      limit: MAX_PATCH_PATHS,
      load: load(),
    });
  }
  // Still exact: the patched index equals a fresh walk.
  const fresh = new FileIndex(tree);
  await fresh.refresh();
  if (JSON.stringify(fresh.snapshot()) !== JSON.stringify(index.snapshot())) throw new Error('the patched index differs from a fresh walk');
  fresh.dispose();
  index.dispose();
}

/** The generated monorepo's leaf folders (packages/pkgN/src/mM). */
function leafFolders(n) {
  const out = [];
  for (let pkg = 0; pkg < n / 100; pkg++) for (let m = 0; m < 10; m++) out.push(`packages/pkg${pkg}/src/m${m}`);
  return out;
}

for (const [n, tag, env] of [
  [100_000, '100k', 'LOUPE_BENCH_100K'],
  [1_000_000, '1m', 'LOUPE_BENCH_1M'],
]) {
  if (process.env[env] === '0') continue;
  const cache = await cachedMonorepo(n, { git: n === 100_000 });
  const dir = await tempDir('loupe-bench-index-patch-');
  const tree = path.join(dir, 'tree');
  try {
    // Hard links: the tree in seconds instead of n files written; without .git (the index never reads it).
    execFileSync('cp', ['-al', cache, tree]);
    await rm(path.join(tree, '.git'), { recursive: true, force: true });
    console.error(`bench: index patch at ${tag}, load ${load()}`);
    await measure(tree, tag, leafFolders(n));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
