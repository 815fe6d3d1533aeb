// Agent loop overhead per tool round trip: `loupe run --json` against a scripted model that
// calls read_file N times, then answers. From the NDJSON event times, per round trip:
//   (next turn_started − turn_completed) − time spent inside the tools
// i.e. what the loop itself adds (argument parsing, dispatch, truncation, compaction check,
// history, events) with model and tool time left out. Target: < 5 ms.
import { spawn } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import path from 'node:path';
import { ROOT, percentile, report, tempDir } from './lib.mjs';

const ROUND_TRIPS = 60;
const RUNS = 3;

/** A minimal OpenAI-compatible SSE server: `turns` replies of one read_file call, then an answer. */
async function scriptedModel(turns) {
  let served = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const n = served++ % (turns + 1);
      const base = { id: `c${n}`, object: 'chat.completion.chunk', created: 0, model: 'bench' };
      const frame = (delta, finish = null) => `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
      const frames = [frame({ role: 'assistant', content: '' })];
      if (n < turns) {
        const args = JSON.stringify({ path: `f${n % 10}.txt` });
        frames.push(frame({ tool_calls: [{ index: 0, id: `call_${n}`, type: 'function', function: { name: 'read_file', arguments: '' } }] }));
        for (let i = 0; i < args.length; i += 5) frames.push(frame({ tool_calls: [{ index: 0, function: { arguments: args.slice(i, i + 5) } }] }));
        frames.push(frame({}, 'tool_calls'));
      } else {
        frames.push(frame({ content: 'done' }), frame({}, 'stop'));
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`${frames.join('')}data: [DONE]\n\n`);
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { server, baseURL: `http://127.0.0.1:${server.address().port}/v1` };
}

function runLoupe(cwd, baseURL) {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, LOUPE_MODEL: 'bench', OPENAI_BASE_URL: baseURL, OPENAI_API_KEY: 'k', LOUPE_MAX_TURNS: String(ROUND_TRIPS + 5) };
    const child = spawn(process.execPath, [path.join(ROOT, 'bin/loupe.mjs'), 'run', '--json', '--cwd', cwd, 'read the files'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out.trim().split('\n').map((l) => JSON.parse(l))) : reject(new Error(`loupe run exited ${code}`))));
  });
}

function overheads(events) {
  const out = [];
  let completedAt = null;
  let toolMs = 0;
  for (const e of events) {
    if (e.type === 'turn_completed') [completedAt, toolMs] = [e.t, 0];
    else if (e.type === 'tool_call_finished') toolMs += e.duration_ms;
    else if (e.type === 'turn_started' && completedAt !== null) out.push(e.t - completedAt - toolMs);
  }
  return out;
}

const dir = await tempDir('loupe-bench-loop-');
for (let i = 0; i < 10; i++) await writeFile(path.join(dir, `f${i}.txt`), `line ${i}\n`.repeat(50));
const { server, baseURL } = await scriptedModel(ROUND_TRIPS);
const samples = [];
for (let r = 0; r < RUNS; r++) {
  const events = await runLoupe(dir, baseURL);
  const finished = events.at(-1);
  if (finished.type !== 'request_finished' || finished.status !== 'done') throw new Error(`run ended ${JSON.stringify(finished)}`);
  samples.push(...overheads(events).slice(r === 0 ? 5 : 0)); // the first turns of the first run warm the JIT
}
server.close();
await rm(dir, { recursive: true, force: true });
const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
report('loop.overhead_per_tool_round_trip.mean', mean, 'ms', { samples: samples.length, target_ms: 5 });
report('loop.overhead_per_tool_round_trip.p50', percentile(samples, 50), 'ms');
report('loop.overhead_per_tool_round_trip.p95', percentile(samples, 95), 'ms', { target_ms: 5 });
