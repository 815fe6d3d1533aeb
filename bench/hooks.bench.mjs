// What a no-op hook adds to a tool call: `loupe run --json` against a scripted model that calls
// read_file N times, in a git repository, without hooks and then with one PreToolUse hook of the
// person's (`~/.claude/settings.json`, matcher "*", a command that only appends a byte to a counter
// outside the workspace, so the bench can check it ran for every call). Each call's duration_ms
// covers its hooks (the PreToolUse firing, the tool, the PostToolUse firing), so the figure is
// p50(with) − p50(without). Target: < 30 ms. The machine's load is reported beside it.
import { execFileSync } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { percentile, readingModel, report, runLoupeJson, tempDir } from './lib.mjs';

const CALLS = 40;
const RUNS = 3;

const dir = await tempDir('loupe-bench-hooks-');
const ws = path.join(dir, 'ws');
await mkdir(ws);
for (let i = 0; i < 10; i++) await writeFile(path.join(ws, `f${i}.txt`), `line ${i}\n`.repeat(50));
execFileSync('git', ['init', '-q'], { cwd: ws });
execFileSync('git', ['-c', 'user.email=b@x', '-c', 'user.name=B', 'add', '.'], { cwd: ws });
execFileSync('git', ['-c', 'user.email=b@x', '-c', 'user.name=B', 'commit', '-qm', 'init'], { cwd: ws });

async function durations(withHook) {
  const home = path.join(dir, withHook ? 'home-hook' : 'home-plain');
  await mkdir(path.join(home, '.claude'), { recursive: true });
  if (withHook) await writeFile(path.join(home, '.claude', 'settings.json'), JSON.stringify({ hooks: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: 'printf x >> "$HOME/count"' }] }] } }));
  const { server, baseURL } = await readingModel(CALLS, (n) => `f${n % 10}.txt`);
  const out = [];
  let calls = 0;
  for (let r = 0; r < RUNS; r++) {
    const events = await runLoupeJson(ws, baseURL, 'read the files', CALLS + 5, { HOME: home, LOUPE_HOME: home, LOUPE_KEYCHAIN: 'off', LOUPE_LSP: 'off' });
    const hooks = events.filter((e) => e.type === 'hook');
    if (hooks.length) throw new Error(`a no-op hook decided something: ${JSON.stringify(hooks[0])}`);
    const finished = events.filter((e) => e.type === 'tool_call_finished');
    calls += finished.length;
    out.push(...finished.map((e) => e.duration_ms).slice(r === 0 ? 5 : 0));
  }
  server.close();
  if (withHook) {
    const { readFile } = await import('node:fs/promises');
    const ran = (await readFile(path.join(home, 'count'), 'utf8')).length;
    if (ran !== calls) throw new Error(`the hook ran ${ran} times for ${calls} calls`);
    await rm(path.join(home, 'count'));
  }
  return out;
}

// Alternated, so a change of load hits both sides alike.
const plain = [];
const hooked = [];
for (let i = 0; i < 2; i++) {
  plain.push(...(await durations(false)));
  hooked.push(...(await durations(true)));
}
await rm(dir, { recursive: true, force: true });
const load = os.loadavg()[0];
report('hooks.noop_pretooluse_added_per_call.p50', percentile(hooked, 50) - percentile(plain, 50), 'ms', { target_ms: 30, load_1m: Math.round(load * 10) / 10, calls: hooked.length });
report('hooks.tool_call_with_noop_hook.p50', percentile(hooked, 50), 'ms');
report('hooks.tool_call_without_hooks.p50', percentile(plain, 50), 'ms');
report('hooks.tool_call_with_noop_hook.p95', percentile(hooked, 95), 'ms');
