// What recording a command's writes adds to each command (the rewind issue): the snapshots of the
// non-ignored tree before and after it, and for a command that writes, the record of the change.
// Measured on generated trees of 10,000 and 100,000 files (git repositories, and 10,000 in a
// plain folder), through the workspace's own CommandCapture bundled from source with rolldown
// (the built app exposes no such entry). Budgets: 150 ms p50 at 10k, 1 s at 100k.
// As the app runs it, the folder's watcher feeds the snapshots (changeJournal.ts): a snapshot
// then looks at the paths that changed only. `.no_watcher` figures are without it, as
// `loupe run` and a watcher that failed are.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, bundleSource, generateTree, percentile, report, tempDir } from './lib.mjs';

const RUNS = 15;
const dir = await tempDir('loupe-bench-rewind-');
// Beside the project's modules, so the bundle's imports of its dependencies resolve.
const cache = path.join(ROOT, 'node_modules', '.cache', 'loupe-bench');
await mkdir(cache, { recursive: true });
const file = path.join(cache, 'compose.mjs');
await bundleSource('src/main/workspace/compose.ts', cache, 'compose.mjs', { external: [/^[^./]/] });
const { composeWorkspace, openUserSettings } = await import(pathToFileURL(file).href);
const quiet = { debug() {}, info() {}, warn() {}, error() {}, child() { return quiet; } };

async function tree(n, git) {
  const root = path.join(dir, `${git ? 'repo' : 'plain'}-${n}`);
  await mkdir(root, { recursive: true });
  await generateTree(root, n);
  await writeFile(path.join(root, '.gitignore'), 'node_modules/\n');
  if (git) {
    const g = (...a) => execFileSync('git', ['-c', 'user.email=b@example.com', '-c', 'user.name=bench', ...a], { cwd: root, stdio: 'ignore' });
    g('init', '-q');
    g('add', '-A');
    g('commit', '-qm', 'base');
  }
  return root;
}

let round = 0;
async function measure(n, git, watching = true) {
  // Each measurement writes bytes the tree has not had (the same tree serves two of them).
  round++;
  const root = path.join(dir, `${git ? 'repo' : 'plain'}-${n}`);
  if (!existsSync(root)) await tree(n, git);
  const services = composeWorkspace({ root, user: openUserSettings(path.join(dir, 'user')), asker: { kind: 'deny' }, logger: quiet });
  const watcher = watching ? services.watch(() => undefined, (e) => console.error(`rewind bench: watcher: ${e}`)) : null;
  await watcher?.start();
  const req = { tool: 'bash', command: 'bench', sessionId: 'bench' };
  const t0 = performance.now();
  await services.captures.around(req, async () => {});
  const first = performance.now() - t0;
  const nothing = [];
  const oneFile = [];
  const newFile = [];
  for (let i = 0; i < RUNS; i++) {
    let t = performance.now();
    await services.captures.around(req, async () => {});
    nothing.push(performance.now() - t);
    t = performance.now();
    // A different tracked file each time: its old content is the repository's, not one kept from the run before.
    const k = i * 37 + 5;
    const { capture } = await services.captures.around(req, () => writeFile(path.join(root, `pkg${Math.floor(k / 100)}`, `file${k}.ts`), `export const v${k} = ${round}.${i + 1};\n`));
    oneFile.push(performance.now() - t);
    if (capture.files.length !== 1) throw new Error(`expected one recorded file, got ${JSON.stringify(capture)}`);
    // A file that was not there: git's ignore rules are asked about it.
    t = performance.now();
    const made = await services.captures.around(req, () => writeFile(path.join(root, `pkg${i}`, `new${i}.ts`), `export const n${i} = ${round}.${i};\n`));
    newFile.push(performance.now() - t);
    if (made.capture.files.length !== 1) throw new Error(`expected one new file recorded, got ${JSON.stringify(made.capture)}`);
  }
  const label = `${git ? 'git' : 'plain'}_${n / 1000}k${watching ? '' : '.no_watcher'}`;
  const budget = n >= 100_000 ? 1000 : 150;
  report(`command_capture.${label}.no_change.p50_ms`, percentile(nothing, 50), 'ms', { files: n, git, watching, runs: RUNS, p95_ms: Math.round(percentile(nothing, 95)), budget });
  report(`command_capture.${label}.one_file.p50_ms`, percentile(oneFile, 50), 'ms', { files: n, git, watching, runs: RUNS, p95_ms: Math.round(percentile(oneFile, 95)), budget });
  report(`command_capture.${label}.new_file.p50_ms`, percentile(newFile, 50), 'ms', { files: n, git, watching, runs: RUNS, p95_ms: Math.round(percentile(newFile, 95)), budget });
  report(`command_capture.${label}.first_command_ms`, first, 'ms', { files: n, git, note: 'the first snapshot of a process reads every file (seeded from the git index when there is one)' });
  await watcher?.stop();
  await services.dispose();
}

try {
  await measure(10_000, true);
  await measure(10_000, true, false);
  await measure(10_000, false);
  await measure(100_000, true);
  await measure(100_000, true, false);
} finally {
  await rm(dir, { recursive: true, force: true, maxRetries: 5 }).catch((err) => console.error(`rewind bench: cleanup: ${err.message}`));
}
