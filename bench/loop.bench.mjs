// Agent loop overhead per tool round trip: `loupe run --json` against a scripted model that
// calls read_file N times, then answers. From the NDJSON event times, per round trip:
//   (next turn_started − turn_completed) − time spent inside the tools
// i.e. what the loop itself adds (argument parsing, dispatch, truncation, compaction check,
// history, events, the turn's system prompt) with model and tool time left out. Target: < 5 ms.
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { loopOverheads, percentile, readingModel, report, runLoupeJson, tempDir } from './lib.mjs';

const ROUND_TRIPS = 60;
const RUNS = 3;

const dir = await tempDir('loupe-bench-loop-');
for (let i = 0; i < 10; i++) await writeFile(path.join(dir, `f${i}.txt`), `line ${i}\n`.repeat(50));
const { server, baseURL } = await readingModel(ROUND_TRIPS, (n) => `f${n % 10}.txt`);
const samples = [];
for (let r = 0; r < RUNS; r++) {
  const events = await runLoupeJson(dir, baseURL, 'read the files', ROUND_TRIPS + 5);
  const finished = events.at(-1);
  if (finished.type !== 'request_finished' || finished.status !== 'done') throw new Error(`run ended ${JSON.stringify(finished)}`);
  samples.push(...loopOverheads(events).slice(r === 0 ? 5 : 0)); // the first turns of the first run warm the JIT
}
server.close();
await rm(dir, { recursive: true, force: true });
const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
report('loop.overhead_per_tool_round_trip.mean', mean, 'ms', { samples: samples.length, target_ms: 5 });
report('loop.overhead_per_tool_round_trip.p50', percentile(samples, 50), 'ms');
report('loop.overhead_per_tool_round_trip.p95', percentile(samples, 95), 'ms', { target_ms: 5 });
