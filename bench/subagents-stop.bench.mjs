// Stop with four subagents running: `loupe run --json --yes` against a model whose request starts
// four children, each of which runs a long `sleep`; once all four commands run, Ctrl-C (SIGINT).
// Figures: from the signal to the last child's `subagent_finished`, and to the run's exit; and how
// many of the children's commands were left in the process table (must be 0). Target: < 2 s.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import path from 'node:path';
import { percentile, report, ROOT, tempDir } from './lib.mjs';

const RUNS = 5;
const SECONDS = 907;

/** A model answering the parent and each child by its own first message. */
async function model() {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const messages = JSON.parse(body || '{}').messages ?? [];
      const task = String(messages.find((m) => m.role === 'user')?.content ?? '');
      const turn = messages.filter((m) => m.role === 'assistant').length;
      const base = { id: 'c', object: 'chat.completion.chunk', created: 0, model: 'bench' };
      const frame = (delta, finish = null) => `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
      const calls = task.startsWith('SLEEPER') ? (turn === 0 ? [['bash', { command: `sleep ${SECONDS}`, description: 'wait' }]] : []) : turn === 0 ? [1, 2, 3, 4].map((n) => ['agent', { description: `Sleeper ${n}`, prompt: `SLEEPER-${n}: sleep` }]) : [];
      const frames = [frame({ role: 'assistant', content: '' })];
      calls.forEach(([name, args], index) => frames.push(frame({ tool_calls: [{ index, id: `call_${index}`, type: 'function', function: { name, arguments: JSON.stringify(args) } }] })));
      if (!calls.length) frames.push(frame({ content: 'done' }));
      frames.push(frame({}, calls.length ? 'tool_calls' : 'stop'));
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`${frames.join('')}data: [DONE]\n\n`);
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { server, baseURL: `http://127.0.0.1:${server.address().port}/v1` };
}

const sleepers = () =>
  readdirSync('/proc').filter((p) => {
    if (!/^\d+$/.test(p)) return false;
    try {
      return readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').join(' ').trim() === `sleep ${SECONDS}` && !/\) Z /.test(readFileSync(`/proc/${p}/stat`, 'utf8'));
    } catch {
      return false;
    }
  }).length;

const { server, baseURL } = await model();
const toLastChild = [];
const toExit = [];
let left = 0;
for (let r = 0; r < RUNS; r++) {
  const dir = await tempDir('loupe-bench-agents-');
  const home = await tempDir('loupe-bench-agents-home-');
  const env = { ...process.env, HOME: home, LOUPE_HOME: home, LOUPE_KEYCHAIN: 'off', LOUPE_MODEL: 'bench', OPENAI_BASE_URL: baseURL, OPENAI_API_KEY: 'k' };
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/loupe.mjs'), 'run', '--json', '--yes', '--cwd', dir, 'start four sleepers'], { env, stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  let sentAt = 0;
  let lastChildAt = 0;
  const exited = new Promise((resolve) => child.on('close', () => resolve(performance.now())));
  await new Promise((resolve) => {
    child.stdout.on('data', (d) => {
      out += d;
      const lines = out.split('\n').filter(Boolean);
      const running = lines.filter((l) => l.includes('"tool_call_started"') && l.includes('"agent_id"') && l.includes(`sleep ${SECONDS}`)).length;
      if (!sentAt && running === 4) {
        // The four commands run once their starts are out; give the shells a moment to exec.
        const poll = setInterval(() => {
          if (sleepers() < 4) return;
          clearInterval(poll);
          sentAt = performance.now();
          child.kill('SIGINT');
          resolve();
        }, 10);
      }
      if (sentAt && lines.filter((l) => l.includes('"subagent_finished"')).length === 4 && !lastChildAt) lastChildAt = performance.now();
    });
  });
  const exitAt = await exited;
  if (!lastChildAt) lastChildAt = exitAt;
  toLastChild.push(lastChildAt - sentAt);
  toExit.push(exitAt - sentAt);
  left += sleepers();
  await rm(dir, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
}
server.close();
report('subagents.stop_four.to_last_child.p50', percentile(toLastChild, 50), 'ms', { runs: RUNS, target_ms: 2000 });
report('subagents.stop_four.to_last_child.max', Math.max(...toLastChild), 'ms', { target_ms: 2000 });
report('subagents.stop_four.to_exit.p50', percentile(toExit, 50), 'ms');
report('subagents.stop_four.commands_left', left, 'processes', { target: 0 });
