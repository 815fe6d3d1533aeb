// Remote workspaces over ssh, against a real sshd on this machine (as the tests run it: root
// makes a user for it): the time `loupe remote ssh://… --serve` takes to open a folder the first
// time (the bundle made, uploaded and the host started there) and warm (installed, host running),
// and what the link adds to a request: `file.read` through the remote window against the same
// read through a local `loupe serve` of a copy of the folder.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { percentile, report, ROOT, startServe, tempDir } from './lib.mjs';

const RUNS = 200;
const WARMUP = 20;
const FILE = 'src/module.ts';
const CONTENT = `${'export const line = "a line of a module";\n'.repeat(400)}`;

// remoteWorld finds the bin beside itself (../../bin): bundled under out/bench it does.
const outDir = path.join(ROOT, 'out', 'bench');
await mkdir(outDir, { recursive: true });
{
  const { build } = await import('rolldown');
  // Its imports load some modules lazily: chunks beside it, in the same folder.
  await build({ input: path.join(ROOT, 'test/support/remoteWorld.ts'), platform: 'node', external: ['ws'], output: { dir: outDir, format: 'esm', entryFileNames: 'remoteWorld.mjs' }, logLevel: 'silent' });
}
const { remoteWorld, windowClient } = await import(path.join(outDir, 'remoteWorld.mjs'));

/** Settles with `p`, or fails after `ms`: a bench that hangs still cleans up. */
function within(p, ms, what) {
  let timer;
  return Promise.race([p, new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms)))]).finally(() => clearTimeout(timer));
}

/** The window's own client (hello, replay), as the page runs it. */
async function openAndWait(w) {
  const t0 = performance.now();
  const served = await w.serve();
  const client = windowClient(served.url);
  for (;;) {
    const status = await within(client.request('remote.status', undefined), 60_000, 'remote.status');
    if (status?.state === 'connected') break;
    await new Promise((r) => setTimeout(r, 20));
  }
  await within(client.request('workspace.current', undefined), 60_000, 'workspace.current');
  return { ms: performance.now() - t0, served, client };
}

async function readTimes(client) {
  const times = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const t0 = performance.now();
    await within(client.request('file.read', { path: FILE }), 30_000, 'file.read');
    if (i >= WARMUP) times.push(performance.now() - t0);
  }
  return times;
}

const w = await remoteWorld({ files: { [FILE]: CONTENT, 'README.md': '# bench\n' } });
const local = await tempDir('loupe-bench-remote-local-');
try {
  const first = await openAndWait(w);
  report('remote_open_first', first.ms, 'ms', { includes: 'bundle, upload over ssh, host start' });
  await first.served.stop();

  const warm = await openAndWait(w);
  report('remote_open_warm', warm.ms, 'ms', { includes: 'ssh master, host already running' });
  const remote = await readTimes(warm.client);

  await mkdir(path.join(local, 'src'), { recursive: true });
  await writeFile(path.join(local, FILE), CONTENT);
  const serve = await startServe(local, { LOUPE_HOME: path.join(local, '.home') });
  const localClient = windowClient(serve.url);
  await within(localClient.request('workspace.current', undefined), 60_000, 'workspace.current');
  const here = await readTimes(localClient);
  serve.proc.kill('SIGTERM');

  const p50 = percentile(remote, 50);
  report('remote_request_added_latency', p50 - percentile(here, 50), 'ms', {
    request: `file.read of ${CONTENT.length} bytes`,
    remote_p50_ms: Math.round(p50 * 100) / 100,
    remote_p95_ms: Math.round(percentile(remote, 95) * 100) / 100,
    local_p50_ms: Math.round(percentile(here, 50) * 100) / 100,
    runs: RUNS,
  });
  await warm.served.stop();
} finally {
  await w.stop();
  await rm(local, { recursive: true, force: true });
}
// The window clients keep their reconnect timers: the figures are out and everything is stopped.
process.exit(0);
