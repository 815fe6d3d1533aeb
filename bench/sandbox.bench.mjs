// What the OS sandbox adds to a command: p50 of `echo hi` through the shell runner, plain and
// inside bubblewrap (policy built per command, private /tmp made and removed). The runner is
// bundled from source with rolldown (already a dependency of the build) into a temp file,
// since the built app exposes no such entry.
import { rm } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { bundleSource, percentile, report, tempDir } from './lib.mjs';

const RUNS = 60;
const WARMUP = 5;

const dir = await tempDir('loupe-bench-sbx-');
const { runCommand } = await import(pathToFileURL(await bundleSource('src/main/services/shell/commandRunner.ts', dir, 'runner.mjs')).href);
const { probeSandbox } = await import(pathToFileURL(await bundleSource('src/main/services/sandbox/probe.ts', dir, 'probe.mjs')).href);

const ws = await tempDir('loupe-bench-sbx-ws-');
async function p50(sandbox) {
  const times = [];
  for (let i = 0; i < RUNS + WARMUP; i++) {
    const r = await runCommand({ command: 'echo hi', cwd: ws, ...(sandbox ? { sandbox: { root: ws, grant: { network: false, networkRule: null } } } : {}) });
    if (r.exitCode !== 0 || r.text.trim() !== 'hi') throw new Error(`echo hi failed: ${r.text}`);
    if (i >= WARMUP) times.push(r.durationMs);
  }
  return percentile(times, 50);
}

const status = await probeSandbox();
const plain = await p50(false);
report('sandbox_echo_plain_p50', plain, 'ms', { runs: RUNS });
if (!status.available) {
  console.error(`sandbox bench: no sandbox here (${status.reason}); only the plain figure is reported`);
} else {
  const boxed = await p50(true);
  report('sandbox_echo_sandboxed_p50', boxed, 'ms', { runs: RUNS, kind: status.kind });
  report('sandbox_added_p50', boxed - plain, 'ms', { budget: 30 });
}
await rm(dir, { recursive: true, force: true });
await rm(ws, { recursive: true, force: true });
